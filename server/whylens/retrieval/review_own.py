"""The index as the change's base knew it: the branch's own commits (``base..head``) left out.

An editor's index is of the working branch: its revision is at or past the pull request's head,
so the commits under review are in it. Read as they are, they are history of the change itself:
its own "fix" commits become the fixes ``fragile`` and ``rewrites-fix`` guard, the lines it
rewrote are blamed on it (``review_lines`` reads the replacing lines), its commit messages
become Facts and Patterns, its own reverts become "reverted before", and its commits count as
co-changes — the pull request reviewed against itself (review29). ``BranchFree`` wraps an
``IndexReader`` so that every review check reads past them: history entries, line blame, file
history, reverts, units, records (those whose fixing commits are all the branch's) and
co-change counts.

What the index cannot give back is what the branch overwrote: a line the branch changed has
the branch's blame only, so it is unknown here (the base's blame of it is not in the index).
"""

from __future__ import annotations

from collections.abc import Iterable

from whylens.models import HistoryEntry, Record, Unit

MAX_OWN = 20_000  # branch commits told apart (a range larger than that is not a pull request)


class BranchFree:
    """``reader`` with the commits ``own`` left out of everything a review reads."""

    def __init__(self, reader, own: Iterable[str]) -> None:
        self._reader = reader
        self.own = frozenset(own)

    def __getattr__(self, name: str):  # meta, commit_info, events_of, knowledge_counts, …
        return getattr(self._reader, name)

    def _kept(self, entries: list[HistoryEntry]) -> list[HistoryEntry]:
        return [e for e in entries if e.commit not in self.own]

    def symbol_history(self, name: str, path: str | None = None,
                       formatting: bool = False) -> list[HistoryEntry]:
        return self._kept(self._reader.symbol_history(name, path=path, formatting=formatting))

    def file_history(self, path: str) -> list[HistoryEntry]:
        return self._kept(self._reader.file_history(path))

    def line_blame(self, path: str, line: int) -> HistoryEntry | None:
        entry = self._reader.line_blame(path, line)
        return None if entry is None or entry.commit in self.own else entry

    def units_for_symbol(self, name: str, path: str | None = None) -> list[Unit]:
        return [u for u in self._reader.units_for_symbol(name, path=path) if u.commit not in self.own]

    def records_for_symbol(self, name: str, path: str | None = None) -> list[Record]:
        return [r for r in self._reader.records_for_symbol(name, path=path) if not self.only_own(r)]

    def only_own(self, record: Record) -> bool:
        """A record the branch's commits alone made (its pull request, its commits)."""
        return bool(record.fixing_commits) and set(record.fixing_commits) <= self.own

    def reverts_of(self, sha: str) -> list[str]:
        return [r for r in self._reader.reverts_of(sha) or () if r not in self.own]

    def reverts_touching(self, path: str) -> list[tuple[str, str, str, int, bool]]:
        return [p for p in self._reader.reverts_touching(path)
                if p[0] not in self.own and p[1] not in self.own]

    def co_changes(self, path: str, recent: int = 200, max_files: int = 30,
                   symbol: str | None = None, min_together: int = 1,
                   ) -> tuple[int, list[tuple[str, str | None, int, float, int]], int]:
        return self._reader.co_changes(path, recent, max_files, symbol=symbol,
                                       min_together=min_together, exclude=self.own)


def without_branch(reader, own: Iterable[str] | None):
    """``reader`` itself when there is nothing to leave out, else a ``BranchFree`` over it."""
    own = frozenset(own or ())
    return BranchFree(reader, own) if own else reader
