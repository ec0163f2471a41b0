"""What retrieval needs from records and commits, read from the index the same way everywhere.

- which records are worth showing (a fix edge and an anchor on the exact qualified symbol);
- their outcome, computed when read (a revert or a superseding record can land after indexing);
- which commits were reverted, and by what.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from whylens.models import Record
from whylens.records.outcome import outcome_status

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader


def has_fix_edge(record: Record) -> bool:
    """The record is tied to the code by a fixing commit, not only by words."""
    return bool(record.fixing_commits) and record.fix_edge_source != "none"


def anchored_exactly(record: Record, symbol: str) -> bool:
    """The record's anchors hold the qualified name itself (not a same-named other symbol)."""
    return symbol in record.anchors


def reverting_commits(reader: IndexReader, sha: str) -> list[str]:
    """Shas of the commits that revert ``sha`` (empty when it stands)."""
    return list(reader.reverts_of(sha) or ())


def revert_check(reader: IndexReader):
    """``sha -> bool``: a revert of it still stands (a revert that was itself reverted does not
    count). Memoised per call site; depth-capped against cycles in bad data."""
    cache: dict[str, bool] = {}

    def reverted(sha: str, depth: int = 0) -> bool:
        if sha not in cache:
            cache[sha] = depth < 20 and any(not reverted(r, depth + 1)
                                            for r in reverting_commits(reader, sha))
        return cache[sha]

    return reverted


def standing_revert(reader: IndexReader, *shas: str) -> str | None:
    """The first commit that reverts one of ``shas`` (in their order) and was not itself
    reverted, or None."""
    reverted = revert_check(reader)
    return next((r for sha in shas for r in reverting_commits(reader, sha) if not reverted(r)),
                None)


def record_outcome(reader: IndexReader, record: Record, neighbours=()) -> str:
    """reverted / superseded / landed / unresolved (``records.outcome``), computed now.

    ``neighbours``: the other records anchored to the same symbol (the candidates that may
    supersede it).
    """
    return outcome_status(
        record,
        revert_check(reader),
        [other for other in neighbours if other.id != record.id],
    )


def item_text(item) -> str:
    """The prose a unit or record is matched on."""
    if isinstance(item, Record):
        claims = [item.problem] if item.problem else []
        claims += [*item.cause, *item.decision, *item.rejected]
        return " ".join([item.title, *(c.text for c in claims)])
    return " ".join(x for x in (item.title, item.content, item.context) if x)
