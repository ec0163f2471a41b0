"""Commits → (commit, symbol events, blame runs), in one process or in an anchor worker process.

Anchoring (tree-sitter parsing) is most of an index run's CPU. For a big run it goes to ONE
worker process while the main process extracts units and writes the index for earlier commits:
the main process walks and ships commits ahead (bounded look-ahead, in chunks), the worker
anchors them in walk order (the Anchorer's file states and the line blame rely on newest-first
order, and renames and moves are matched across one commit's files, so commits are never split)
and sends the events and blame runs back in the same order. Both paths give identical results,
statistics included.

The worker dies with its parent: it exits as soon as its parent process is gone (end of file
on the commit pipe, or a changed parent pid), so a SIGKILLed `whylens index` leaves no orphan.
A worker exception, or a worker that dies, surfaces in the parent as ``AnchorWorkerError``,
never as a hang. The worker is started with "spawn": a script calling ``run_index`` must guard
its top level with ``if __name__ == "__main__":`` (the multiprocessing rule).
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from whylens.anchor_worker import BLOB_CACHE_BYTES, POLL_SECONDS, _Both, _serve  # noqa: F401
from whylens.errors import AnchorWorkerError
from whylens.history.merges import MergeFiles
from whylens.models import Commit, SymbolEvent
from whylens.symbols.blame import BlameRun, Segment

# Below this many new commits the worker's start-up does not pay: it costs ~0.3 s of CPU
# (imports), and on gorilla/mux (329 commits) the worker path took 30% more CPU in all.
DEFAULT_WORKER_MIN_COMMITS = 500
WORKER_MIN_COMMITS_ENV = "WHYLENS_ANCHOR_WORKER_MIN_COMMITS"  # tests and benchmarks force a path
LOOKAHEAD_COMMITS = 256  # commits shipped to the worker and not yet consumed, at most
LOOKAHEAD_BYTES = 8_000_000  # and their patch text, at most (a few huge commits)
CHUNK_BYTES = 2_000_000  # a message is sent once this much patch text is in it
CHUNK_COMMITS = 16  # commits per message (one pickle each way)

Anchored = tuple[Commit, list[SymbolEvent], list[BlameRun]]


def wants_worker(new_commits: int, min_commits: int | None = None) -> bool:
    """Whether ``new_commits`` are enough to pay for a worker (explicit > env > default)."""
    if min_commits is None:
        raw = os.environ.get(WORKER_MIN_COMMITS_ENV, "").strip()
        if raw.isdigit():
            min_commits = int(raw)
        elif _available_cpus() < 2:
            return False  # one core: a second process only adds overhead
        else:
            min_commits = DEFAULT_WORKER_MIN_COMMITS
    return new_commits >= max(min_commits, 1)


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class Anchoring(Protocol):
    """What the pipeline needs of either way of anchoring."""

    @property
    def stats(self) -> dict[str, Any]: ...

    def anchored(self, commits: Iterable[Commit]) -> Iterator[Anchored]: ...

    def leftover(self) -> list[tuple[str, str, str, list[Segment]]]: ...

    # set before the commits run out: ``anchored`` then ends by saving the state there
    checkpointing: str | None

    def __enter__(self) -> Anchoring: ...

    def __exit__(self, *exc: object) -> None: ...


class InProcessAnchoring:
    """Anchors in the calling process; for small runs."""

    def __init__(self, read_blob, attributes, head_blobs: dict[str, str] | None = None,
                 merges: MergeFiles | None = None, state_file: str | None = None) -> None:
        self._both = _Both(read_blob, attributes, head_blobs or {}, merges, state_file)
        self.checkpointing: str | None = None  # see ``Anchoring``

    def __enter__(self) -> InProcessAnchoring:
        return self

    def __exit__(self, *exc) -> None:
        pass

    @property
    def stats(self) -> dict[str, Any]:
        return self._both.stats

    def leftover(self) -> list[tuple[str, str, str, list[Segment]]]:
        """The blame lines no walked commit claimed (see ``LineBlame.leftover``)."""
        return list(self._both.blame.leftover())

    def anchored(self, commits: Iterable[Commit]) -> Iterator[Anchored]:
        for commit in commits:
            events, runs = self._both(commit)
            yield commit, events, runs
        if self.checkpointing is not None:
            self._both.save(self.checkpointing)


class WorkerAnchoring:
    """Anchors in one worker process, ``LOOKAHEAD_COMMITS`` ahead of the consumer.

    A context manager: leaving it (normally or by an exception) stops the worker. Two one-way
    pipes and no locks (nothing to leak when a process is killed): the parent may block
    sending commits only while the worker anchors, because the worker never blocks sending
    events (a thread of its own does), so the two cannot wait on each other.
    """

    def __init__(self, repo_path, attributes, head_blobs: dict[str, str] | None = None,
                 lookahead: int | None = None, chunk: int | None = None,
                 state_file: str | None = None) -> None:
        self._chunk = chunk or CHUNK_COMMITS
        self._lookahead = max(lookahead or LOOKAHEAD_COMMITS, self._chunk)
        context = multiprocessing.get_context("spawn")  # no inherited git pipes, no fork+threads
        self._commits_out, self._worker_commits = _pipe(context)
        self._worker_events, self._events_in = _pipe(context)
        self._process = context.Process(
            target=_serve, name="whylens-anchor", daemon=True,
            args=(str(repo_path), list(attributes), head_blobs or {}, self._worker_commits,
                  self._worker_events, os.getpid(), state_file))
        self.stats: dict[str, Any] = {}
        # set before the commits run out: the worker then saves its state there instead of
        # answering with its statistics (the next segment of a segmented backfill)
        self.checkpointing: str | None = None
        self._leftover: list[tuple[str, str, str, list[Segment]]] = []
        self._pending_bytes = 0

    @property
    def pid(self) -> int | None:
        """The worker's process id once started."""
        return self._process.pid

    def __enter__(self) -> WorkerAnchoring:
        _no_resource_tracker()
        self._process.start()
        self._worker_commits.close()  # the worker's ends: if it dies, ours see EOF
        self._worker_events.close()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def leftover(self) -> list[tuple[str, str, str, list[Segment]]]:
        """The blame lines no walked commit claimed (sent by the worker at the end)."""
        return self._leftover

    def anchored(self, commits: Iterable[Commit]) -> Iterator[Anchored]:
        pending: deque[Commit] = deque()  # shipped, events not yet yielded
        self._pending_bytes = 0
        chunk: list[Commit] = []
        chunk_bytes = 0
        size = 1  # the first chunks are small, so the newest commits are answered at once
        for commit in commits:
            chunk.append(commit)
            chunk_bytes += _weight(commit)
            if len(chunk) >= size or chunk_bytes >= CHUNK_BYTES:
                size = min(size * 2, self._chunk)
                self._send(chunk)
                pending.extend(chunk)
                self._pending_bytes += chunk_bytes
                chunk, chunk_bytes = [], 0
            # answers the worker has sent are taken at once (the first ones within a second
            # of its start on a 100k-commit history), not only when the look-ahead is full
            while pending and (len(pending) > self._lookahead
                               or self._pending_bytes > LOOKAHEAD_BYTES
                               or self._events_in.poll(0)):
                yield from self._receive(pending)
        if chunk:
            self._send(chunk)
            pending.extend(chunk)
            self._pending_bytes += chunk_bytes
        # end of the walk: the worker answers with its stats (or its state) and exits
        expected = "stats" if self.checkpointing is None else "checkpoint"
        self._send(None if self.checkpointing is None else ("checkpoint", self.checkpointing))
        while pending:
            yield from self._receive(pending)
        kind, payload = self._get()
        if kind != expected:
            raise AnchorWorkerError(f"the anchor worker sent {kind!r} instead of its {expected}")
        if self.checkpointing is None:
            self.stats, self._leftover = payload

    def close(self) -> None:
        """Stop the worker: it has normally exited already; otherwise it is terminated."""
        self._commits_out.close()  # a worker still waiting for commits sees EOF and exits
        self._events_in.close()
        process = self._process
        if process.pid is None:
            return
        process.join(timeout=5.0 if self.stats else 0.5)
        if process.is_alive():
            process.terminate()
            process.join(timeout=2.0)
        if process.is_alive():
            process.kill()
            process.join()

    def _send(self, chunk: list[Commit] | tuple[str, str] | None) -> None:
        try:
            self._commits_out.send(chunk)
        except OSError:  # the worker is gone: its message (if any) says why
            self._get()
            raise self._died() from None

    def _receive(self, pending: deque[Commit]) -> Iterator[Anchored]:
        kind, payload = self._get()
        if kind != "events":
            raise AnchorWorkerError(f"the anchor worker sent {kind!r} instead of events")
        for sha, events, runs in payload:
            commit = pending.popleft()
            self._pending_bytes -= _weight(commit)
            if commit.sha != sha:
                raise AnchorWorkerError(f"the anchor worker answered for {sha} instead of "
                                        f"{commit.sha}; it lost the commit order")
            yield commit, events, runs

    def _get(self) -> tuple[str, Any]:
        """The worker's next message; raises if it failed or died instead of answering."""
        try:
            while not self._events_in.poll(POLL_SECONDS):
                if not self._process.is_alive() and not self._events_in.poll(0):
                    raise self._died()
            message = self._events_in.recv()
        except (EOFError, OSError):
            raise self._died() from None
        if message[0] == "error":
            _, text, worker_traceback = message
            raise AnchorWorkerError(text, worker_traceback)
        return message

    def _died(self) -> AnchorWorkerError:
        self._process.join(timeout=1.0)
        return AnchorWorkerError(
            f"the anchor worker process died (exit code {self._process.exitcode}) before "
            f"answering; run `whylens index` again (it resumes), or set "
            f"{WORKER_MIN_COMMITS_ENV}=1000000000 to anchor in one process")


def _no_resource_tracker() -> None:
    """Spare the process multiprocessing's resource tracker: "spawn" starts one (another Python,
    ~14 MB of RSS for the whole run) to unlink named semaphores and shared memory a dead child
    leaves, and the worker makes none (two pipes). Its pipe is pointed at /dev/null instead, which
    ``ensure_running`` takes for a live tracker. Left as it is if the internals differ."""
    try:
        from multiprocessing import resource_tracker

        tracker = resource_tracker._resource_tracker
        if getattr(tracker, "_fd", "missing") is None and hasattr(tracker, "_check_alive"):
            tracker._fd = os.open(os.devnull, os.O_WRONLY)  # type: ignore[attr-defined]
    except (ImportError, AttributeError, OSError):
        pass


def _weight(commit: Commit) -> int:
    """Roughly the bytes a commit costs on the pipe and in memory (its patch text mostly)."""
    return 200 + sum(len(change.patch) + 200 for change in commit.changes)


def _pipe(context):
    """(sending end, receiving end) of a one-way pipe."""
    receiving, sending = context.Pipe(duplex=False)
    return sending, receiving
