"""What is current and what was undone: knowledge from a reverted or superseded change is history.

A record is undone when its outcome (``evidence.record_outcome``) is reverted or superseded; a
unit when its commit was reverted (by a revert that itself stands, ``evidence.revert_check``) or
belongs to undone work. The record of the revert itself is no decision of its own on that card:
what it says becomes the reason on the undone item's line ("reverted in X: reason"). Undone
housekeeping (a docstring reworded and put back) is neither current nor history: it never
explained the code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from whylens.knowledge.subjects import housekeeping_text, housekeeping_work
from whylens.models import Record, Reversal, Unit
from whylens.records.outcome import supersedes
from whylens.retrieval.evidence import reverting_commits

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader

MAX_REASON_CHARS = 240
UNDONE = ("reverted", "superseded")


def split_current(reader: IndexReader, records: Sequence[Record], outcomes: dict[str, str],
                  units: Sequence[Unit], reverted: Callable[[str], bool]
                  ) -> tuple[list[Record], list[Unit], list[Reversal]]:
    """(current records, current units, reversals); ``records`` are the symbol's decisions and
    ``reverted`` says whether a commit's revert stands."""
    undone_work = {sha: r for r in records if outcomes.get(r.id) in UNDONE for sha in r.fixing_commits}
    reversals = [_reversal(reader, r, outcomes[r.id], r.fixing_commits, records, units)
                 for r in records if outcomes.get(r.id) in UNDONE
                 and not housekeeping_work(r.title, r.files)]
    current_units: list[Unit] = []
    for unit in units:
        if (reverted(unit.commit) or unit.commit in undone_work) \
                and housekeeping_text(unit.content):
            continue
        if reverted(unit.commit):
            reversals.append(_reversal(reader, unit, "reverted", (unit.commit,), records, units))
        elif unit.commit in undone_work:
            work = undone_work[unit.commit]
            reversals.append(_reversal(reader, unit, outcomes[work.id], work.fixing_commits,
                                       records, units))
        else:
            current_units.append(unit)
    reversals = _distinct(reversals)
    reverting = {r.by for r in reversals if r.how == "reverted" and r.by}
    current_records = [r for r in records if outcomes.get(r.id) not in UNDONE
                       and not (r.fixing_commits and set(r.fixing_commits) <= reverting)]
    return current_records, current_units, reversals


def _distinct(reversals: list[Reversal]) -> list[Reversal]:
    """One line per thing said: a unit that repeats its undone record's words is left out."""
    seen: set[str] = set()
    out = []
    for reversal in reversals:
        item = reversal.item
        texts = [item.content] if isinstance(item, Unit) else [item.title] + [
            c.text for c in (*([item.problem] if item.problem else []), *item.decision)]
        keys = {" ".join(t.lower().split()).rstrip(".") for t in texts if t}
        if keys & seen:
            continue
        seen |= keys
        out.append(reversal)
    return out


def _reversal(reader: IndexReader, item: Unit | Record, how: str, commits: Iterable[str],
              records: Sequence[Record], units: Sequence[Unit]) -> Reversal:
    if how == "superseded" and isinstance(item, Record):
        later = next((r for r in records if supersedes(r, item)), None)
        return Reversal(item, how, later.id if later else "", reason=_record_reason(later))
    by = next((r for sha in commits for r in reverting_commits(reader, sha)), "")
    if not by:
        return Reversal(item, how, "")
    info = reader.commit_info(by)
    reason = next((_record_reason(r) for r in records if by in r.fixing_commits), "")
    if not reason:
        reason = next((u.content for u in units if u.commit == by), "")
    return Reversal(item, how, by, info.pr if info else None, _cap(reason))


def _record_reason(record: Record | None) -> str:
    """What a revert's (or a superseding) record says about why: its cause, problem or
    decision, never its bare 'Revert "…"' title."""
    if record is None:
        return ""
    for claim in (*record.cause, *([record.problem] if record.problem else []), *record.decision):
        text = claim.text.strip()
        if not text.lower().startswith(("revert", "this reverts")):
            return _cap(text)
    return ""


def _cap(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"
