"""The anchor worker process's side: what runs in the child ``WorkerAnchoring`` spawns.

A module of its own, outside ``whylens.pipeline``, so the child imports only what anchoring
needs (history, symbols) and not the whole pipeline (the index writer, Whoosh, the knowledge
extraction: 0.36 of 0.42 s of CPU importing ``whylens.pipeline.anchoring``), which put about a
second of wall time under load before a 100k-commit history's first commit was anchored (its
first hover waits for it). ``pipeline.anchoring`` runs the parent's side; ``_Both`` is also its
in-process anchoring.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import threading
import traceback
from itertools import islice
from typing import IO, Any

from whylens.errors import WhyLensError
from whylens.history.blobs import BlobReader
from whylens.history.merges import MergeFiles
from whylens.history.repo import open_repository
from whylens.models import Commit, SymbolEvent
from whylens.symbols.anchor import Anchorer
from whylens.symbols.blame import BlameRun, LineBlame
from whylens.symbols.hunks import DiffMemo

POLL_SECONDS = 0.5  # how often each side checks that the other is still alive
BLOB_CACHE_BYTES = 8_000_000  # blobs the anchorer and the blame read again (``BlobReader``)
CHUNK_ENTRIES = 256  # entries of a state file's big mapping per pickle (``dump_chunked``)


class _Both:
    """The anchorer and the line blame, fed the same commits (merges through ``merges``)."""

    def __init__(self, read_blob, attributes, head_blobs: dict[str, str],
                 merges: MergeFiles | None, state_file: str | None = None) -> None:
        diffs = DiffMemo()  # a merge's diffs, which the blame and the anchorer both make
        self.anchorer = Anchorer(read_blob, attributes=attributes, diffs=diffs)
        self.blame = LineBlame(head_blobs, read_blob, diffs)
        self.merges = merges
        if state_file is not None:  # a segmented backfill's next segment: read, then removed
            with open(state_file, "rb") as source:
                state, states = load_chunked(source)
            state["anchorer"]["_states"] = states
            os.unlink(state_file)
            self.anchorer.restore(state["anchorer"])
            self.blame.restore(state["blame"])

    def save(self, state_file: str) -> None:
        """Write what the next segment goes on from (``Anchorer.checkpoint``, ``LineBlame
        .checkpoint``) to ``state_file``, streamed: no copy of it in memory, none on a pipe;
        the file states (most of it; each one read-only once made) in chunks (``dump_chunked``)."""
        part = state_file + ".part"
        anchorer = self.anchorer.checkpoint()
        states = anchorer.pop("_states")
        with open(part, "wb") as out:
            dump_chunked({"anchorer": anchorer, "blame": self.blame.checkpoint()}, states, out)
        os.replace(part, state_file)

    def __call__(self, commit: Commit) -> tuple[list[SymbolEvent], list[BlameRun]]:
        if len(commit.parents) > 1:  # a merge changes nothing itself; carry through it
            if self.merges is None:
                return [], []
            changed = self.merges.changed(commit.sha, commit.parents)
            self.anchorer.merge(changed)
            return [], self.blame.merge(commit, changed)
        return self.anchorer.events(commit), self.blame.commit(commit)

    @property
    def stats(self) -> dict[str, Any]:
        return {**self.anchorer.stats, "blame": dict(self.blame.stats)}


def _serve(repo_path: str, attributes: list, head_blobs: dict[str, str], commits, events,
           parent_pid: int, state_file: str | None = None) -> None:
    """The worker's main: chunks of commits in, their events out, in order; stats at the end.

    Exits as soon as the parent is gone: its end of the pipe closes (EOF), or, should a
    grandchild hold it open, the parent pid changes (checked every ``POLL_SECONDS``).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    outbox: queue.SimpleQueue = queue.SimpleQueue()
    sender = threading.Thread(target=_send_all, args=(outbox, events), daemon=True)
    sender.start()
    try:
        with open_repository(repo_path) as repo, BlobReader(repo, BLOB_CACHE_BYTES) as blobs, \
                MergeFiles(repo) as merges:
            both = _Both(blobs.read, attributes, head_blobs, merges, state_file)
            while True:
                if not commits.poll(POLL_SECONDS):
                    if os.getppid() != parent_pid:
                        os._exit(0)  # orphaned: nobody will read what we would compute
                    continue
                try:
                    chunk = commits.recv()
                except (EOFError, OSError):
                    os._exit(0)  # the parent closed its end or died
                if chunk is None or isinstance(chunk, tuple):
                    break
                outbox.put(("events", [(c.sha, *both(c)) for c in chunk]))
            if isinstance(chunk, tuple):  # ("checkpoint", file): the state goes there
                both.save(chunk[1])
                outbox.put(("checkpoint", chunk[1]))
            else:
                outbox.put(("stats", (both.stats, list(both.blame.leftover()))))
    except BaseException as exc:  # anything at all must reach the parent, not hang it
        text = str(exc) if isinstance(exc, WhyLensError) else (
            f"anchoring symbols failed in the worker process: {type(exc).__name__}: {exc}")
        outbox.put(("error", text, traceback.format_exc()))
    outbox.put(None)
    sender.join()


def _send_all(outbox: queue.SimpleQueue, events) -> None:
    """The worker's sending thread, so that anchoring never waits on a full pipe."""
    while (message := outbox.get()) is not None:
        try:
            events.send(message)
        except OSError:
            os._exit(0)  # the parent is gone
    events.close()


def dump_chunked(head: Any, entries: dict, out: IO[bytes]) -> None:
    """Pickle ``head``, then the items of ``entries`` (a mapping of independent values: the
    anchor worker's file states) ``CHUNK_ENTRIES`` at a time, one pickle each. One pickle of
    the whole state held all of its bytes (the C pickler writes out at the end) and a memo of
    every object, and reading it back a memo too: the worker's state at commit 34,000 of the
    100k history took its RSS 145 -> 176 MB to write and 43 -> 145 MB to read; in chunks
    145 -> 148 and 43 -> 105, and the file is smaller (13 MB, not 16). A value shared by two
    chunks would come back as two copies."""
    pickle.dump((head, type(entries), len(entries)), out, protocol=5)
    items = iter(entries.items())
    while chunk := list(islice(items, CHUNK_ENTRIES)):
        pickle.dump(chunk, out, protocol=5)


def load_chunked(source: IO[bytes]) -> tuple[Any, dict]:
    """What ``dump_chunked`` wrote: ``head`` and the mapping, of its type and in its order."""
    head, kind, count = pickle.load(source)
    entries = kind()
    while len(entries) < count:
        entries.update(pickle.load(source))
    return head, entries
