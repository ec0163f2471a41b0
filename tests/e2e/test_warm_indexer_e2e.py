"""The warm indexer child, with the real server over stdio and a real repository.

The server keeps one ``whylens.cli.warm`` child idle (imports done); a new commit is indexed
by it and the hover shows the commit; a new idle child follows each run; an idle child that
was killed makes that run start a new process instead (said once); shutdown, and the server
dying, leave no child behind. The processes are read from /proc (Linux).
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.conftest import init_repo

from e2e_helpers import WAIT_S, statuses, wait_for_runs
from e2e_history import V4, build, commit_new

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")]

RUN_LOG = re.compile(r"index updated in [\d.]+s by the (warm child|new process)")
FALLBACK = "the warm indexer child failed"
V5 = V4.replace("            self.adapter = None",
                "            self.adapter = None\n            self.closed = True")
V5_SUBJECT = "Remember that the session was closed (#31)"
V6 = V5.replace("            self.closed = True", "            self.closed = time.time()")
V6_SUBJECT = "Record when the session was closed (#32)"


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


def warm_children(parent: int) -> list[int]:
    """Live ``whylens.cli.warm`` processes whose parent is ``parent``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == parent and fields[0] != "Z" and b"whylens.cli.warm" in cmdline:
            found.append(int(entry.name))
    return found


async def eventually(condition, what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def run_logs(client: LanguageClient) -> list[str]:
    """Which child ran each finished index run, in order."""
    return [m.group(1) for m in (RUN_LOG.search(p.message) for p in client.log_messages) if m]


def server_pid(client: LanguageClient) -> int:
    return client._server.pid  # type: ignore[attr-defined]  # pytest-lsp's server process


async def hover_close(client: LanguageClient, text: str):
    repo = client.workspace_repo  # type: ignore[attr-defined]
    line = next(i for i, row in enumerate(text.splitlines()) if "def close(" in row)
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=(repo.root / "src" / "session.py").as_uri()),
        position=types.Position(line=line, character=9)))


async def commit_and_wait(client: LanguageClient, commit) -> None:
    runs = sum(1 for s in statuses(client) if s["state"] != "indexing")
    repo = client.workspace_repo  # type: ignore[attr-defined]
    commit(repo)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(repo.root / ".git" / "refs" / "heads" / "main").as_uri(),
                        type=types.FileChangeType.Changed)]))
    await wait_for_runs(client, runs + 1)


async def start(base: Path) -> LanguageClient:
    repo = init_repo(base / "project")
    build(repo)
    client = await ClientServerConfig(
        server_command=[sys.executable, "-m", "whylens", "serve"]).start()
    client.workspace_repo = repo  # type: ignore[attr-defined]
    client.whylens_statuses = []  # type: ignore[attr-defined]

    @client.feature("whylens/indexStatus")
    def index_status(params):
        data = params._asdict() if hasattr(params, "_asdict") else dict(params)
        client.whylens_statuses.append(data)  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params):
        return None

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params):
        return None

    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=repo.root.as_uri(),
        initialization_options={"indexDirectory": str(base / "index")}))
    await wait_for_runs(client, 1)
    return client


async def test_commits_are_indexed_by_the_warm_child_and_a_killed_one_falls_back(tmp_path):
    client = await start(tmp_path)
    try:
        pid = server_pid(client)
        assert run_logs(client) == ["warm child"]  # the first run took the child started first
        await eventually(lambda: len(warm_children(pid)) == 1, "the next idle warm child")

        await commit_and_wait(client, commit_new)
        after = await hover_close(client, V4)
        assert after is not None and "idempotent" in after.contents.value, after
        assert run_logs(client)[-1] == "warm child"
        await eventually(lambda: len(warm_children(pid)) == 1, "a new idle warm child")
        assert len(warm_children(pid)) == 1  # never more than one idle child

        idle = warm_children(pid)[0]
        os.kill(idle, signal.SIGKILL)  # killed while idle: the next run starts a new process
        await eventually(lambda: not _alive(idle), "the killed child to be gone")
        await commit_and_wait(client, lambda repo: repo.commit(
            f"{V5_SUBJECT}\n\nA closed session must refuse to send; remember it.\n",
            {"src/session.py": V5}))
        after = await hover_close(client, V5)
        assert after is not None and "Remember that the session" in after.contents.value, after
        assert run_logs(client)[-1] == "new process"
        warnings = [p.message for p in client.log_messages if FALLBACK in p.message]
        assert len(warnings) == 1 and "while idle" in warnings[0], warnings

        await eventually(lambda: len(warm_children(pid)) == 1, "a warm child after the fallback")
        await commit_and_wait(client, lambda repo: repo.commit(
            f"{V6_SUBJECT}\n\nThe pool reaper needs the time a session was closed at.\n",
            {"src/session.py": V6}))
        after = await hover_close(client, V6)
        assert after is not None and "Record when the session" in after.contents.value, after
        assert run_logs(client)[-1] == "warm child"
        assert len([p for p in client.log_messages if FALLBACK in p.message]) == 1

        await eventually(lambda: len(warm_children(pid)) == 1, "the idle child before shutdown")
        idle = warm_children(pid)[0]
        await client.shutdown_session()
        await eventually(lambda: not _alive(idle), "shutdown to kill the idle child")
    finally:
        await client.stop()


async def test_an_idle_child_exits_when_the_server_dies(tmp_path):
    client = await start(tmp_path)
    pid = server_pid(client)
    try:
        await eventually(lambda: len(warm_children(pid)) == 1, "an idle warm child")
        idle = warm_children(pid)[0]
        os.kill(pid, signal.SIGKILL)  # no shutdown: the child reads the end of its input
        await eventually(lambda: not _alive(idle), "the orphaned child to exit")
    finally:
        try:
            await asyncio.wait_for(client.stop(), 5)
        except Exception:  # noqa: BLE001 - the server is gone on purpose
            pass


async def test_without_the_warm_child_runs_start_a_new_process(tmp_path, monkeypatch):
    monkeypatch.setenv("WHYLENS_WARM_INDEXER", "0")  # inherited by the server
    client = await start(tmp_path)
    try:
        assert run_logs(client) == ["new process"]
        assert warm_children(server_pid(client)) == []
        await commit_and_wait(client, commit_new)
        after = await hover_close(client, V4)
        assert after is not None and "idempotent" in after.contents.value, after
        assert run_logs(client)[-1] == "new process"
        await client.shutdown_session()
    finally:
        await client.stop()
