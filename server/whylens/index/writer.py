"""IndexWriter: batched, idempotent, atomic writes into one generation of an index.

Sidecar rows are written at once inside an open sqlite transaction; Whoosh documents are buffered
and written by one Whoosh writer per flush. ``flush()`` commits Whoosh first and sqlite second:
sqlite's ``commits`` table is what says "indexed", so whatever it lists is searchable, and a kill
between the two commits only leaves Whoosh documents that the next run re-adds by the same id.
"""

from __future__ import annotations

import errno
import logging
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path

from whoosh.filedb.filestore import FileStorage

from whylens.errors import IndexWriteError
from whylens.index import commitdocs, sidecar, vectors, whoosh_fixes  # noqa: F401 (installs)
from whylens.index import merges
from whylens.index.postings import compact_pool
from whylens.index.merges import (merge_all, merge_small_bounded, merge_small_ones,
                                  merged_already)
from whylens.index.codec import load_record
from whylens.index.documents import MEANING, record_document, unit_document
from whylens.index.events import Names, write_events
from whylens.index.schema import SCHEMA_VERSION, build_schema
from whylens.index.term_table import compact_terms
from whylens.index.store import PIPELINE_VERSION, WHOOSH_DIR, IndexStore, release_lock
from whylens.models import Commit, Record, SymbolEvent, Unit

log = logging.getLogger(__name__)

AUTO_FLUSH_DOCS = 8_000  # bound the memory of buffered documents on a big rebuild
MERGE_AT_SEGMENTS = 8  # small incremental commits skip merging until this many segments exist
# At commit, merge into one segment when the index is this small (a query costs per segment:
# 8 segments made an OR query 5x slower on requests' 2k documents); bigger ones merge small ones.
OPTIMIZE_MAX_DOCS = 30_000
SMALL_REST_DOCS = 2_000  # an update leaving fewer documents beside the biggest segment merges small ones


POOL_MB = 128  # Whoosh's posting pool (its own estimate; about twice that in RSS), then runs on disk
# A rebuild's last batch goes into the writer that merges every segment: its pool holds both.
# The anchor worker has exited by then, so the tree has room (redis: the indexer alone peaks at
# about 330 MB with 128 here, 280 MB with 64, while the walk's peak is the tree's 435 MB); with
# 64 the merge spilled sorted runs to disk and read them back, 6% of the indexer's CPU.
MERGE_POOL_MB = 128

