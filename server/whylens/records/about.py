"""What a record says about one symbol: the claims a card of that symbol may show.

A record is the story of a piece of work, often several commits; a card about one symbol shows
only the claims that explain that symbol (``knowledge.confidence``): each claim's thread unit
names the commit whose message said it (``ThreadUnit.commit``), and only commits that changed
the symbol count. The same function decides which symbols a record is anchored to when it is
built (``records.history``) and what a card shows when it is read (``retrieval.why``), so the
counts of the lens, the card and ``stats`` agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from whylens.knowledge.confidence import evidence, shown
from whylens.models import Claim, Record, SymbolEvent

# symbol -> {commit sha: how that commit changed it}
Changes = Mapping[str, str]
CommitSymbols = Callable[[str], Iterable[str]]


def claims_about(record: Record, symbol: str, changes: Changes,
                 commit_symbols: CommitSymbols) -> Record:
    """``record`` with only the claims a card of ``symbol`` shows. ``changes`` are the commits
    that changed the symbol (sha -> event kind), ``commit_symbols(sha)`` the symbols a commit
    changed."""
    title_unit = record.thread[0].id if record.thread else None
    units = {u.id: u for u in record.thread}
    work_symbols: list[str] | None = None

    def keep(claim: Claim, field: str) -> bool:
        nonlocal work_symbols
        unit = units.get(claim.unit)
        commit = unit.commit if unit is not None else None
        if commit is not None:
            return shown(evidence(claim.text, field, claim.weight, symbol, changes.get(commit),
                                  commit_symbols(commit), title=claim.unit == title_unit))
        # a merge PR's description (or a tracker thread): it speaks for the whole work
        if work_symbols is None:
            work_symbols = [s for sha in record.fixing_commits for s in commit_symbols(sha)]
        change = next((changes[sha] for sha in record.fixing_commits if sha in changes), None)
        return shown(evidence(claim.text, field, claim.weight, symbol, change, work_symbols,
                              title=claim.unit == title_unit, whole_work=True))

    problem = record.problem if record.problem and keep(record.problem, "problem") else None
    return replace(
        record, problem=problem,
        cause=tuple(c for c in record.cause if keep(c, "cause")),
        decision=tuple(c for c in record.decision if keep(c, "decision")),
        rejected=tuple(c for c in record.rejected if keep(c, "rejected")))


def says_anything(record: Record) -> bool:
    """Whether a record narrowed by ``claims_about`` still has a claim to show, or says which
    earlier work it supersedes (then it stays a neighbour the superseded work is checked
    against, however plainly it is worded)."""
    return bool(record.problem or record.cause or record.decision or record.rejected
                or record.supersedes)


def changes_by_symbol(shas: Iterable[str], events_by_commit: Mapping[str, list[SymbolEvent]]
                      ) -> dict[str, dict[str, str]]:
    """symbol -> {sha: event kind} over the commits ``shas`` (deletions left out)."""
    out: dict[str, dict[str, str]] = {}
    for sha in shas:
        for event in events_by_commit.get(sha, ()):
            if event.kind != "deleted":
                out.setdefault(event.symbol, {})[sha] = event.kind
    return out


def symbols_of(events_by_commit: Mapping[str, list[SymbolEvent]]) -> CommitSymbols:
    """``commit_symbols`` over events in memory."""
    return lambda sha: [e.symbol for e in events_by_commit.get(sha, ()) if e.kind != "deleted"]


def explained_anchors(record: Record, candidates: Iterable[str],
                      events_by_commit: Mapping[str, list[SymbolEvent]]) -> tuple[str, ...]:
    """The symbols of ``candidates`` whose card shows something of ``record``: the only ones
    it is anchored to (a record with nothing to say about a symbol is no decision of it)."""
    changes = changes_by_symbol(record.fixing_commits, events_by_commit)
    commit_symbols = symbols_of(events_by_commit)
    return tuple(s for s in candidates if says_anything(
        claims_about(record, s, changes.get(s, {}), commit_symbols)))
