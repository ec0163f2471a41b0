"""Whoosh merge policies of the index writer.

A query costs per segment, and a merge costs per document it rewrites. Whoosh's MERGE_SMALL
merges every segment up to the first point where their total is below a Fibonacci bound: on a
layout of many mid-sized segments (a segmented backfill of a 100k-commit history left ~20 of
about a thousand documents beside its big ones) it merges nothing at the rebuild's end, and a
later 10-commit update rewrote 22,736 documents: 11.7 s of CPU where its neighbours took 0.5 s.
So the rebuild's end folds its small segments together (its cost is the backfill's), and an
update merges a bounded number of documents.

A backfill's flush merges (MERGE_SMALL) only once its walk's processes are gone: at a segment's
cut (``IndexWriter.suspend``: the anchor worker and git have exited) or at the commit. Merged
in the middle of a segment, a merge of twenty segments (68,398 documents, ~27 s of CPU at
commit ~35,000 of the 100k history) lifted the indexer by ~30-55 MB while the worker (~170 MB)
and git (~90 MB) were alive beside it, the tree's highest moments. An unsegmented backfill
merges when ``BACKFILL_MAX_SEGMENTS`` pile up.
"""

from __future__ import annotations

from whoosh.reading import SegmentReader
from whoosh.writing import MERGE_SMALL

# An update's merge rewrites at most this many documents (about a second of CPU; bigger
# segments wait for the next rebuild).
UPDATE_MERGE_MAX_DOCS = 2_000
# A rebuild leaves no segment this small beside others: it merges them into one. Above one
# flush of ``writer.AUTO_FLUSH_DOCS`` (8,000, and the batch that passes it): with a backfill's
# merges at its cuts only, the 100k history ended with ten such segments beside a merged one
# (12 segments: a query 40-50% slower than on main's 6).
REBUILD_MIN_SEGMENT_DOCS = 10_000
# A backfill's flush merges before its walk is done only when this many segments exist.
BACKFILL_MAX_SEGMENTS = 32


def flush_merge(segments: int, *, backfill: bool, walk_done: bool, at_least: int):
    """The merge policy of a write that is not a full merge, or None (no merge): none under
    ``at_least`` segments; an update's bounded merge; a backfill's MERGE_SMALL once its walk is
    done or ``BACKFILL_MAX_SEGMENTS`` segments exist (the module docstring)."""
    if segments < at_least:
        return None
    if not backfill:
        return merge_small_bounded
    return MERGE_SMALL if walk_done or segments >= BACKFILL_MAX_SEGMENTS else None


def merge_small_ones(writer, segments) -> list:
    """The rebuild's last merge: every segment under ``REBUILD_MIN_SEGMENT_DOCS`` documents
    into one (when there are two or more); the bigger ones are kept."""
    small = [s for s in segments if s.doc_count_all() < REBUILD_MIN_SEGMENT_DOCS]
    if len(small) < 2:
        return list(segments)
    _add_segments(writer, small)
    return [s for s in segments if s.doc_count_all() >= REBUILD_MIN_SEGMENT_DOCS]


def merge_small_bounded(writer, segments) -> list:
    """MERGE_SMALL over the smallest segments whose documents total at most
    ``UPDATE_MERGE_MAX_DOCS``; the other segments are kept as they are."""
    ordered = sorted(segments, key=lambda segment: segment.doc_count_all())
    small, total = [], 0
    for segment in ordered:
        if total + segment.doc_count_all() > UPDATE_MERGE_MAX_DOCS:
            break
        small.append(segment)
        total += segment.doc_count_all()
    kept = MERGE_SMALL(writer, small) if len(small) > 1 else small
    return kept + ordered[len(small):]


def merge_all(writer) -> None:
    """Whoosh's OPTIMIZE merge, done before the writer's own documents are added (their
    document numbers then follow the merged ones'; ``whoosh_fixes`` makes their field lengths
    count as a merge would count them)."""
    _add_segments(writer, writer.segments)


def _add_segments(writer, segments) -> None:
    """Copy the documents of ``segments`` into the segment ``writer`` writes (a merge)."""
    for segment in segments:
        reader = SegmentReader(writer.storage, writer.schema, segment)
        writer.add_reader(reader)
        reader.close()


def merged_already(writer, segments) -> list:
    """A Whoosh merge policy: every old segment was merged by ``merge_all``; none is kept."""
    return []
