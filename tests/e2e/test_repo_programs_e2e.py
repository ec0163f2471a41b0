"""The server, its child indexer and its review child run no program the repository configures
(filters, fsmonitor, textconv, external diff, pager, hooks, helpers: ``hostile.py``), and no
``whylens`` package in the repository shadows WhyLens's own in the children."""

from __future__ import annotations

import os
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from e2e_helpers import as_data, wait_for_runs
from e2e_history import build

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "unit"))
from hostile import arm_repository_programs, write_attributes  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="function")]


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "whylens", "serve"]))
async def armed_client(lsp_client: LanguageClient, make_repo, tmp_path):
    repo = make_repo("project")
    write_attributes(repo)
    shas = build(repo)
    lsp_client.marker = tmp_path / "marker"  # type: ignore[attr-defined]
    arm_repository_programs(repo, lsp_client.marker)  # type: ignore[attr-defined]
    shadow = repo.root / "whylens"  # a package that would shadow WhyLens's own in `-m whylens`
    shadow.mkdir()
    for name in ("__init__.py", "__main__.py"):
        (shadow / name).write_text(f"open({str(lsp_client.marker)!r}, 'a').write('shadow {name}')\n")
    (repo.root / "src" / "session.py").write_text(  # a work-tree change for the review
        (repo.root / "src" / "session.py").read_text() + "\n# edited\n")
    lsp_client.workspace_repo, lsp_client.shas = repo, shas  # type: ignore[attr-defined]
    lsp_client.whylens_statuses = []  # type: ignore[attr-defined]

    @lsp_client.feature("whylens/indexStatus")
    def index_status(params):
        lsp_client.whylens_statuses.append(as_data(params))

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params):
        return None

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params):
        return None

    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        workspace_folders=[types.WorkspaceFolder(uri=repo.root.as_uri(), name="project")],
        initialization_options={"indexDirectory": str(tmp_path / "index")}))
    yield
    await lsp_client.shutdown_session()


async def test_serve_index_and_review_run_no_repository_program(armed_client: LanguageClient):
    client = armed_client
    status = await wait_for_runs(client, 1)
    assert status["state"] == "idle", status
    result = as_data(await client.protocol.send_request_async(
        "whylens/prSuggestions", {"base": client.shas["deadlock"]}))
    assert result is not None and isinstance(result["suggestions"], list)
    search = as_data(await client.protocol.send_request_async(
        "whylens/search", {"query": "deadlock pool exhausted"}))
    assert search is not None
    marker = client.marker
    assert not marker.exists(), marker.read_text()
