"""What search ranks: candidates by BM25F and by meaning, with both scores (``IndexReader``'s
``candidates``), and the context lookups that go with them.

A mixin of ``IndexReader`` (it uses the reader's searcher, sidecar and caches), kept apart so
that the reader stays about opening, exact lookups and the legacy ``search``. ``guarded`` turns
storage failures into ``IndexCorruptError`` for every reader method.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
from dataclasses import dataclass, replace
from collections.abc import Callable
from typing import Any, TypeVar

from whoosh import query as wq

from whylens.errors import IndexCorruptError, WhyLensError
from whylens.index import commitdocs, lookups, ranking, vectors
from whylens.index.analysis import clean_text, word_groups

STORED_CACHE = 20_000  # doc numbers kept per reader (ids of semantic candidates)

log = logging.getLogger(__name__)
T = TypeVar("T")
_FALLBACK_LOGGED: set[str] = set()


def fallback_once(exc: BaseException) -> None:
    """Say once per process and kind of failure that search uses Whoosh's own ranking."""
    kind = type(exc).__name__
    if kind not in _FALLBACK_LOGGED:
        _FALLBACK_LOGGED.add(kind)
        log.warning("search ranks with Whoosh's own search (the direct BM25 path failed: %s: %s)",
                    kind, exc)


@dataclass(frozen=True)
class Candidate:
    """One document that may answer a query, with both of its relevance scores."""

    id: str
    type: str  # fact skill pattern decision commit
    weight: float  # the unit's prior (1.0 for records and commit documents)
    lexical: float  # BM25F over the text field (0 when it shares no query word)
    cosine: float  # semantic similarity to the query (0 without vectors)
    ts: int  # commit time, unix seconds
    commit: str  # the commit it stands for (a record: its first fixing commit)
    docnum: int  # in this snapshot only


@dataclass(frozen=True)
class Candidates:
    """What ``IndexReader.candidates`` found, and how the query sits in the whole index by
    meaning (all 0 without vectors): its similarity to the index's centroid (is it about
    this project at all?), and the mean and spread of its similarity to every document."""

    items: list[Candidate]
    domain: float = 0.0
    cosine_mean: float = 0.0
    cosine_std: float = 0.0


