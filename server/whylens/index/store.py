"""The index folder's lifecycle: generations, the CURRENT pointer, the write lock, typed errors.

Layout of an index folder::

    CURRENT          "gen-3": the generation readers open (replaced atomically with os.replace)
    write.lock       flock()ed by the one writer; the kernel drops it when the writer dies
    gen-3/whoosh/    the Whoosh text index
    gen-3/sidecar.sqlite

A rebuild writes ``gen-<n+1>`` beside the current one and flips CURRENT when it commits (or at
its first flush when there is no index yet, so a first index is readable early); the old
generation is removed after the flip. Whoosh commits and sqlite transactions are each atomic, and
Whoosh always commits before sqlite records the commits as indexed, so a writer killed at any
moment leaves a readable index, and the next run re-adds (idempotently) what was in flight.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import sqlite3
import time
from pathlib import Path

from whylens.errors import (IndexCorruptError, IndexLockedError, IndexMissingError,
                            IndexOutdatedError)
from whylens.index import sidecar
from whylens.index.schema import SCHEMA_VERSION

# Bump when extraction, anchoring or records change what an index holds: the pipeline rebuilds
# when the stored value differs. It embeds SCHEMA_VERSION, so a schema change rebuilds too.
# .7: line blame passes on a rewrap its hunks cut; .8: units and records deflated, no events_sha;
# .9: a definition moved to another file and changed on the way is moved, not added
# (schema 3: events and changed files keyed by path and name ids, index/events.py);
# .10: "HTTP/2" and "TLSv1.2" tokens (analysis: a protocol and its version, a name and its version);
# .11: an incremental run pairs reverts with the earlier commits they name (pipeline.lookback);
# .12: a Rust raw string ends where its hashes close (it ran to the end of the file);
# .13: lines ended early split paragraphs, "FORK ... BACKTRACK" one sentence, records' problem
# needs 0.40 and is never the title restated, a test note, or what was done;
# .14: changed lines that differ by a moved brace or hold a doc comment's inner lines are judged
# on the whole definition, which makes no event when only its comments and blanks changed;
# .15: a record's decision is a choice (no guess, background, verdict); card items that lost their
# start, speak of the tests, plan or paste code are never shown;
# .16: a Kotlin block that only returns and its expression body are the same code;
# .17: card sentences that plan, state the state before, or name a test or CI are never shown;
# .18: a record's decision is no sentence that opens on the background ("But ...", "So ...")
# unless what follows its opening clause is the change, nor a guess or "currently ..."
# .19: a named function assigned to module.exports is named as the function ("buildURL"), and a
# change inside a function assigned to a member is a body change (it was a signature change)
# .20: a card sentence that names only another symbol of its commit (not one holding or held by
# this one) is never shown
# .21: card sentences that point at one not shown ("The change above ..."), paste a diagram or
# tool output, or speak of the review are never shown; "as opposed to" is no rejected alternative
# .22: a commit document holds the changelog entry its diff adds (``index.changelog``)
# .23: a reformat that changes a literal's case (black's hex digits) is formatting-only
# .24: card sentences in the first person singular, chit-chat or about a comment are never shown
# .25: an rst role that lost its opening backquote is cleaned out of a changelog entry; a commit
# document keeps apart which of its lines come from the entry (``commit_docs.entry``); an
# incremental run keeps the line blame of lines that wait in a version older than the previous
# revision's (a pull request merged with the mainline; ``pipeline.blame``)
# .26: a card sentence telling what the change does like a commit subject with no reason (but
# as a fix), or a guess, is never shown
PIPELINE_VERSION = f"{SCHEMA_VERSION}.26"


def outdated_reason(meta: dict) -> str | None:
    """Why an index (its meta) must be rebuilt by this WhyLens, or None when it need not: it
    was built by another pipeline version, or with another semantic model than the one that
    is installed now (an index without usable vectors is kept while no model is installed)."""
    if meta.get("pipeline_version") != PIPELINE_VERSION:
        return (f"the index was built by another WhyLens version (pipeline "
                f"{meta.get('pipeline_version')}, this one {PIPELINE_VERSION})")
    from whylens.index.vectors import encoder

    current, _problem = encoder()
    if current is not None and meta.get("semantic_encoder") != current.name:
        return (f"the index holds no vectors of the installed semantic model "
                f"({meta.get('semantic_encoder') or 'none'}, installed {current.name})")
    return None


CURRENT = "CURRENT"
LOCK = "write.lock"
WHOOSH_DIR = "whoosh"
_GENERATION = re.compile(r"^gen-(\d+)$")
OPEN_ATTEMPTS = 3


class IndexStore:
    """One index folder (see the module docstring for its layout)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"IndexStore({str(self.path)!r})"

    # -- reading -----------------------------------------------------------------------------

    def exists(self) -> bool:
        """True when CURRENT names a generation folder (it may still turn out to be corrupt)."""
        try:
            return self.current_generation() is not None
        except IndexCorruptError:
            return True

    def current_generation(self) -> Path | None:
        """The folder CURRENT points at; None when there is no index; corrupt pointer → error."""
        pointer = self.path / CURRENT
        try:
            name = pointer.read_text(encoding="utf-8", errors="replace").strip()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise IndexCorruptError(str(self.path), f"cannot read {CURRENT}: {exc}") from exc
        if not _GENERATION.match(name):
            raise IndexCorruptError(str(self.path), f"{CURRENT} holds {name[:40]!r}")
        folder = self.path / name
        if not (folder / WHOOSH_DIR).is_dir() or not (folder / sidecar.FILENAME).is_file():
            raise IndexCorruptError(str(self.path), f"{name} is incomplete")
        return folder

    def read_meta(self) -> dict:
        """The current generation's meta ({} when there is no index yet)."""
        folder = self.current_generation()
        if folder is None:
            return {}
        try:
            conn = sidecar.connect_reader(folder)
            try:
                return sidecar.read_meta(conn)
            finally:
                conn.close()
        except (sqlite3.Error, OSError, ValueError) as exc:
            raise IndexCorruptError(str(self.path), f"meta: {exc}") from exc

    def reader(self):
        """Open the current generation read-only (never takes the write lock)."""
        from whylens.index.reader import IndexReader

        for attempt in range(OPEN_ATTEMPTS):
            try:
                folder = self.current_generation()
                if folder is None:
                    raise IndexMissingError(str(self.path))
                return IndexReader(self, folder)
            except IndexOutdatedError:
                raise  # another version's index: reopening will not change it
            except IndexCorruptError:
                # a writer may have merged away the files this open was reading, or flipped
                # CURRENT and removed the generation it named between our two reads: only a
                # failure that persists is corruption
                if attempt == OPEN_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    # -- writing -----------------------------------------------------------------------------

    def writer(self, rebuild: bool = False, continued: dict | None = None):
        """Take the write lock and open a writer: into a new generation when ``rebuild`` (or when
        there is no index yet), else into the current one; ``continued``: a suspended writer's
        state (``IndexWriter.suspend``), whose generation must be the current one."""
        from whylens.index.writer import IndexWriter, write_failure

        try:
            self.path.mkdir(parents=True, exist_ok=True)
            lock_fd = self._lock()
        except OSError as exc:
            failure = write_failure(str(self.path), exc)
            if failure is None:
                raise
            raise failure from exc
        try:
            try:
                current = self.current_generation()
            except IndexCorruptError:
                if not rebuild:
                    raise
                current = None  # a rebuild replaces a corrupt index
            self._remove_generations(keep=current)  # leftovers of a killed rebuild
            if current is not None and not rebuild:
                meta = self.read_meta()
                if meta.get("schema_version") != SCHEMA_VERSION:
                    raise IndexCorruptError(
                        str(self.path),
                        f"schema {meta.get('schema_version')}, this WhyLens writes "
                        f"{SCHEMA_VERSION}; rebuild it",
                    )
                writer = IndexWriter(self, current, fresh=False, lock_fd=lock_fd)
                if continued is not None and continued["folder"] == current.name:
                    writer.go_on(continued)
                return writer
            folder = self.path / f"gen-{self._next_number()}"
            return IndexWriter(self, folder, fresh=True, lock_fd=lock_fd)
        except (OSError, sqlite3.Error) as exc:
            release_lock(lock_fd)
            failure = write_failure(str(self.path), exc)
            if failure is None:
                raise
            raise failure from exc
        except BaseException:
            release_lock(lock_fd)
            raise

    def _lock(self) -> int:
        fd = os.open(self.path / LOCK, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            raise IndexLockedError(str(self.path)) from exc
        return fd

    def _generations(self) -> list[tuple[int, Path]]:
        found = []
        for entry in self.path.iterdir() if self.path.is_dir() else ():
            match = _GENERATION.match(entry.name)
            if match and entry.is_dir():
                found.append((int(match.group(1)), entry))
        return sorted(found)

    def _next_number(self) -> int:
        numbers = [n for n, _ in self._generations()]
        return (max(numbers) + 1) if numbers else 1

    def publish(self, folder: Path) -> None:
        """Point CURRENT at ``folder`` atomically (write a temp file, fsync, os.replace)."""
        tmp = self.path / (CURRENT + ".tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(folder.name + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path / CURRENT)
        dir_fd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def _remove_generations(self, keep: Path | None) -> None:
        """Delete every generation but ``keep`` (only called while holding the write lock)."""
        for _, folder in self._generations():
            if keep is None or folder.resolve() != keep.resolve():
                shutil.rmtree(folder, ignore_errors=True)


def release_lock(fd: int | None) -> None:
    if fd is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
