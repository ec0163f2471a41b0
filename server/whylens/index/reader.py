"""IndexReader: a read-only snapshot of one generation (Whoosh searcher + sqlite sidecar).

A reader sees the index as it was when opened. Whoosh-Reloaded 2.7.5's ``Searcher.refresh()``
returns stale documents after updates and deletes, so ``refresh()`` here opens a new searcher
(3 ms with ``supports_mmap=False``), and follows CURRENT to a rebuilt generation.

Text search ranks with ``ranking.DirectScorer`` (the same BM25F top N as Whoosh's own search,
read from the posting blocks, 3-6x less CPU at 100k units); Whoosh's matcher is the fallback
when that path does not apply (``_whoosh_top``), and the reference the tests compare it with.
Not thread-safe (neither is a Whoosh searcher without mmap): one caller at a time.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from whoosh import query as wq
from whoosh.filedb.filestore import FileStorage

from whylens.errors import IndexCorruptError, IndexOutdatedError, WhyLensError
from whylens.index import cochange, commitdocs, lookups, ranking, sidecar, trace_paths, vectors
from whylens.index.candidates import Candidate, Candidates, CandidateSearch, guarded
from whylens.index.analysis import WordGroup, normalise_path, text_terms, word_groups
from whylens.index.codec import record_text, to_timestamp
from whylens.index.schema import SCHEMA_VERSION, TIMESTAMP_MAX
from whylens.index.store import WHOOSH_DIR
from whylens.models import (ALL_TYPES, CommitInfo, HistoryEntry, KnowledgeCounts, Record,
                            SymbolEvent, Unit)

# Per-type boost on BM25F: failure modes first, then fixes, decisions, constraints.
TYPE_BOOST = {"pattern": 1.2, "skill": 1.1, "decision": 1.1, "fact": 1.0}
CANDIDATES = 50  # BM25 top-N re-ranked by type boost × prior weight (at least 5 × k)
STORED_CACHE = 20_000  # stored-field dicts kept per reader (about 200 bytes each)


@dataclass(frozen=True)
class QueryTerm:
    """One query word as the index sees it: how many documents hold it, and its idf."""

    group: WordGroup
    df: int  # documents holding the whole word, or (an identifier) all of its parts at best
    idf: float
    whole_df: int = 0  # documents holding the whole word as typed (``WebSocket``, not web+socket)


class IndexReader(CandidateSearch):
    def __init__(self, store, folder: Path) -> None:
        self.store = store
        self.folder = folder
        self._ix: Any = None  # whoosh Index and Searcher: Whoosh has no type information
        self._searcher: Any = None
        self._conn: sqlite3.Connection | None = None  # the sidecar, while open
        try:
            self._open()
        except WhyLensError:
            self.close()
            raise
        except Exception as exc:  # Whoosh raises many types for damaged files
            self.close()
            raise IndexCorruptError(str(store.path), f"{type(exc).__name__}: {exc}") from exc

    def _open(self) -> None:
        self._conn = sidecar.connect_reader(self.folder)
        self.meta: dict[str, Any] = sidecar.read_meta(self._conn)
        if self.meta.get("schema_version") != SCHEMA_VERSION:
            raise IndexOutdatedError(str(self.store.path), self.meta.get("schema_version"),
                                     SCHEMA_VERSION)
        storage = FileStorage(str(self.folder / WHOOSH_DIR), supports_mmap=False, readonly=True)
        self._ix = storage.open_index()
        self._searcher = self._ix.searcher()
        # per-snapshot caches (a refresh() starts over): the direct scorer, filter doc sets,
        # stored fields by doc number
        self._direct: ranking.DirectScorer | Literal[False] | None = None
        self._filter_cache: dict[str, frozenset[int]] = {}
        self._fields: dict[int, dict] = {}
        self._docnums: dict[str, int | None] = {}
        self._vectors: vectors.VectorIndex | str | None = None  # loaded on first use

    def refresh(self) -> IndexReader:
        """Reopen on what is committed now (a new searcher; a new generation if CURRENT moved)."""
        folder = self.store.current_generation() or self.folder
        self.close()
        self.folder = folder
        self._open()
        return self

    def close(self) -> None:
        for closable in (self._searcher, self._conn):
            if closable is not None:
                try:
                    closable.close()
                except Exception:  # noqa: BLE001 - closing a broken index must not mask errors
                    pass
        self._searcher = self._conn = None
        self._direct, self._filter_cache, self._fields = None, {}, {}
        self._docnums, self._vectors = {}, None

    def __enter__(self) -> IndexReader:
        return self

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("the index reader is closed")
        return self._conn

    def __exit__(self, *exc) -> None:
        self.close()

    # -- text search -------------------------------------------------------------------------

    @guarded
    def search(self, query: str, k: int = 10, types=None, path=None, author=None, since=None,
               until=None) -> list[tuple[Unit | Record, float]]:
        """Top ``k`` units/records for ``query``: BM25F × type boost × prior weight (no gate).
        Commit documents only when ``types`` names ``commit`` (``candidates`` ranks them all)."""
        groups = word_groups(query or "")
        if not groups or k <= 0:
            return []
        filters = self._filters(types or ALL_TYPES, path, author, since, until)
        ranked = []
        for score, docnum in self._top(groups, max(CANDIDATES, 5 * k), filters):
            fields = self._stored(docnum)
            boost = TYPE_BOOST.get(fields.get("type", ""), 1.0)
            ranked.append((score * boost * float(fields.get("weight") or 1.0), fields["id"]))
        ranked.sort(key=lambda pair: (-pair[0], pair[1]))
        items = self.load_items([doc_id for _, doc_id in ranked[: 2 * k]])
        out = [(items[doc_id], score) for score, doc_id in ranked if doc_id in items]
        return out[:k]

    @guarded
    def load_items(self, ids: list[str]) -> dict[str, Unit | Record]:
        """Units, records and commit documents (units of type ``commit``) by id."""
        found: dict[str, Unit | Record] = dict(commitdocs.load(self._db, ids))
        found.update(lookups.load_items(self._db, [i for i in ids if i not in found]))
        return found

    @guarded
    def entry_lines(self, shas: list[str]) -> dict[str, frozenset[str]]:
        """Per commit, its document's lines that come from its changelog entry."""
        return commitdocs.entry_lines(self._db, list(dict.fromkeys(shas)))

    def _top(self, groups: list[WordGroup], limit: int, filters) -> list[tuple[float, int]]:
        """The ``limit`` best (BM25F score, doc number): read from the postings directly
        (``ranking``), or by Whoosh's own search where that path does not apply
        (``direct_call``)."""
        allowed = self._allowed(filters)
        top = self.direct_call(lambda direct: direct.top(groups, limit, allowed))
        return top if top is not None else self._whoosh_top(groups, limit, filters)

    def _whoosh_top(self, groups: list[WordGroup], limit: int, filters) -> list[tuple[float, int]]:
        text_query = wq.Or([self._group_query(g) for g in groups])
        results = self._searcher.search(text_query, limit=limit, filter=filters, scored=True)
        return [(hit.score, hit.docnum) for hit in results]

    def _stored(self, docnum: int) -> dict:
        """A document's stored fields (id, type, weight), kept for the reader's lifetime."""
        fields = self._fields.get(docnum)
        if fields is None:
            if len(self._fields) >= STORED_CACHE:
                self._fields.clear()
            fields = self._fields[docnum] = self._searcher.stored_fields(docnum)
        return fields

    @staticmethod
    def _group_query(group: WordGroup):
        whole = wq.Term("text", group.whole)
        if not group.parts:
            return whole
        return wq.Or([whole, wq.And([wq.Term("text", p) for p in group.parts])])

    def _filters(self, types, path, author, since, until):
        clauses = []
        if types:
            types = [types] if isinstance(types, str) else list(types)
            clauses.append(wq.Or([wq.Term("type", t) for t in types]))
        if path:
            aliases = lookups.path_aliases(self._db, path)
            clauses.append(wq.Or([wq.Term("paths", p) for p in aliases]))
        if author:
            clauses.append(wq.Term("author", " ".join(str(author).lower().split())))
        start, end = to_timestamp(since, "since"), to_timestamp(until, "until")
        if start is not None or end is not None:
            start = None if start is None else min(max(start, 0), TIMESTAMP_MAX)
            end = None if end is None else min(max(end, 0), TIMESTAMP_MAX)
            clauses.append(wq.NumericRange("ts", start, end))
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else wq.And(clauses)

    @guarded
    def query_terms(self, query: str) -> list[QueryTerm]:
        """Each searchable word of ``query`` with its document frequency and BM25 idf."""
        n = max(self._searcher.doc_count(), 1)
        out = []
        for group in word_groups(query or ""):
            whole = df = self._searcher.doc_frequency("text", group.whole)
            if group.parts:
                df = max(df, min(self._searcher.doc_frequency("text", p) for p in group.parts))
            out.append(QueryTerm(group, df, math.log(1 + (n - df + 0.5) / (df + 0.5)), whole))
        return out

    @staticmethod
    def covered(terms: list[QueryTerm], item: Unit | Record) -> list[bool]:
        """Which query terms ``item``'s indexed text holds (whole word, or all of its parts)."""
        if isinstance(item, Unit):
            body = [item.title, item.content, " ".join(item.symbols)]
        else:
            body = [item.title, record_text(item), " ".join(item.anchors)]
        body.append(" ".join(normalise_path(f).rsplit("/", 1)[-1] for f in item.files))
        vocabulary = set(text_terms("\n".join(body)))
        return [
            t.group.whole in vocabulary
            or bool(t.group.parts) and all(p in vocabulary for p in t.group.parts)
            for t in terms
        ]

    def doc_count(self) -> int:
        return self._searcher.doc_count()

    # -- exact lookups -----------------------------------------------------------------------

    @guarded
    def unit(self, unit_id: str) -> Unit | None:
        item = self.load_items([unit_id]).get(unit_id)
        return item if isinstance(item, Unit) else None

    @guarded
    def record(self, record_id: str) -> Record | None:
        item = lookups.load_items(self._db, [record_id]).get(record_id)
        return item if isinstance(item, Record) else None

    @guarded
    def units_for_symbol(self, name: str, path: str | None = None) -> list[Unit]:
        return lookups.units_for_symbol(self._db, name, path)

    @guarded
    def records_for_symbol(self, name: str, path: str | None = None) -> list[Record]:
        return lookups.records_for_symbol(self._db, name, path)

    @guarded
    def superseding_candidates(self, record: Record) -> list[Record]:
        """Later records sharing an anchor with ``record`` that say they supersede something
        (what ``records.outcome`` checks), without loading every record of those symbols."""
        return lookups.superseding_candidates(self._db, record)

    @guarded
    def symbol_history(self, name: str, path: str | None = None,
                       formatting: bool = False) -> list[HistoryEntry]:
        """Commits that changed the symbol substantively, newest first; ``formatting=True``
        adds the reformat / annotation-only / ignore-revs commits (``kind == "formatting"``)."""
        return lookups.symbol_history(self._db, name, path, formatting)

    @guarded
    def line_blame(self, path: str, line: int) -> HistoryEntry | None:
        """The commit that last substantively changed ``line`` (1-based) of ``path`` at the
        indexed revision, skipping formatting-only and ignore-revs commits; None if unknown."""
        return lookups.line_blame(self._db, path, line)

    @guarded
    def file_history(self, path: str) -> list[HistoryEntry]:
        return lookups.file_history(self._db, path)

    @guarded
    def paths_for_trace_file(self, trace_file: str) -> list[str]:
        """The indexed paths a stack trace's file can be (``trace_paths``)."""
        return trace_paths.paths_for_trace_file(self._db, trace_file)

    @guarded
    def knowledge_counts(self, path: str) -> dict[str, KnowledgeCounts]:
        return lookups.knowledge_counts(self._db, path)

    @guarded
    def commit_info(self, sha: str) -> CommitInfo | None:
        return lookups.commit_info(self._db, sha)

    @guarded
    def reverts_of(self, sha: str) -> list[str]:
        return lookups.reverts_of(self._db, sha)

    @guarded
    def commit_shas(self) -> set[str]:
        """Every commit the index holds."""
        return lookups.commit_shas(self._db)

    @guarded
    def reverted_by(self, sha: str) -> list[str]:
        """The commits ``sha`` reverts."""
        return lookups.reverted_by(self._db, sha)

    @guarded
    def reverts_touching(self, path: str) -> list[tuple[str, str, str, int, bool]]:
        """Revert pairs touching ``path`` (``lookups.reverts_touching``)."""
        return lookups.reverts_touching(self._db, path)

    @guarded
    def co_changes(self, path: str, recent: int = 200, max_files: int = 30,
                   symbol: str | None = None, min_together: int = 1,
                   exclude: frozenset[str] = frozenset(),
                   ) -> tuple[int, list[tuple[str, str | None, int, float, int]], int]:
        """Files (or symbols) changed together with ``path`` (``cochange.co_changes``)."""
        return cochange.co_changes(self._db, path, recent, max_files, symbol, min_together, exclude)

    @guarded
    def has_commit(self, sha: str) -> bool:
        return lookups.has_commit(self._db, sha)

    @guarded
    def events_of(self, sha: str) -> list[SymbolEvent]:
        return lookups.events_of(self._db, sha)

    @guarded
    def totals(self) -> tuple[int, int]:
        """(units, records): two counts, for a status line (``stats`` scans whole tables)."""
        return lookups.totals(self._db)

    def stats(self) -> dict:
        size = sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())
        return lookups.stats(self._db, self.meta, size)

    def iter_units(self) -> Iterator[Unit]:
        """Every unit, by date then id (a stable order for export)."""
        return lookups.iter_units(self._db)

    def iter_records(self) -> Iterator[Record]:
        return lookups.iter_records(self._db)


__all__ = ["Candidate", "Candidates", "IndexReader", "QueryTerm", "TYPE_BOOST"]
