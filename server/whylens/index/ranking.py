"""BM25F top-N over the ``text`` field, read straight from the posting blocks.

Same scores and the same top N as Whoosh's ``searcher.search(Or(groups), limit=N)`` with the
default BM25F, at a fraction of the cost. Whoosh scores one posting at a time through a tree of
union/intersection matchers and reads each document's field length from the file (about 2 µs
per posting on a 100k-unit index: 45-100 ms for a query of common words). Here each posting block
is decoded in one read, the length bytes of a segment are read once per reader, and the length
part of the formula comes from a 256-entry table: a few hundred ns per posting. The score tables
of long posting lists (common words) are kept per reader, within a fixed budget, so queries that
share common words (typed word by word, refined) do not decode them again.

The query shape is the one ``IndexReader.search`` builds: an OR over word groups, where a group is
its whole term, OR the AND of its parts. A document's score is the sum of the scores of the terms
that match, as Whoosh adds child scores. Each term's score is Whoosh's ``bm25`` to the bit; only
the order of the additions may differ (Whoosh sums along a tree shaped by posting-list sizes), so
a total can differ in its last bit. Ties at the N-th place go to the lower document number, as in
Whoosh's top-N collector. Anything else (another weighting model, another postings codec) is
reported unsupported and the caller falls back to Whoosh's own search.
"""

from __future__ import annotations

import heapq
import pickle
import struct
import zlib
from array import array
from collections import OrderedDict
from io import BytesIO
from itertools import accumulate
from operator import itemgetter

from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3LeafMatcher, _lenfield
from whoosh.matching.wrappers import FilterMatcher
from whoosh.scoring import BM25F
from whoosh.system import _INT_SIZE
from whoosh.util.numeric import byte_to_length

FIELD = "text"
# Score tables of posting lists this long are kept per reader, up to CACHE_POSTINGS postings in
# all (about 100 bytes each: 30 MB at most).
CACHE_MIN_POSTINGS = 1_000
CACHE_POSTINGS = 300_000


class Unsupported(Exception):
    """This index or weighting is not one the direct path reproduces exactly."""


# The Whoosh release whose posting format this module was written against and is tested with
# (the pinned whoosh-reloaded). Another one: the caller uses Whoosh's own search.
VERIFIED_WHOOSH = (2, 7, 5)


def whoosh_supported() -> bool:
    """True when the installed Whoosh is the release the direct path reads (checked once)."""
    import whoosh

    return tuple(whoosh.__version__[:3]) == VERIFIED_WHOOSH


def clauses(groups) -> tuple[list[str], list[tuple[str, ...]]]:
    """The clauses of the query: single terms, and ANDs of parts. Nothing is de-duplicated:
    ``Searcher.search`` does not normalise the query, so ``foo-bar foo_bar`` scores the AND of
    ``foo`` and ``bar`` twice, and so does this."""
    terms = [group.whole for group in groups]  # word_groups already drops repeated words
    ands = [group.parts for group in groups if group.parts]
    return terms, ands


