"""A fix to a Whoosh hot path that changes nothing Whoosh writes or reads, and a helper.

``W3PerDocReader.doc_field_length`` asks ``has_column`` (a file-system ``stat``) on every call
for a field that has no lengths column (``id``, ``type``, ``paths``, ``author``, ``ts``: only
``text`` is scored): it caches the column reader when there is one, never the answer "there is
none". Writing a segment asks it once per posting of every field, so on psf/requests a full
index made ~200,000 ``stat`` calls (4% of the indexer's CPU, more in the final merge). A
segment's files never change once written, so the answer is cached like the reader is.
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


_install()


def lengths_as_merged(writer) -> None:
    """Make ``writer`` (a ``SegmentWriter``) count the field lengths of the documents added to
    it from now on as a merge counts them. A merge reads each document's length back from its
    segment, where it is stored as one byte (``length_to_byte``: exact up to small lengths,
    then in steps); a segment's total length, which BM25 divides by, sums those. Documents
    added straight into the writer that merges (``IndexWriter`` at commit) would add their exact
    lengths instead, and the total would differ (by 0.2% on psf/requests) from the index that
    writing them to a segment and merging it gives. The stored byte is the same either way."""
    perdoc = writer.perdocwriter
    add_field = perdoc.add_field

    def add_field_as_merged(fieldname, fieldobj, value, length):
        if length:
            length = byte_to_length(length_to_byte(length))
        return add_field(fieldname, fieldobj, value, length)

    perdoc.add_field = add_field_as_merged
