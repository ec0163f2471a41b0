"""A record's outcome, computed when read from raw facts (never stored, so it is never stale).

Floors, strongest first:
- ``reverted``: a fixing commit was later reverted (and that revert stands);
- ``superseded``: a later record says it supersedes or replaces this one — naming its number
  (``supersedes #12``), or naming one of its anchors while touching the same symbols;
- ``landed``: merged, with a fix edge (``provider`` or ``text``) and at least one fixing commit;
- ``unresolved``: anything else.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable, Iterable

from whylens.models import Record

OUTCOMES = ("reverted", "superseded", "landed", "unresolved")


def outcome_status(
    record: Record,
    is_reverted: Callable[[str], bool],
    superseding: Iterable[Record] = (),
) -> str:
    """One of ``OUTCOMES``; ``superseding`` are candidate records (any; the later ones count)."""
    if any(is_reverted(sha) for sha in record.fixing_commits):
        return "reverted"
    if any(supersedes(other, record) for other in superseding):
        return "superseded"
    if record.merged and record.fix_edge_source != "none" and record.fixing_commits:
        return "landed"
    return "unresolved"


def supersedes(later: Record, record: Record) -> bool:
    """Does ``later`` say it supersedes ``record`` (and come after it)?"""
    if later.id == record.id or not later.supersedes or not _after(later.date, record.date):
        return False
    numbers = {f"#{n}" for n in (record.number, record.partner) if n is not None}
    if numbers & set(later.supersedes):
        return True
    shared = set(later.anchors) & set(record.anchors)
    return bool(shared) and bool(set(later.supersedes) & _names(record.anchors))


def _names(anchors: Iterable[str]) -> set[str]:
    """``Session.send`` may be named as ``Session.send`` or ``send``."""
    out = set()
    for anchor in anchors:
        out.add(anchor)
        out.add(anchor.rsplit(".", 1)[-1])
    return out


def _after(a: str, b: str) -> bool:
    try:
        return datetime.fromisoformat(a) > datetime.fromisoformat(b)
    except ValueError:
        return a > b
