"""Index runs in a child process (`whylens index --progress json`), relayed as LSP progress.

GitPython leaks resources in long-running processes, and Whoosh writes are CPU-bound pure
Python, so the server never indexes itself: it spawns the CLI, reads its JSON progress lines,
reports them as cancellable work-done progress and ``whylens/indexStatus``, and reopens its
reader when the child is done (and every few seconds while it runs: the child flushes the newest
commits first, so answers start arriving early). One run per repository at a time; a request
during a run queues exactly one more run. The child is the warm one (``lsp/warm.py``: started
ahead, imports done) when it is idle, else a new ``whylens index`` process.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from whylens import child_command
from whylens.lsp import protocol
from whylens.lsp.warm import READY as WARM_READY
from whylens.lsp.warm import WarmChild
from whylens.lsp.warm import kill as _kill
from whylens.lsp.workspaces import RepoWorkspace, head_signature
from whylens.progress import Eta, IndexEvent, IndexStats, parse_line, phase_message, time_left
from whylens.symbols.languages import language_for_path

if TYPE_CHECKING:
    from whylens.lsp.server import WhyLensServer

log = logging.getLogger(__name__)

REOPEN_EVERY_S = 2.0  # while a run is going, pick up what it flushed this often
REPORT_EVERY_S = 0.2  # progress notifications at most this often
# HEAD polling (also with file watchers: a safety net). A tick reads HEAD, the ref and the index
# pointer and stats packed-refs: ~0.1 ms per repository, 0.1% of a core at 10 ticks a second.
POLL_EVERY_S = 0.1


class IndexRunError(Exception):
    pass


def index_args(ws: RepoWorkspace) -> list[str]:
    """``whylens`` arguments of an index run; its index folder is already resolved."""
    return ["index", "--repo", str(ws.root), "--index-dir", str(ws.index_dir),
            "--progress", "json"]


def index_command(ws: RepoWorkspace) -> list[str]:
    """The cold child's command line (the warm child gets ``index_args`` on its input)."""
    return child_command(*index_args(ws))


