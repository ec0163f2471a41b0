"""Helpers for the MCP tests: the SDK's client over stdio, a raw JSON-RPC speaker, the project.

Tests are plain functions: the client lives on an event loop in a background thread (an anyio
blocking portal), so one server can serve a whole module. Every wait has a timeout, so a broken
server fails a test instead of hanging it. Indexes always go to a temporary folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from anyio.from_thread import start_blocking_portal
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from whylens.pipeline import run_index

from retrieval.pool_history import POOL_V5, build_pool_history

HERE = Path(__file__).resolve().parent
for folder in (HERE.parents[1] / "e2e", HERE.parents[2]):  # e2e_history; tests.conftest
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from e2e_history import build as build_session_history  # noqa: E402
from tests.conftest import init_repo  # noqa: E402

WAIT_S = 60
SEND_LINE = 8  # inside Session.send in tests/e2e/e2e_history.py
TRACE = ('Traceback (most recent call last):\n  File "src/session.py", line 9, in send\n'
         "    return conn.send(request, timeout=DEFAULT_TIMEOUT)\nTimeoutError: timed out\n")
SERVER = [sys.executable, "-m", "whylens", "mcp"]

# A change to Pool.put that brings back what a reverted commit did: review_diff comments on it.
POOL_CHANGE = POOL_V5.replace(
    "        self.count += 1\n",
    "        if item.closed:\n            self.reject_closed(item, 'closed connection')\n"
    "        self.count += 1\n")


@dataclass
class Project:
    repo: object  # tests.conftest.GitRepo
    shas: dict
    index: Path
    outside: Path  # a file outside the repository (symlink targets point here)

    @property
    def args(self) -> list[str]:
        return ["--repo", str(self.repo.root), "--index-dir", str(self.index)]


class McpSession:
    """Synchronous calls on the SDK's client, which runs on the portal's event loop."""

    def __init__(self, portal, client, errlog) -> None:
        self.portal, self.client, self.errlog = portal, client, errlog

    def call(self, name: str, arguments: dict | None = None):
        return self.portal.call(lambda: self.client.call_tool(name, arguments or {}))

    def tools(self):
        return self.portal.call(self.client.list_tools).tools

    def until(self, name: str, arguments: dict, done, timeout: float = WAIT_S):
        """Call until ``done(result)`` (e.g. the index is built); the last result."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.call(name, arguments)
            if done(result) or time.monotonic() > deadline:
                return result
            time.sleep(0.3)

    def stderr(self) -> str:
        self.errlog.flush()
        return Path(self.errlog.name).read_text(errors="replace")


@contextlib.contextmanager
def mcp_session(args: list[str], errlog_path: Path, cwd: Path | None = None,
                mode: str = "legacy"):
    """A server and the SDK's client; ``mode``: "legacy" (the initialize handshake agent hosts
    use) or "auto" (the SDK's default: the 2026 per-request protocol when the server has it)."""
    # The SDK hands the server only a few safe variables: pass PYTHONPATH on, so that the
    # server runs the code under test (a worktree's), not whatever is installed.
    extra = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
    params = StdioServerParameters(command=SERVER[0], args=[*SERVER[1:], *args],
                                   cwd=str(cwd) if cwd else None, env=extra)
    with open(errlog_path, "w+") as errlog, start_blocking_portal() as portal:
        transport = stdio_client(params, errlog=errlog)
        client = Client(transport, mode=mode, read_timeout_seconds=WAIT_S)
        with portal.wrap_async_context_manager(client) as connected:
            yield McpSession(portal, connected, errlog)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content)


def build_project(base: Path) -> Project:
    """Both small histories in one repository (the session's for why / search / explain_error,
    the pool's for review), indexed by the real pipeline."""
    repo = init_repo(base / "project")
    shas = build_session_history(repo)
    shas.update({f"pool_{k}": v for k, v in build_pool_history(repo).items()})
    index = base / "index"
    run_index(repo.root, index)
    outside = base / "outside" / "secret.py"
    outside.parent.mkdir()
    outside.write_text("def secret():\n    return 42\n")
    return Project(repo, shas, index, outside)


class RawServer:
    """`whylens mcp` spoken to line by line: JSON-RPC without the SDK."""

    def __init__(self, args: list[str], cwd: Path | None = None) -> None:
        self.proc = subprocess.Popen([*SERVER, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, message: dict | str) -> None:
        raw = message if isinstance(message, str) else json.dumps(message)
        self.proc.stdin.write(raw.encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = WAIT_S) -> dict:
        line = self.lines.get(timeout=timeout)
        assert line, f"the server closed stdout; stderr: {self.proc.stderr.read()[-2000:]!r}"
        return json.loads(line)

    def response(self, request_id, timeout: float = WAIT_S) -> dict:
        """The response to ``request_id`` (notifications in between are skipped)."""
        while True:
            message = self.receive(timeout)
            if message.get("id") == request_id:
                return message

    def initialize(self) -> dict:
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "1"}}})
        answer = self.response(0)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def close(self, timeout: float = 30) -> tuple[int, str]:
        """Close stdin (the client goes away); the exit code and stderr."""
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        return code, self.proc.stderr.read().decode("utf-8", "replace")
