"""Decision records of a run, built over a sliding window of walked commits (bounded memory).

``build_records`` needs the commits of a piece of work together (a merge and the commits it
brought in, the commits that fix one issue). Walking newest first, the commits of one piece of
work sit close to each other, so records are built ``WINDOW_COMMITS`` at a time over that chunk
and the next (older) one: a record whose newest commit is in the first chunk is written, the
rest wait for the next round. A record id seen in an earlier round (an issue fixed
across chunks or runs) is coalesced with what the index holds; a record whose commits were all
part of records written in the previous round (a branch commit its merge already claimed) is
dropped. Reverts are paired within the same windows; an incremental run's last round also
with the earlier commits its reverts may name (``pipeline.lookback``).

A re-applied tracker export (``records/github``) needs every commit at once, so a rebuild that
has one keeps the whole history in memory, as before this module.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from pathlib import Path

from whylens.errors import WhyLensError
from whylens.models import Commit, Record, SymbolEvent
from whylens.records.history import build_records, coalesce_with
from whylens.records.reverts import revert_pairs

log = logging.getLogger(__name__)

WINDOW_COMMITS = 2_000


class RecordWindows:
    """Feed every walked commit (slim, newest first) with its events; ``finish()`` at the end."""

    def __init__(self, writer, export_dir: str | None, full: bool,
                 window: int | None = None,
                 lookback: Callable[[list[Commit]], list[Commit]] | None = None) -> None:
        self._writer = writer
        self._lookback = lookback  # an incremental run: the earlier commits its reverts may name
        self._window = max(window or WINDOW_COMMITS, 1)
        self._export: str | None = (export_dir if (full and export_dir and Path(export_dir).is_dir())
                                    else None)
        self._commits: deque[Commit] = deque()
        self._events: dict[str, list[SymbolEvent]] = {}
        self._written_before: set[str] = set()  # fixing commits of the previous round's records
        self.records = 0

    @property
    def whole(self) -> bool:
        """True when the whole history is kept (a tracker export to re-apply)."""
        return self._export is not None

    def checkpoint(self) -> dict:
        """The window so far, picklable (a segmented backfill's next segment ``restore``s it)."""
        return {"commits": list(self._commits), "events": self._events,
                "written_before": self._written_before, "records": self.records}

    def restore(self, state: dict) -> None:
        self._commits = deque(state["commits"])
        self._events, self._written_before = state["events"], state["written_before"]
        self.records = state["records"]

    def add(self, commit: Commit, events: list[SymbolEvent]) -> None:
        self._commits.append(commit)
        self._events[commit.sha] = events
        if self._export is None and len(self._commits) >= 2 * self._window:
            self._round(final=False)

    def finish(self) -> None:
        if self._export is not None:
            self._with_export()
        elif self._commits:
            self._round(final=True)

    def _round(self, final: bool) -> None:
        commits = list(self._commits)
        position = {c.sha: n for n, c in enumerate(commits)}  # 0: the newest

        def wanted(record_id: str, fixing: tuple[str, ...]) -> bool:
            # a record is written once its newest commit is in the first chunk: all of its
            # commits in this window are here, older ones come as a record of the same id
            # later (the others are not even finished: each commit is in two rounds)
            if not final and min((position[sha] for sha in fixing if sha in position),
                                 default=len(commits)) >= self._window:
                return False
            return not (set(fixing) <= self._written_before
                        and self._writer.stored_record(record_id) is None)

        kept = build_records(commits, self._events, wanted)
        records = coalesce_with(kept, self._writer.stored_record)
        # the last round holds the oldest new commits: what they revert may be older still
        earlier = self._lookback(commits) if final and self._lookback is not None else []
        self._write(records, revert_pairs(commits, earlier))
        self._written_before = {sha for r in records for sha in r.fixing_commits}
        if not final:
            for _ in range(self._window):
                done = self._commits.popleft()
                self._events.pop(done.sha, None)

    def _with_export(self) -> None:
        assert self._export is not None
        from whylens.records.github import load_export, merge_tracker  # only with an export

        commits = list(self._commits)
        records = build_records(commits, self._events)
        try:
            records = merge_tracker(records, load_export(self._export), commits, self._events)
        except WhyLensError as exc:  # a damaged export must not cost the whole rebuild
            log.warning("the tracker export at %s was not re-applied: %s", self._export, exc)
            self._writer.set_meta(github_export=None)
        self._write(records, revert_pairs(commits))

    def _write(self, records: list[Record], reverts: list[tuple[str, str]]) -> None:
        self._writer.add_records(records)
        self._writer.add_reverts(reverts)
        self.records += len(records)