class IndexManager:
    """Schedules index runs for every repository and watches for new commits."""

    def __init__(self, server: WhyLensServer) -> None:
        self.server = server
        self._wanted: dict[str, asyncio.Event] = {}
        self._runners: dict[str, asyncio.Task] = {}
        self._children: dict[str, asyncio.subprocess.Process] = {}
        self._poller: asyncio.Task | None = None
        self._tokens = 0
        self._etas: dict[str, Eta] = {}  # per repository: time left in the running index
        self.warm = WarmChild()  # one idle child, imports done, for the next run of any folder

    # ---- scheduling -------------------------------------------------------------------------

    def start(self, ws: RepoWorkspace) -> None:
        key = str(ws.root)
        if key not in self._runners:
            self.warm.prepare(self._languages())
            self._wanted[key] = asyncio.Event()
            self._runners[key] = self.server.run_task(self._runner(ws), f"index {ws.name}")
        self.request(ws)
        if self._poller is None:
            self._poller = self.server.run_task(self._poll(), "HEAD poll")

    def stop(self, ws: RepoWorkspace) -> None:
        """The folder left the workspace: cancel its runner and kill a running child, so a
        re-added folder starts afresh with its new workspace."""
        key = str(ws.root)
        proc = self._children.pop(key, None)
        if proc is not None:
            _kill(proc)
        task = self._runners.pop(key, None)
        if task is not None:
            task.cancel()
        self._wanted.pop(key, None)

    def request(self, ws: RepoWorkspace) -> None:
        """Ask for an (incremental) run; coalesces with one already queued."""
        event = self._wanted.get(str(ws.root))
        if event is not None:
            event.set()

    def changed(self, ws: RepoWorkspace) -> bool:
        """True when HEAD moved since the last run started (and remembers the new position)."""
        signature = head_signature(ws.git_dir)
        if signature == ws.signature:
            return False
        ws.signature = signature
        return True

    async def _runner(self, ws: RepoWorkspace) -> None:
        event = self._wanted[str(ws.root)]
        while True:
            await event.wait()
            event.clear()
            ws.signature = head_signature(ws.git_dir)
            try:
                await self._run_once(ws)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # keep the runner alive for the next commit
                log.exception("%s: index run failed", ws.name)
                self._status(ws, "error", None, f"indexing failed: {exc}")

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_EVERY_S)
            if not self.server.settings.index.auto_update:
                continue
            for ws in list(self.server.workspaces.items):
                try:
                    if str(ws.root) not in self._children and ws.index_moved():
                        self._index_moved(ws)
                    if self.changed(ws):
                        log.info("%s: HEAD moved; updating the index", ws.name)
                        self.request(ws)
                except Exception:
                    log.debug("HEAD poll failed for %s", ws.name, exc_info=True)

    def _index_moved(self, ws: RepoWorkspace) -> None:
        """Another process rebuilt the index, or someone deleted it: never keep a stale reader."""
        if ws.reopen():
            log.info("%s: the index changed on disk; reopened", ws.name)
            self._status(ws, "idle", 100, "index reopened")
            return
        log.warning("%s: the index at %s is gone; rebuilding it", ws.name, ws.index_dir)
        self._status(ws, "degraded", None, "the index was deleted; rebuilding")
        self.request(ws)

    def shutdown(self) -> None:
        self.warm.close()
        for proc in list(self._children.values()):
            _kill(proc)
        for task in [*self._runners.values(), *([self._poller] if self._poller else [])]:
            task.cancel()

    # ---- one run ----------------------------------------------------------------------------

    async def _run_once(self, ws: RepoWorkspace) -> None:
        progress = await self._begin_progress(ws)
        token, cancelled = progress if progress else (None, None)
        self._status(ws, "indexing", 0, "starting")
        started = time.monotonic()
        try:
            summary, which = await self._spawn(ws, token, cancelled)
        except asyncio.CancelledError:
            self._end_progress(token, "cancelled")
            raise
        except IndexRunError as exc:
            ws.reopen()
            state = "degraded" if ws.reader is not None else "error"
            message = str(exc)
            if "cancel" not in message:
                log.error("%s: indexing failed: %s", ws.name, message)
                self.server.show_once(f"index-failed:{ws.root}",
                                      f"WhyLens could not index {ws.name}: {message}",
                                      types.MessageType.Error)
            self._end_progress(token, message)
            self._status(ws, state, None, message)
            return
        ws.reopen()
        self._etas.pop(str(ws.root), None)
        took = time.monotonic() - started
        text = summary.describe() if summary is not None else "index up to date"
        if summary is not None and summary.commits_file_level:
            from whylens.symbols.anchor import MAX_FILES_PER_COMMIT as FILE_LEVEL_CAP

            self.server.show_once(
                f"file-level:{ws.root}",
                f"WhyLens: {summary.commits_file_level} commit(s) in {ws.name} changed more than "
                f"{FILE_LEVEL_CAP:,} source files; their changes are in file history only, not "
                "in symbol histories.", types.MessageType.Info)
        note = summary.missing_objects_note() if summary is not None else None
        if note:
            self.server.show_once(f"missing-objects:{ws.root}", f"WhyLens: {ws.name}: {note}.",
                                  types.MessageType.Info)
        log.info("%s: index updated in %.2fs by the %s (%s)", ws.name, took, which, text)
        self._end_progress(token, text)
        if ws.reader is None:
            self._status(ws, "error", None, "the index could not be opened after indexing")
        else:
            self._status(ws, "idle", 100, text)
            self.server.index_updated(ws)

    async def _spawn(self, ws: RepoWorkspace, token: str | None,
                     cancelled: Future[Any] | None) -> tuple[IndexStats | None, str]:
        """Run the index child to its end: the warm one when there is one, else (or when the
        warm one fails before it starts indexing) a new process. Returns (summary, which)."""
        try:
            ws.index_dir.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a read-only disk: the editor goes on, without hovers
            raise IndexRunError(f"cannot create the index folder {ws.index_dir.parent} "
                                f"({exc.strerror or exc}); set whylens.index.directory to a "
                                "writable folder") from exc
        try:
            proc = await self.warm.take()
            if proc is not None and await self.warm.tell(proc, index_args(ws), str(ws.root)):
                run = await self._follow(ws, proc, token, cancelled)
                if not run.warm_failure(cancelled):
                    return run.result(cancelled), "warm child"
                self.warm.failed(run.describe_failure())
            proc = await asyncio.create_subprocess_exec(
                *index_command(ws), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                cwd=str(ws.root), limit=1 << 20)
            return (await self._follow(ws, proc, token, cancelled)).result(cancelled), \
                "new process"
        finally:
            self.warm.prepare(self._languages())  # the next run's child, after this one

    async def _follow(self, ws: RepoWorkspace, proc: asyncio.subprocess.Process,
                      token: str | None, cancelled: Future[Any] | None) -> _ChildRun:
        """Relay a child's progress until it exits."""
        self._children[str(ws.root)] = proc
        if cancelled is not None:
            cancelled.add_done_callback(lambda _f: _kill(proc))
        run = _ChildRun()
        stderr_task = asyncio.ensure_future(_drain(proc.stderr, run.stderr_tail))
        last_report, last_reopen = 0.0, time.monotonic()  # the first progress line is always shown
        try:
            assert proc.stdout is not None
            async for raw in proc.stdout:
                event = parse_line(raw)
                if isinstance(event, IndexStats):
                    run.summary = event
                elif isinstance(event, IndexEvent):
                    run.progressed = True
                    now = time.monotonic()
                    if now - last_report >= REPORT_EVERY_S:
                        last_report = now
                        self._report(ws, token, event)
                    if now - last_reopen >= REOPEN_EVERY_S:
                        last_reopen = now
                        ws.reopen()
                elif not raw.startswith(WARM_READY):
                    log.debug("index child printed: %r", raw[:200])
            run.code = await proc.wait()
            await stderr_task
        finally:
            if self._children.get(str(ws.root)) is proc:
                del self._children[str(ws.root)]
            if proc.returncode is None:
                _kill(proc)
        return run

    def _languages(self) -> set[str]:
        """The grammars of the open documents: the next warm child loads them ahead."""
        found = set()
        for uri in list(self.server.workspace.text_documents):
            path = to_fs_path(uri) if uri.startswith("file:") else None
            language = language_for_path(path) if path else None
            if language:
                found.add(language)
        return found

    # ---- reporting --------------------------------------------------------------------------

    async def _begin_progress(self, ws: RepoWorkspace
                              ) -> tuple[str, Future[Any] | None] | None:
        caps = self.server.client_capabilities.window
        if not (caps and caps.work_done_progress):
            return None
        self._tokens += 1
        token = f"whylens-index-{self._tokens}"
        try:
            await asyncio.wait_for(self.server.work_done_progress.create_async(token), 10)
        except Exception as exc:  # refused or unanswered: go on without a progress bar
            log.debug("progress refused: %s", exc)
            return None
        self.server.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=f"WhyLens: indexing {ws.name}", cancellable=True, percentage=0,
            message="reading history"))
        return token, self.server.work_done_progress.tokens.get(token)

    def _report(self, ws: RepoWorkspace, token: str | None, event: IndexEvent) -> None:
        percent = event.percent
        message = phase_message(event)
        left = self._etas.setdefault(str(ws.root), Eta()).update(
            event.phase, event.done, event.total, time.monotonic())
        if left is not None:
            message += f" · {time_left(left)}"
        if token is not None:
            self.server.work_done_progress.report(
                token, types.WorkDoneProgressReport(message=message, percentage=percent))
        self._status(ws, "indexing", percent, message)

    def _end_progress(self, token: str | None, message: str) -> None:
        if token is not None:
            self.server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    def _status(self, ws: RepoWorkspace, state: str, percent: int | None, message: str) -> None:
        units, records = ws.counts()
        self.server.send_status(protocol.index_status(
            ws.folder_uri, state, percent, units, records, message))