class DirectScorer:
    """Per-reader state: length bytes of each segment, score tables per term."""

    def __init__(self, searcher) -> None:
        if not _SUPPORTED:
            raise Unsupported(f"Whoosh {'.'.join(map(str, _installed()))}")
        weighting = searcher.weighting
        if type(weighting) is not BM25F or FIELD in weighting._field_B:
            raise Unsupported("weighting")
        self.searcher = searcher
        self.B, self.K1 = weighting.B, weighting.K1
        self.leaves = [(sub.reader(), offset) for sub, offset in searcher.leaf_searchers()]
        self._length_bytes: dict[int, bytes] = {}
        self._norms: list[float | None] | None = None
        # {(segment, term): {doc: score}} of long posting lists, least recently used first
        self._cache: OrderedDict[tuple[int, str], dict[int, float]] = OrderedDict()
        self._cached_postings = 0
        self.cache_postings = CACHE_POSTINGS  # 0 turns the cache off

    # -- per-segment data --------------------------------------------------------------------

    def _lengths(self, index: int, reader) -> bytes:
        cached = self._length_bytes.get(index)
        if cached is None:
            perdoc = reader._perdoc
            column = perdoc._cached_reader(_lenfield(FIELD), LENGTHS_COLUMN)
            if column is None:
                raise Unsupported("no length column")
            if column._fixedlen != 1:
                raise Unsupported("length column width")
            cached = column._dbfile.get(column._basepos, column._count)
            # documents past the column's end read as byte 0 (Whoosh: no length)
            cached += bytes(max(0, reader.doc_count_all() - len(cached)))
            self._length_bytes[index] = cached
        return cached

    def _norm_table(self) -> list[float | None]:
        """``K1 * ((1 - B) + B * fl / avgfl)`` for each length byte, as Whoosh's ``bm25``
        computes it (same operations in the same order, so the same floats)."""
        if self._norms is None:
            avgfl = self.searcher.avg_field_length(FIELD) or 1
            B, K1 = self.B, self.K1
            table: list[float | None] = [None]
            for byte in range(1, 256):
                fl = byte_to_length(byte)
                table.append(K1 * ((1 - B) + B * fl / avgfl))
            self._norms = table
        return self._norms

    def _postings(self, reader, term: str):
        """(doc ids, weights) block by block for ``term`` in one segment, minus deleted docs."""
        if (FIELD, term) not in reader:
            return
        matcher = reader.postings(FIELD, term)
        deleted = None
        if isinstance(matcher, FilterMatcher):
            deleted, matcher = matcher._ids, matcher.child
        # a term in one document is inlined in the term info (a ListMatcher): read it generically
        blocks = _w3_blocks(matcher) if isinstance(matcher, W3LeafMatcher) else _any(matcher)
        for ids, weights in blocks:
            if deleted:
                keep = [i for i, d in enumerate(ids) if d not in deleted]
                ids = [ids[i] for i in keep]
                weights = [weights[i] for i in keep]
            yield ids, weights

    def _term_scores(self, reader, lengths: bytes, term: str) -> dict[int, float]:
        """{segment doc number: BM25F score of ``term``}, Whoosh's ``bm25`` to the bit."""
        idf = self.searcher.idf(FIELD, term)
        factor = self.K1 + 1
        norms = self._norm_table()
        scores: dict[int, float] = {}
        for ids, weights in self._postings(reader, term):
            # idf * ((tf * (K1 + 1)) / (tf + K1 * ((1 - B) + B * fl / avgfl)))
            scores.update(zip(ids, [
                idf * ((tf * factor) / (tf + norms[lengths[doc]])) for doc, tf in zip(ids, weights)
            ]))
        return scores

    def _cached_scores(self, index: int, reader, lengths: bytes, term: str) -> dict[int, float]:
        """``_term_scores``, kept for long posting lists (the common words that make a query
        slow and that successive queries, e.g. typed word by word, share). The scores depend
        only on this snapshot, so a cached table is exact; callers must not modify it."""
        key = (index, term)
        scores = self._cache.get(key)
        if scores is not None:
            self._cache.move_to_end(key)
            return scores
        scores = self._term_scores(reader, lengths, term)
        if CACHE_MIN_POSTINGS <= len(scores) <= self.cache_postings:
            self._cache[key] = scores
            self._cached_postings += len(scores)
            while self._cached_postings > self.cache_postings:
                _, dropped = self._cache.popitem(last=False)
                self._cached_postings -= len(dropped)
        return scores

    # -- the query ---------------------------------------------------------------------------

    def top(self, groups, limit: int, allowed=None) -> list[tuple[float, int]]:
        """The ``limit`` best (score, global doc number), best first, ties by doc number.
        ``allowed``: a container of global doc numbers (the filter), or None."""
        return best(self.totals(groups, allowed), limit)

    def totals(self, groups, allowed=None) -> dict[int, float]:
        """{global doc number: BM25F score} of every document that matches the query."""
        terms, ands = clauses(groups)
        totals: dict[int, float] = {}
        for index, (reader, offset) in enumerate(self.leaves):
            lengths = self._lengths(index, reader)
            needed = dict.fromkeys(terms + [p for parts in ands for p in parts])
            per_term = {t: self._cached_scores(index, reader, lengths, t) for t in needed}
            # the longest list is copied whole (in C); the others are added to it
            tables = sorted((per_term[t] for t in terms), key=len, reverse=True)
            segment: dict[int, float] = dict(tables[0]) if tables else {}
            get = segment.get
            for table in tables[1:]:
                for doc, score in table.items():
                    segment[doc] = get(doc, 0.0) + score
            for parts in ands:
                together = [per_term[p] for p in parts]
                smallest: dict[int, float] = min(together, key=len)
                common = set(smallest)
                for table in together:
                    common.intersection_update(table)
                if len(together) == 2:  # the usual case (snake_case, CamelCase), unrolled
                    first, second = together
                    for doc in common:
                        segment[doc] = get(doc, 0.0) + (first[doc] + second[doc])
                else:
                    for doc in common:
                        segment[doc] = get(doc, 0.0) + sum(t[doc] for t in together)
            for doc, score in segment.items():
                totals[doc + offset] = score
        if allowed is not None:
            totals = {doc: s for doc, s in totals.items() if doc in allowed}
        return totals


