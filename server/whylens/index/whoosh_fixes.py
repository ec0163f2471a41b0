"""Two changes to Whoosh's writing: a hot-path cache that changes nothing written or read, and
field-length totals that do not depend on when segments were merged.

``W3PerDocReader.doc_field_length`` asks ``has_column`` (a file-system ``stat``) on every call
for a field that has no lengths column (``id``, ``type``, ``paths``, ``author``, ``ts``: only
``text`` is scored): it caches the column reader when there is one, never the answer "there is
none". Writing a segment asks it once per posting of every field, so on psf/requests a full
index made ~200,000 ``stat`` calls (4% of the indexer's CPU, more in the final merge). A
segment's files never change once written, so the answer is cached like the reader is.

Whoosh stores a document's field length as one byte (``length_to_byte``: exact up to 10, then
in steps) and a segment's total length, which BM25 divides by, as a sum. A document added by
``add_document`` added its exact length to that sum; one copied by a merge (``add_reader``)
adds the length read back from its byte. So the total, and every BM25 score, depended on
whether a document had passed through a merge, that is on flush timing: a rebuild whose final
write merged nothing kept exact totals, one that merged rounded them (0.2% apart on
psf/requests), and a cheaper flush cadence changed the index. ``W3PerDocWriter.add_field``
now adds the length as its byte reads back, every time: the same byte is stored, and a
segment's total is the same however its documents got there (rounding is idempotent).
"""

from __future__ import annotations

from whoosh.codec import whoosh3
from whoosh.util.numeric import byte_to_length, length_to_byte

_MISSING = object()


def _install() -> None:
    cls = whoosh3.W3PerDocReader
    if getattr(cls, "_whylens_cached", False):
        return
    original = cls._cached_reader

    def _cached_reader(self, fieldname, column):
        found = self._readers.get(fieldname, _MISSING)
        if found is not _MISSING:
            return found
        reader = original(self, fieldname, column)
        if reader is None:
            self._readers[fieldname] = None  # no such column in this (immutable) segment
        return reader

    cls._cached_reader = _cached_reader
    cls._whylens_cached = True

    writer_cls = whoosh3.W3PerDocWriter
    add_field = writer_cls.add_field

    def add_field_as_stored(self, fieldname, fieldobj, value, length):
        if length:
            length = byte_to_length(length_to_byte(length))  # what a merge reads back
        return add_field(self, fieldname, fieldobj, value, length)

    writer_cls.add_field = add_field_as_stored


_install()
