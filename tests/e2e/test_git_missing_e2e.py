"""Without git on PATH the server says so once, answers nothing, and keeps running."""

from __future__ import annotations

import os
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="function")]

NO_GIT_ENV = {k: v for k, v in os.environ.items() if k != "PATH"} | {"PATH": "/nonexistent"}


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "whylens", "serve"], server_env=NO_GIT_ENV))
async def no_git_client(lsp_client: LanguageClient, make_repo, tmp_path):
    repos = [make_repo("one"), make_repo("two")]
    for repo in repos:
        repo.commit("Add a module", {"a.py": "def f():\n    return 1\n"})
    lsp_client.repos = repos  # type: ignore[attr-defined]
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("neovim"),
        workspace_folders=[types.WorkspaceFolder(uri=r.root.as_uri(), name=r.root.name)
                           for r in repos],
        initialization_options={"indexDirectory": str(tmp_path / "index")}))
    yield
    await lsp_client.shutdown_session()


async def test_git_missing_is_one_message_and_null_answers(no_git_client: LanguageClient):
    client = no_git_client
    uri = (client.repos[0].root / "a.py").as_uri()
    # A request after `initialized` is answered after the folders were looked at.
    result = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=0, character=4)))
    assert result is None
    assert await client.protocol.send_request_async("whylens/search", {"query": "module"}) is None
    shown = [m.message for m in client.messages]
    assert len(shown) == 1 and "git was not found" in shown[0], shown
