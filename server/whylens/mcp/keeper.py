"""The server's index: opened read-only, built and updated by a child `whylens index` process.

GitPython leaks resources in long-running processes, so this process never indexes (nor imports
GitPython): a missing index, or one behind HEAD, starts ``whylens index --progress json`` as a
child, like the language server does. While it runs, tools say they are indexing (with its
progress) until the first commits are readable, then answer from what is there; the reader is
reopened every few seconds during the run and once when it ends.

Everything here runs on the tools' single worker thread; the child's output is read on two
daemon threads that only fill in its progress.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from whylens import child_command, gitcli
from whylens.errors import WhyLensError
from whylens.history.links import WebLinks
from whylens.index.reader import IndexReader
from whylens.locate import default_index_dir, locate
from whylens.lsp.workspaces import RepoWorkspace, head_signature

log = logging.getLogger(__name__)

REOPEN_EVERY_S = 2.0  # while a run is going, pick up what it flushed this often
CHECK_EVERY_S = 2.0  # otherwise, look for a rebuilt index or a moved HEAD this often


class IndexBuilding(Exception):
    """No index to answer from yet: one is being built (``progress`` says how far)."""

    def __init__(self, progress: dict) -> None:
        super().__init__("indexing")
        self.progress = progress


class IndexChild:
    """One `whylens index --progress json` run; its progress and errors are read on threads."""

    def __init__(self, root: Path, index_dir: Path) -> None:
        index_dir.parent.mkdir(parents=True, exist_ok=True)
        command = child_command("index", "--repo", str(root),
                                "--index-dir", str(index_dir), "--progress", "json")
        self.proc = subprocess.Popen(command, cwd=str(root), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.started = time.monotonic()
        self.progress: dict = {"phase": "starting", "done": 0, "total": 0}
        self.errors: deque[str] = deque(maxlen=20)
        self._threads = [threading.Thread(target=self._read_progress, daemon=True),
                         threading.Thread(target=self._read_errors, daemon=True)]
        for thread in self._threads:
            thread.start()

    def _read_progress(self) -> None:
        for raw in self.proc.stdout:  # type: ignore[union-attr]
            try:
                event = json.loads(raw.decode("utf-8", "replace"))
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("event") == "progress":
                self.progress = {"phase": str(event.get("phase", "")),
                                 "done": _int(event.get("done")), "total": _int(event.get("total"))}

    def _read_errors(self) -> None:
        for raw in self.proc.stderr:  # type: ignore[union-attr]
            line = raw.decode("utf-8", "replace").strip()
            if line:
                self.errors.append(line.removeprefix("whylens: "))

    def finished(self) -> bool:
        if self.proc.poll() is None:
            return False
        for thread in self._threads:
            thread.join(timeout=2)
        return True

    def failure(self) -> str | None:
        """The child's last error line when it failed, else None."""
        if self.proc.returncode in (0, None):
            return None
        return next(reversed(self.errors), None) or f"exit code {self.proc.returncode}"

    def status(self) -> dict:
        done, total = self.progress["done"], self.progress["total"]
        percent = min(99, done * 100 // total) if total else None
        return {**self.progress, "percent": percent,
                "seconds": round(time.monotonic() - self.started, 1)}

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@dataclass
class Ready:
    reader: IndexReader
    links: WebLinks | None
    building: dict | None  # the running update's progress, when one is running


class IndexKeeper:
    """The one repository this server answers for, and its index."""

    def __init__(self, repo: str | os.PathLike, index_dir: str | os.PathLike | None = None,
                 auto_index: bool = True) -> None:
        self.auto_index = auto_index
        self.problem: WhyLensError | None = None
        self.ws: RepoWorkspace | None = None
        self.child: IndexChild | None = None
        self.failed: tuple[tuple, str] | None = None  # (HEAD signature, message) of a failed run
        self._checked = self._reopened = 0.0
        try:
            where = locate(Path(repo).resolve(), Path(index_dir).resolve() if index_dir else None)
        except WhyLensError as exc:  # every tool answers with this; the server still starts
            self.problem = exc
            return
        self.ws = RepoWorkspace(folder_uri=where.root.as_uri(), root=where.root,
                                git_dir=where.git_dir, index_dir=where.index_dir)

    @property
    def root(self) -> Path:
        if self.ws is None:
            raise self.problem or WhyLensError("no repository")
        return self.ws.root

    def acquire(self) -> Ready:
        """The reader to answer from. Raises the repository's problem, ``IndexBuilding`` while
        the first run has nothing readable yet, or a ``WhyLensError`` when indexing failed."""
        if self.ws is None:
            raise self.problem or WhyLensError("no repository")
        ws, now = self.ws, time.monotonic()
        if self.child is not None and self.child.finished():
            self._child_ended()
        elif self.child is not None and (ws.reader is None or now - self._reopened >= REOPEN_EVERY_S):
            self._reopen(now)
        elif ws.reader is None or now - self._checked >= CHECK_EVERY_S:
            self._checked = now
            if ws.reader is None or ws.index_moved():
                self._reopen(now)
            self._update_if_behind()
        if ws.reader is None:
            self._no_reader()  # raises: indexing, failed, or no index
        assert ws.reader is not None
        building = self.child.status() if self.child is not None else None
        return Ready(ws.reader, ws.links, building)

    def close(self) -> None:
        self.kill_child()
        if self.ws is not None:
            self.ws.drop_reader()

    def kill_child(self) -> None:
        """Stop the index child, if one runs (safe in a signal handler: one kill, no lock)."""
        child, self.child = self.child, None
        if child is not None:
            child.kill()

    # ---- internals --------------------------------------------------------------------------

    def _workspace(self) -> RepoWorkspace:
        if self.ws is None:
            raise self.problem or WhyLensError("no repository")
        return self.ws

    def _reopen(self, now: float) -> None:
        self._reopened = now
        self._workspace().reopen()

    def _child_ended(self) -> None:
        child, self.child = self.child, None
        message = child.failure() if child is not None else None
        self._reopen(time.monotonic())
        if message:
            ws = self._workspace()
            log.warning("indexing %s failed: %s", ws.root, message)
            self.failed = (head_signature(ws.git_dir), message)

    def _update_if_behind(self) -> None:
        """Start an incremental run when HEAD moved past what the index holds."""
        ws = self._workspace()
        signature = head_signature(ws.git_dir)
        if signature == ws.signature or ws.reader is None or not self.auto_index:
            return
        ws.signature = signature
        head = _head_sha(ws.root)
        if head and head != (ws.reader.meta or {}).get("last_sha"):
            self._start()

    def index_dir(self) -> Path:
        """The index folder; raises the repository's problem, if it has one."""
        return self._workspace().index_dir

    def _no_reader(self) -> None:
        ws = self._workspace()
        if self.child is not None:
            raise IndexBuilding(self.child.status())
        if self.failed is not None and self.failed[0] == head_signature(ws.git_dir):
            raise WhyLensError(f"indexing {ws.root} failed: {self.failed[1]}")
        if not self.auto_index:
            extra = "" if ws.index_dir == default_index_dir(ws.root) else \
                f" --index-dir {ws.index_dir}"
            raise WhyLensError(f"no WhyLens index for {ws.root} yet (this server does not index: "
                               f"--no-auto-index); build it with `whylens index --repo "
                               f"{ws.root}{extra}`, then ask again")
        child = self._start()
        raise IndexBuilding(child.status())

    def _start(self) -> IndexChild:
        ws = self._workspace()
        ws.signature = head_signature(ws.git_dir)
        self.failed = None
        self.child = IndexChild(ws.root, ws.index_dir)
        log.info("indexing %s into %s", ws.root, ws.index_dir)
        return self.child


def _head_sha(root: Path) -> str | None:
    """HEAD's sha from `git rev-parse` (None when it has no commits or git fails)."""
    try:
        out = subprocess.run(gitcli.command("git", "rev-parse", "--verify", "-q", "HEAD"),
                             cwd=root, capture_output=True, text=True, check=False,
                             timeout=gitcli.GIT_TIMEOUT_S, env=gitcli.environment(),
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _int(value) -> int:
    try:
        return max(int(value), 0)
    except (TypeError, ValueError):
        return 0