class IndexWriter:
    """Write into one generation; see the module docstring. Use as a context manager."""

    def __init__(self, store: IndexStore, folder: Path, *, fresh: bool, lock_fd: int) -> None:
        self.store = store
        self.folder = folder
        self.fresh = fresh  # a new generation: not visible until published
        self.published = not fresh
        self._lock_fd: int | None = lock_fd
        self._pending: dict[str, dict] = {}
        self._deletes: set[str] = set()
        self._written: set[str] = set()  # ids already in this fresh generation's Whoosh index
        self.counters = {"flushes": 0, "documents": 0, "deleted": 0}
        self._walk_done = False  # a backfill's flushes merge once it is (``suspend``)
        whoosh_dir = folder / WHOOSH_DIR
        whoosh_dir.mkdir(parents=True, exist_ok=True)
        storage = FileStorage(str(whoosh_dir), supports_mmap=False)
        self._ix = storage.create_index(build_schema()) if fresh else storage.open_index()
        self._conn = sidecar.connect_writer(folder)
        self._names = Names(self._conn)
        self._conn.executescript(commitdocs.DDL + vectors.DDL)
        self._conn.execute("BEGIN")
        # Vectors are written with their documents; without the encoder (data missing or
        # corrupt) the index says it has none, and search stays lexical.
        self._encoder, problem = vectors.encoder()
        if problem:
            log.warning("%s", problem)
        if fresh:
            sidecar.write_meta(self._conn, {"created": int(time.time())})
        if fresh or self._encoder is None:
            sidecar.write_meta(self._conn, {
                "semantic_encoder": self._encoder.name if self._encoder is not None else None})
        self._closed = False

    # -- adding ------------------------------------------------------------------------------

    def add_commits(self, commits: Iterable[Commit]) -> None:
        """Commits, and a search document for each one the filters kept (with the symbols of
        the events already added for it)."""
        commits = list(commits)
        sidecar.write_commits(self._conn, self._names, commits)
        self._queue(unit_document(doc) for doc in commitdocs.write(self._conn, commits))

    def add_units(self, units: Iterable[Unit]) -> None:
        units = list(units)
        sidecar.write_units(self._conn, self._names, units)
        self._queue(unit_document(u) for u in units)

    def add_records(self, records: Iterable[Record]) -> None:
        records = list(records)
        sidecar.write_records(self._conn, self._names, records)
        self._queue(record_document(r) for r in records)

    def add_events(self, events: Iterable[SymbolEvent]) -> list[SymbolEvent]:
        """Store ``events``; returns them as stored (``sidecar.stored_events``): build records
        from these, so a run and a resumed run that reads them back agree."""
        stored = sidecar.stored_events(events)
        write_events(self._conn, self._names, stored)
        return stored

    def add_blame(self, runs: Iterable) -> None:
        """``symbols.blame.BlameRun`` rows of the indexed revision."""
        sidecar.write_blame(self._conn, self._names, runs)

    def replace_blame(self, paths: Iterable[str], runs: Iterable) -> None:
        """Drop the blame of ``paths``, then add ``runs`` (an incremental run's new blame)."""
        sidecar.delete_blame(self._conn, paths)
        sidecar.write_blame(self._conn, self._names, runs)

    def blame_of(self, path: str) -> list[tuple[int, int, str]]:
        """The blame runs stored for ``path`` (start, end, sha), as this writer sees them."""
        return sidecar.read_blame(self._conn, path)

    def stored_record(self, record_id: str) -> Record | None:
        """A record as this writer sees it (its own writes included)."""
        row = self._conn.execute("SELECT packed FROM records WHERE id = ?", (record_id,)).fetchone()
        return load_record(row[0]) if row else None

    def last_writers(self, path: str, until: int, limit: int) -> list[str]:
        """The newest stored commits that touched ``path`` at or before ``until`` (unix time),
        this run's own included."""
        return sidecar.last_writers(self._conn, path, until, limit)

    def files_of(self, sha: str) -> list[str]:
        """The files a stored commit touched."""
        return sidecar.files_of(self._conn, sha)

    def add_reverts(self, pairs: Iterable[tuple[str, str]]) -> None:
        """``pairs`` are (reverting sha, reverted sha)."""
        sidecar.write_reverts(self._conn, pairs)

    def remove_commits(self, shas: Iterable[str]) -> None:
        """Forget commits that left the history, with their units, records and events."""
        shas = list(shas)
        unit_ids, record_ids = sidecar.ids_of_commits(self._conn, shas)
        unit_ids += commitdocs.ids_of_commits(self._conn, shas)
        sidecar.delete_commits(self._conn, shas)
        commitdocs.delete(self._conn, shas)
        for doc_id in unit_ids + record_ids:
            self._pending.pop(doc_id, None)
            self._deletes.add(doc_id)

    def remove_records(self, record_ids: Iterable[str]) -> None:
        """Forget records by id, from the sidecar and from search."""
        record_ids = list(record_ids)
        sidecar.delete_records(self._conn, record_ids)
        for doc_id in record_ids:
            self._pending.pop(doc_id, None)
            self._deletes.add(doc_id)

    def set_meta(self, **values) -> None:
        sidecar.write_meta(self._conn, values)

    def _queue(self, documents: Iterable[dict]) -> None:
        for doc in documents:
            self._pending[doc["id"]] = doc
        if len(self._pending) >= AUTO_FLUSH_DOCS:
            self.flush()

    # -- making it visible -------------------------------------------------------------------

    def flush(self) -> None:
        """Commit what is written so far (Whoosh, then sqlite); readers opened after see it."""
        self._check_open()
        self._write_whoosh()
        first_index = not self.published and self.store.current_generation() is None
        if first_index:
            # no index yet: publish this one now so it is readable early; it counts as the
            # current version, and the pipeline resumes it by skipping commits already indexed
            sidecar.write_meta(self._conn, {"schema_version": SCHEMA_VERSION,
                                            "pipeline_version": PIPELINE_VERSION})
        self._conn.execute("COMMIT")
        if first_index:
            self._publish()
        self._conn.execute("BEGIN")
        self.counters["flushes"] += 1

    def suspend(self) -> dict:
        """Flush and release the lock, leaving the generation for the next segment of a
        segmented backfill (``IndexStore.writer(continued=...)``); returns what that writer
        needs to go on as this one would (picklable); the walk is done: it may merge."""
        self._walk_done = True
        self.flush()
        state = {"folder": self.folder.name, "fresh": self.fresh, "written": self._written,
                 "counters": dict(self.counters)}
        self._close()
        return state

    def go_on(self, state: dict) -> None:
        """Continue a ``suspend()``ed writer (of the generation this one opened)."""
        self.fresh, self.published = state["fresh"], True
        self._written, self.counters = state["written"], state["counters"]

    def commit(self) -> None:
        """Flush, stamp the versions, publish a rebuilt generation, release the lock."""
        self._check_open()
        sidecar.write_meta(self._conn, {
            "schema_version": SCHEMA_VERSION,
            "pipeline_version": PIPELINE_VERSION,
            "updated": int(time.time()),
        })
        self._write_whoosh(final=True)
        self._conn.execute("COMMIT")
        if self.fresh:
            self._compact()
        if not self.published:
            self._publish()
        self.store._remove_generations(keep=self.folder)
        self._close()

    def abort(self) -> None:
        """Drop what is not flushed; an unpublished generation is deleted."""
        if self._closed:
            return
        try:
            self._conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # no transaction left (a failed COMMIT ends it), or the disk refuses even this
        finally:
            self._pending.clear()
            self._close()
            if not self.published:
                self.store._remove_generations(keep=self.store.current_generation())

    def _compact(self) -> None:
        """Rewrite a rebuilt sidecar packed (VACUUM): rows arrive in no key order, so its
        b-trees are left partly empty (redis/redis: 59 MB, 54 MB packed; about a second).
        Only a nicety: the index is committed already, so a failure is logged, not raised."""
        try:
            self._conn.execute("VACUUM")
        except sqlite3.Error as exc:
            log.info("the sidecar was not compacted: %s", exc)

    def _publish(self) -> None:
        self.store.publish(self.folder)
        self.published = True

    def _write_whoosh(self, final: bool = False) -> None:
        """Write the pending documents and deletes as one Whoosh commit. ``final`` (at
        ``commit()``): then merge the segments too (``_merge_segments``), in the same writer
        when they all merge into one: the old segments' documents first, then the new ones, as
        writing a segment and merging it after would give, without writing, reading back and
        rewriting the new documents' postings (a full index's last batch and its records)."""
        if not self._pending and not self._deletes:
            if final:
                self._merge_segments()
            return
        docs = list(self._pending.values())
        self._write_vectors(docs)
        # One serial Whoosh writer: procs=2 + multisegment measured slower here (20k units: flush
        # 13.3 s against 11.1 s on the shared 2-core box, then +16 s to merge its 2 segments).
        simple = self.fresh and not self._deletes and not (self._written & self._pending.keys())
        # A rebuild's flushes are merged into one segment at commit (while it stays small enough
        # to be): until then they skip assembling a compound file (a copy of the segment), and the
        # merge reads them without its per-read layer (-15% of the indexer's CPU on requests).
        interim = (self.fresh and not final
                   and self.counters["documents"] + len(docs) <= OPTIMIZE_MAX_DOCS)
        writer = compact_terms(compact_pool(self._ix.writer(compound=not interim, limitmb=(
            MERGE_POOL_MB if final and self.fresh else POOL_MB))))
        try:
            for doc_id in self._deletes:
                writer.delete_by_term("id", doc_id)
            if final and not simple:  # update_document's delete, done first
                for doc in docs:
                    if not self.fresh or doc["id"] in self._written:
                        writer.delete_by_term("id", doc["id"])
            merge_now = final and self._optimizes(writer.segments, len(docs))
            if merge_now:
                merge_all(writer)
            for doc in docs:
                fields = {k: v for k, v in doc.items() if k != MEANING}
                if simple or final or (self.fresh and doc["id"] not in self._written):
                    writer.add_document(**fields)
                else:
                    writer.update_document(**fields)
        except BaseException:
            writer.cancel()
            raise
        policy = merged_already if merge_now else merges.flush_merge(
            len(self._ix._segments()), backfill=self._backfill(),
            walk_done=final or self._walk_done, at_least=MERGE_AT_SEGMENTS)
        writer.commit(merge=False) if policy is None else writer.commit(mergetype=policy)
        self.counters["documents"] += len(docs)
        self.counters["deleted"] += len(self._deletes)
        if self.fresh:
            self._written.update(self._pending)
        self._pending.clear()
        self._deletes.clear()
        if final and not merge_now:
            self._merge_segments()

    def _write_vectors(self, docs: list[dict]) -> None:
        """The documents' vectors, in the sidecar transaction that is committed after Whoosh."""
        vectors.delete(self._conn, sorted(self._deletes))
        if self._encoder is None:
            return
        vectors.write(self._conn, [d["id"] for d in docs], [d[MEANING] for d in docs],
                      self._encoder)

    def _optimizes(self, segments, new_docs: int = 0) -> bool:
        """Whether the segments (and ``new_docs`` about to become one more) merge into one."""
        counts = [seg.doc_count() for seg in segments] + ([new_docs] if new_docs else [])
        if len(counts) <= 1:
            return False
        total, biggest = sum(counts), max(counts)
        return total <= OPTIMIZE_MAX_DOCS and (self.fresh or total - biggest > SMALL_REST_DOCS)

    def _merge_segments(self) -> None:
        segments = self._ix._segments()
        if len(segments) <= 1:
            return
        writer = compact_terms(compact_pool(self._ix.writer()))
        if self._optimizes(segments):
            writer.commit(optimize=True)
        else:
            # an update that added a few documents merges small segments only, a bounded
            # number of documents (rewriting all of them made one new commit cost 1.5 s of CPU
            # on psf/requests); a big rebuild folds its small segments into one (``merges``)
            writer.commit(mergetype=merge_small_ones if self._backfill() else merge_small_bounded)

    def _backfill(self) -> bool:
        """A rebuild, or a run that wrote more than an update merges: a backfill resumed into
        the published generation (after a kill, or a segment's successor) is not fresh but
        merges as one (a bounded merge left the 100k history's index in 106 segments)."""
        written = self.counters["documents"] + len(self._pending)  # pending: being written now
        return self.fresh or written > merges.UPDATE_MERGE_MAX_DOCS

    # -- lifecycle ---------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this IndexWriter is closed")

    def _close(self) -> None:
        self._closed = True
        try:
            self._conn.close()
            self._ix.close()
        finally:
            release_lock(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> IndexWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._closed:
            return
        if exc_type is None:
            try:
                self.commit()
            except (OSError, sqlite3.Error) as failed:
                self.abort()
                failure = write_failure(str(self.store.path), failed)
                if failure is None:
                    raise
                raise failure from failed
            return
        self.abort()
        if isinstance(exc, (OSError, sqlite3.Error)):
            failure = write_failure(str(self.store.path), exc)
            if failure is not None:
                raise failure from exc


_WRITE_ERRNOS = {errno.ENOSPC: "the disk is full", errno.EFBIG: "a file size limit was reached",
                 errno.EDQUOT: "the disk quota is exhausted",
                 errno.EROFS: "the folder is on a read-only file system",
                 errno.EACCES: "the folder is not writable", errno.EPERM: "the folder is not "
                 "writable"}
_SQLITE_MESSAGES = (("disk is full", "the disk is full"),
                    ("readonly", "the folder is not writable"),
                    ("unable to open", "the folder is not writable"),
                    ("disk i/o error", "the disk refused a write"))


def write_failure(path: str, exc: BaseException) -> IndexWriteError | None:
    """The ``IndexWriteError`` an OS or sqlite error writing an index means, or None when the
    error says nothing about the disk (it is then not ours to rename)."""
    if isinstance(exc, OSError) and exc.errno in _WRITE_ERRNOS:
        return IndexWriteError(path, _WRITE_ERRNOS[exc.errno])
    if isinstance(exc, sqlite3.Error):
        text = str(exc).lower()
        for needle, reason in _SQLITE_MESSAGES:
            if needle in text:
                return IndexWriteError(path, reason)
    return None
