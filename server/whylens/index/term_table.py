"""A compact term table for Whoosh's segment writer: the same file, an eighth of the memory.

Writing a segment, Whoosh's ``W3FieldWriter`` adds each term to an ``OrderedHashWriter``, which
remembers every term as a tuple ``(hash, file position)`` in one of 256 Python lists until the
segment is closed, when it writes the 256 hash tables: about 124 bytes of objects a term (the
tuple 56, the two ints 60, the list's slot 8). A backfill's merge of twenty segments (68,398
documents at commit ~35,000 of the 100k history) held its new segment's terms that way, the
part of the merge's memory step the compact posting pool (``postings``) left. ``CompactBucket``
keeps a bucket's pairs in one ``array`` of unsigned 64-bit ints (16 bytes a term) and gives
them back as the same tuples in the same order, so Whoosh's own ``_write_hashes`` writes the
same bytes.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator

from whoosh.filedb.filetables import HashWriter


class CompactBucket:
    """A list of ``(hash, position)`` pairs as far as ``HashWriter`` uses one: ``append``,
    ``len`` and iteration in insertion order."""

    __slots__ = ("_pairs",)

    def __init__(self) -> None:
        self._pairs = array("Q")

    def append(self, pair: tuple[int, int]) -> None:
        self._pairs.extend(pair)

    def __len__(self) -> int:
        return len(self._pairs) >> 1

    def __iter__(self) -> Iterator[tuple[int, int]]:
        pairs = iter(self._pairs)
        return zip(pairs, pairs)


def compact_buckets(table: HashWriter) -> None:
    """Give an empty ``HashWriter`` compact buckets (a table with pairs already is left as is)."""
    if any(table.buckets):
        return
    table.buckets = [CompactBucket() for _ in range(256)]


def compact_terms(writer):
    """Give a fresh Whoosh ``SegmentWriter``'s term table compact buckets (its flushes and the
    merges it does write the same segment files); returns the writer."""
    tindex = getattr(writer.fieldwriter, "_tindex", None)
    if isinstance(tindex, HashWriter):
        compact_buckets(tindex)
    return writer
