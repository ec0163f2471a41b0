"""A compact posting pool for Whoosh's segment writer: the same postings, in a tenth of the memory.

Whoosh's ``PostingPool`` keeps every posting of a write as a tuple ``(field, term, docnum,
weight, value)`` in one list, sorted when the segment is written: about 220 bytes of Python
objects per posting (the tuple, the term's bytes, an int, a float, the value's bytes), ~120
postings for a commit of git/git, so a write of 5,740 documents took the indexer from 151 to 206
MB, and a records round's documents cost 28 KB each; pymalloc keeps those arenas afterwards.
``CompactPool`` keeps one dict of terms per field; a term holds its postings as int codes
(document number << ``VALUE_BITS`` | the index of its (weight, value) pair, pairs being few:
the frequency and its encoding), one int for a term seen once, an ``array`` of them after. It
yields exactly the sorted sequence ``PostingPool`` does (field, term, docnum order; a term whose
postings did not arrive in document order, and any posting it cannot code, are sorted as
tuples), so the segment written is the same. Over its limit it spills a sorted run to disk as
Whoosh's pool does (same format, same merge).

A merge (``add_reader``: Whoosh's MERGE_SMALL, ``merges``) put every posting of the segments it
merges into the pool too: a backfill's periodic merge of all its segments (68,398 documents at
commit ~35,000 of the 100k history) took the indexer from 172 to 227 MB with this pool, to ~260
with Whoosh's. Those postings are sorted already, segment by segment, and a merged segment's
documents get numbers in one increasing run, so they are not pooled: each merged segment is
read again when the new segment is written, and its postings are merged (``heapq.merge``) with
the pool's own, in the order sorting them all would give.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Iterator

from whoosh.reading import SegmentReader
from whoosh.writing import PostingPool

VALUE_BITS = 20
_MASK = (1 << VALUE_BITS) - 1
# bytes this pool counts against its limit (measured RSS is close: tracemalloc per posting)
_TERM_BYTES = 110  # a term seen once: its bytes object's header, a dict slot, an int
_ARRAY_BYTES = 80  # a term's second posting: the array that replaces the int
_CODE_BYTES = 8  # each later posting
_VALUE_BYTES = 150  # a new (weight, value) pair


class CompactPool(PostingPool):
    """``PostingPool`` with the postings kept as codes (see the module docstring)."""

    runs: list[str]  # Whoosh's: the sorted runs on disk

    def __init__(self, tempstore, segment, limitmb: int = 128, **kwargs) -> None:
        super().__init__(tempstore, segment, limitmb=limitmb, **kwargs)
        self._merged: list[tuple] = []  # (storage, schema, segment, first docnum, docmap)
        self._reset()

    def _reset(self) -> None:
        self._fields: dict[str, dict[bytes, int | array]] = {}
        self._value_of: dict[tuple, int] = {}
        self._values: list[tuple] = []
        self._unordered: set[tuple[str, bytes]] = set()
        self.current: list[tuple] = []  # postings that cannot be coded, as tuples (sorted at the end)
        self.currentsize = 0

    def add(self, item) -> None:
        fieldname, tbytes, docnum, weight, vbytes = item
        key = (weight.__class__, weight, vbytes)
        value = self._value_of.get(key)
        if value is None:
            value = len(self._values)
            if value > _MASK or docnum.__class__ is not int or docnum < 0:
                self.current.append(item)
                self._grow(_VALUE_BYTES)
                return
            self._value_of[key] = value
            self._values.append((weight, vbytes))
            self.currentsize += _VALUE_BYTES
        elif docnum.__class__ is not int or docnum < 0:
            self.current.append(item)
            self._grow(_VALUE_BYTES)
            return
        code = docnum << VALUE_BITS | value
        terms = self._fields.get(fieldname)
        if terms is None:
            terms = self._fields[fieldname] = {}
            self.fieldnames.add(fieldname)
        slot = terms.get(tbytes)
        if slot is None:
            terms[tbytes] = code
            self._grow(_TERM_BYTES + len(tbytes))
            return
        if isinstance(slot, int):
            last = slot
            terms[tbytes] = array("q", (slot, code))
            size = _ARRAY_BYTES
        else:
            last = slot[-1]
            slot.append(code)
            size = _CODE_BYTES
        if docnum <= last >> VALUE_BITS:
            self._unordered.add((fieldname, tbytes))
        self._grow(size)

    def _grow(self, size: int) -> None:
        self.currentsize += size
        if self.currentsize > self.limit:
            self.save()

    def save(self) -> None:
        """Write what is held as one sorted run (Whoosh's run format) and start afresh."""
        if self._fields or self.current:
            path, f = self._new_run()
            self._write_run(f, self._sorted())
            self._add_run(path)
        self._reset()

    def merge_segment(self, storage, schema, segment, startdoc: int, docmap) -> None:
        """Take ``segment``'s postings at write time, renumbered as ``add_reader`` does."""
        self._merged.append((storage, schema, segment, startdoc, docmap))

    def items(self, maxfiles: int = 128):
        merged = [_postings_of(*source) for source in self._merged]
        if not self.runs:
            return heapq.merge(self._sorted(), *merged) if merged else self._sorted()
        if not merged:
            return super().items(maxfiles)  # saves what is held as a last run, then merges
        self.save()
        if maxfiles < len(self.runs):
            self.reduce_to(maxfiles, maxfiles)
        runs: list[str] = list(self.runs)
        self.runs = []
        return heapq.merge(self._merge_runs(runs), *merged)

    def _sorted(self) -> Iterator[tuple]:
        coded = self._coded()
        if not self.current:
            return coded
        return heapq.merge(coded, sorted(self.current))

    def _coded(self) -> Iterator[tuple]:
        values, unordered = self._values, self._unordered
        for fieldname in sorted(self._fields):
            terms = self._fields[fieldname]
            for tbytes in sorted(terms):
                slot = terms[tbytes]
                if isinstance(slot, int):
                    yield (fieldname, tbytes, slot >> VALUE_BITS, *values[slot & _MASK])
                    continue
                postings = ((fieldname, tbytes, code >> VALUE_BITS, *values[code & _MASK])
                            for code in slot)
                if (fieldname, tbytes) in unordered:
                    yield from sorted(postings)
                else:
                    yield from postings


def _postings_of(storage, schema, segment, startdoc: int, docmap) -> Iterator[tuple]:
    """A merged segment's postings, as ``SegmentWriter.add_postings_to_pool`` adds them."""
    reader = SegmentReader(storage, schema, segment)
    try:
        for fieldname, text, docnum, weight, vbytes in reader.iter_postings():
            if fieldname in schema:
                yield (fieldname, text, docmap[docnum] if docmap is not None else
                       startdoc + docnum, weight, vbytes)
    finally:
        reader.close()


def compact_pool(writer):
    """Give a fresh Whoosh ``SegmentWriter`` a ``CompactPool`` (before anything is added), and
    let the segments it merges hand their postings over at write time."""
    pool = writer.pool
    writer.pool = compact = CompactPool(pool.tempstore, pool.segment, limitmb=pool.limit >> 20)
    stock = writer.add_postings_to_pool

    def add_postings_to_pool(reader, startdoc, docmap):
        if type(reader) is SegmentReader:
            compact.merge_segment(writer.storage, writer.schema, reader.segment(), startdoc,
                                  docmap)
        else:
            stock(reader, startdoc, docmap)

    writer.add_postings_to_pool = add_postings_to_pool
    return writer
