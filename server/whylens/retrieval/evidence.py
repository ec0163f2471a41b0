"""What retrieval needs from records and commits, read from the index the same way everywhere.

- which records are worth showing (a fix edge and an anchor on the exact qualified symbol);
- their outcome, computed when read (a revert or a superseding record can land after indexing);
- which commits were reverted, and by what.
"""

from __future__ import annotations

from whylens.models import Record
from whylens.records.outcome import outcome_status


def has_fix_edge(record: Record) -> bool:
    """The record is tied to the code by a fixing commit, not only by words."""
    return bool(record.fixing_commits) and record.fix_edge_source != "none"


def anchored_exactly(record: Record, symbol: str) -> bool:
    """The record's anchors hold the qualified name itself (not a same-named other symbol)."""
    return symbol in record.anchors


def reverting_commits(reader, sha: str) -> list[str]:
    """Shas of the commits that revert ``sha`` (empty when it stands)."""
    try:
        return list(reader.reverts_of(sha) or ())
    except Exception:  # noqa: BLE001 - an old index without the reverts table
        return []


def superseding(record: Record, others) -> list[str]:
    """Ids of ``others`` that say they supersede ``record`` (by id, #number or title)."""
    keys = {record.id}
    if record.number is not None:
        keys.add(f"#{record.number}")
        keys.add(str(record.number))
    return [o.id for o in others if o.id != record.id and keys & set(o.supersedes)]


def record_outcome(reader, record: Record, neighbours=()) -> str:
    """landed / reverted / superseded (whatever ``records.outcome`` names), computed now."""
    by = superseding(record, neighbours)
    return outcome_status(
        record,
        reverted=lambda sha: bool(reverting_commits(reader, sha)),
        superseded_by=lambda rec: by if rec.id == record.id else superseding(rec, neighbours),
    )