class _ChildRun:
    """What one index child did: its summary, whether it reported progress, its exit."""

    def __init__(self) -> None:
        self.summary: IndexStats | None = None
        self.progressed = False
        self.code: int | None = None
        self.stderr_tail: deque[str] = deque(maxlen=20)

    def _detail(self) -> str:
        return next((line for line in reversed(self.stderr_tail) if line.strip()), "")

    def warm_failure(self, cancelled: Future[Any] | None) -> bool:
        """True when a warm child ended before it started indexing, and not with a message
        of its own (a WhyLens error a new process would repeat) nor because it was cancelled."""
        return (self.code != 0 and not self.progressed and self.summary is None
                and not (cancelled is not None and cancelled.cancelled())
                and not self._detail().startswith("whylens: "))

    def describe_failure(self) -> str:
        detail = self._detail()
        return f"exit code {self.code}" + (f": {detail}" if detail else "")

    def result(self, cancelled: Future[Any] | None) -> IndexStats | None:
        if cancelled is not None and cancelled.cancelled():
            raise IndexRunError("indexing cancelled; answers come from the previous index")
        if self.code != 0:
            raise IndexRunError(self._detail().removeprefix("whylens: ")
                                or f"exit code {self.code}")
        return self.summary


async def _drain(stream, tail: deque) -> None:
    if stream is None:
        return
    async for raw in stream:
        line = raw.decode("utf-8", "replace").rstrip()
        if line:
            tail.append(line)
            log.debug("index child: %s", line)