def _w3_blocks(matcher: W3LeafMatcher):
    """Decode a W3 posting list block by block, as ``W3LeafMatcher._goto`` / ``_read_ids`` /
    ``_read_weights`` do, but with one read per block (``_goto`` unpickles the block header from
    the file a few bytes at a time) and doc-id deltas summed by ``accumulate`` (in C)."""
    try:
        yield from _decode_blocks(matcher._postfile, matcher._baseoffset, matcher._byteids)
    except (zlib.error, pickle.UnpicklingError, struct.error, TypeError, IndexError) as exc:
        # IndexReader turns ValueError into IndexCorruptError ("delete and rebuild")
        raise ValueError(f"damaged posting block: {type(exc).__name__}: {exc}") from exc


def _decode_blocks(postfile, position: int, byteids: bool):
    while True:
        length = postfile.get_int(position)
        last = length < 0
        length = abs(length)
        block = postfile.get(position + _INT_SIZE, length)
        stream = BytesIO(block)
        count, _maxid, _maxweight, compression, _minlen, _maxlen = pickle.load(stream)
        data = block[stream.tell():]
        if compression:
            data = zlib.decompress(data)
        id_data, weight_data = pickle.loads(data)[:2]
        ids = id_data if byteids else tuple(accumulate(id_data))
        if weight_data is None:
            weights = [1.0] * count
        elif isinstance(weight_data, float):
            weights = [array("f", [weight_data])[0]] * count
        else:
            weights = weight_data
        if len(ids) != count or len(weights) != count:
            raise Unsupported("posting block layout")
        yield ids, weights
        if last:
            return
        position += _INT_SIZE + length


def _any(matcher):
    """Any other matcher, one posting at a time (a single block)."""
    ids, weights = [], []
    while matcher.is_active():
        ids.append(matcher.id())
        weights.append(matcher.weight())
        matcher.next()
    yield ids, weights


def best(totals: dict[int, float], limit: int) -> list[tuple[float, int]]:
    if not totals or limit <= 0:
        return []
    top = heapq.nlargest(limit, totals.items(), key=itemgetter(1))
    if len(top) == limit:
        cutoff = top[-1][1]
        above = [(d, s) for d, s in top if s > cutoff]
        tied = sorted(d for d, s in totals.items() if s == cutoff)
        top = above + [(d, cutoff) for d in tied[: limit - len(above)]]
    top.sort(key=lambda pair: (-pair[1], pair[0]))
    return [(score, doc) for doc, score in top]


def _installed() -> tuple:
    import whoosh

    return tuple(whoosh.__version__[:3])


_SUPPORTED = whoosh_supported()

__all__ = ["DirectScorer", "Unsupported", "best", "clauses", "whoosh_supported", "VERIFIED_WHOOSH"]