def guarded(method):
    """Turn storage failures (truncated segments, a damaged sqlite file) into IndexCorruptError."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except WhyLensError:
            raise
        except (sqlite3.DatabaseError, OSError, EOFError, ValueError, KeyError) as exc:
            raise IndexCorruptError(str(self.store.path), f"{type(exc).__name__}: {exc}") from exc

    return wrapper


class CandidateSearch:
    """``candidates`` and its lookups; mixed into ``IndexReader``."""

    # provided by IndexReader
    store: Any
    meta: dict[str, Any]
    _searcher: Any
    _direct: Any
    _filter_cache: dict[str, frozenset[int]]
    _docnums: dict[str, int | None]
    _vectors: vectors.VectorIndex | str | None

    @property
    def _db(self) -> sqlite3.Connection:
        raise NotImplementedError

    def _filters(self, types, path, author, since, until) -> Any:
        raise NotImplementedError

    def _stored(self, docnum: int) -> dict:
        raise NotImplementedError

    def _whoosh_top(self, groups, limit: int, filters) -> list[tuple[float, int]]:
        raise NotImplementedError

    @guarded
    def candidates(self, query: str, meaning: str | None = None, lexical_n: int = 100,
                   semantic_n: int = 100, types=None, path=None, author=None, since=None,
                   until=None, include: tuple[str, ...] = ()) -> Candidates:
        """The documents worth ranking for ``query``: the ``lexical_n`` best by BM25F, and the
        ``semantic_n`` most similar to ``meaning`` (the query as embedded, default ``query``)
        when the index has vectors, and the documents ``include`` names (the caller's own
        candidates, e.g. anchored where an error happened); each with both scores. Filters
        apply to all."""
        groups = word_groups(query or "")
        filters = self._filters(types, path, author, since, until)
        allowed = self._allowed(filters)
        totals: dict[int, float] = {}
        if groups:
            totals = self._totals(groups, filters, allowed, lexical_n)
        picked = dict.fromkeys(doc for _, doc in ranking.best(totals, lexical_n))
        index = self.vector_index()
        cosines: dict[str, float] = {}
        query_vector = None
        stats = (0.0, 0.0, 0.0)
        if index is not None and semantic_n > 0:
            query_vector = index.embed_query(meaning if meaning is not None else query)
            if not query_vector.any():
                query_vector = None
        if query_vector is not None and index is not None:
            scores = index.scores(query_vector)
            if len(scores):  # (an index without documents has no spread to measure)
                stats = (index.domain(query_vector), float(scores.mean()), float(scores.std()))
            pool = semantic_n if allowed is None else min(len(scores), semantic_n * 20)
            taken = 0
            for row in semantic_top(scores, pool):
                doc_id = str(index.ids[row])
                docnum = self._docnum(doc_id)
                if docnum is None or (allowed is not None and docnum not in allowed):
                    continue
                cosines[doc_id] = float(scores[row])
                picked.setdefault(docnum)
                taken += 1
                if taken >= semantic_n:
                    break
        for doc_id in include:
            docnum = self._docnum(doc_id)
            if docnum is not None and (allowed is None or docnum in allowed):
                picked.setdefault(docnum)
        out = []
        for docnum in picked:
            fields = self._stored(docnum)
            doc_id = fields["id"]
            out.append(Candidate(doc_id, fields.get("type", ""), float(fields.get("weight") or 1.0),
                                 totals.get(docnum, 0.0), cosines.get(doc_id, 0.0),
                                 int(fields.get("ts") or 0), fields.get("commit") or doc_id, docnum))
        if query_vector is not None and index is not None:
            filled = index.cosine_of(query_vector, [c.id for c in out if c.id not in cosines])
            out = [c if c.id in cosines else replace(c, cosine=filled.get(c.id, 0.0)) for c in out]
        return Candidates(out, *stats)

    @guarded
    def fix_commits(self, shas) -> set[str]:
        """Those of ``shas`` whose subject says they fixed something (fix, bug, regression,
        crash, revert)."""
        return lookups.fix_commits(self._db, list(dict.fromkeys(shas)))

    @guarded
    def recent_ids(self, paths, limit: int = 50) -> list[str]:
        """The newest commit documents touching ``paths`` (renames followed): the context a
        caller editing those files brings, ranked with the rest by ``candidates(include=)``."""
        aliases = list(dict.fromkeys(a for p in paths for a in lookups.path_aliases(self._db, p)))
        return commitdocs.recent_ids(self._db, aliases, limit)

    @guarded
    def anchored(self, candidates: list[Candidate], paths=(), symbols=()
                 ) -> dict[str, tuple[bool, bool]]:
        """{candidate id: (touches one of ``paths``, anchored to one of ``symbols``)}: files by
        the ``paths`` field (renames followed), symbols by any dotted suffix."""
        near_files: frozenset[int] | set[int] = set()
        if paths:
            aliases = [a for p in paths for a in lookups.path_aliases(self._db, p)]
            near_files = self._allowed(wq.Or([wq.Term("paths", a) for a in aliases])) or set()
        ids = {c.id for c in candidates}
        named: set[str] = set()
        if symbols:
            named = lookups.ids_for_symbols(self._db, [clean_text(s) for s in symbols])
            named |= commitdocs.ids_for_symbols(self._db, [clean_text(s) for s in symbols])
        return {c.id: (c.docnum in near_files, c.id in named) for c in candidates if c.id in ids}

    def _allowed(self, filters) -> frozenset[int] | None:
        if filters is None:
            return None
        allowed = self._filter_cache.get(repr(filters))
        if allowed is None:
            if len(self._filter_cache) >= 32:
                self._filter_cache.clear()
            allowed = frozenset(self._searcher.docs_for_query(filters))
            self._filter_cache[repr(filters)] = allowed
        return allowed

    def _totals(self, groups, filters, allowed, limit: int) -> dict[int, float]:
        """{doc number: BM25F} of the matching documents (only the best ``limit`` when the
        direct path does not apply and Whoosh's matcher ranks)."""
        totals = self.direct_call(lambda direct: direct.totals(groups, allowed))
        if totals is not None:
            return totals
        return {doc: score for score, doc in self._whoosh_top(groups, limit, filters)}

    def direct_call(self, use: Callable[[ranking.DirectScorer], T]) -> T | None:
        """``use(direct scorer)``, or None when Whoosh's own matcher must rank instead. The
        direct path reads Whoosh's private posting format: any exception from it (another
        Whoosh, a format it does not know) turns it off for this snapshot, said once."""
        direct = self.direct_scorer()
        if direct is None:
            return None
        try:
            return use(direct)
        except Exception as exc:  # noqa: BLE001 - any failure of private-format reading
            fallback_once(exc)
            self._direct = False
            return None

    def direct_scorer(self) -> ranking.DirectScorer | None:
        """The reader's direct BM25F scorer (made on first use), or None when Whoosh's own
        matcher must rank (another weighting or postings codec, said once) or there is nothing
        to rank (an empty index: a first flush before any document; not a failure)."""
        if self._direct is None:
            if self._searcher.doc_count() == 0:
                return None
            try:
                self._direct = ranking.DirectScorer(self._searcher)
            except ranking.Unsupported as exc:
                fallback_once(exc)
                self._direct = False
        return self._direct or None

    def _docnum(self, doc_id: str) -> int | None:
        if doc_id not in self._docnums:
            if len(self._docnums) >= STORED_CACHE:
                self._docnums.clear()
            self._docnums[doc_id] = self._searcher.document_number(id=doc_id)
        return self._docnums[doc_id]

    def vector_index(self) -> vectors.VectorIndex | None:
        """The snapshot's semantic vectors, loaded on first use; None when search must stay
        lexical (``semantic_problem`` says why)."""
        if self._vectors is None:
            self._vectors = vectors.VectorIndex.load(self._db, self.meta)
        return self._vectors if isinstance(self._vectors, vectors.VectorIndex) else None

    @property
    def semantic_problem(self) -> str | None:
        """Why search is lexical only (None when the vectors are in use or not loaded yet)."""
        return self._vectors if isinstance(self._vectors, str) else None



def semantic_top(scores, n: int):
    """Row numbers of the ``n`` highest scores, best first."""
    from whylens.semantic import top_k

    return top_k(scores, n)
