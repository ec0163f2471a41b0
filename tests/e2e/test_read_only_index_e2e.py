"""An index folder that cannot be written: the server says so once and keeps answering (without
hovers), and nothing crashes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="function")]


def _lock(folder, on: bool) -> bool:
    """Make ``folder`` unwritable: chattr +i as root (permissions do not stop root)."""
    if os.geteuid() != 0:
        folder.chmod(0o555 if on else 0o755)
        return True
    done = subprocess.run(["chattr", "+i" if on else "-i", str(folder)], capture_output=True)
    return done.returncode == 0


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "whylens", "serve"]))
async def locked_client(lsp_client: LanguageClient, make_repo, tmp_path):
    repo = make_repo("project")
    repo.commit("Add a module\n\nf must return 1, because callers count on it.",
                {"a.py": "def f():\n    return 1\n"})
    locked = tmp_path / "locked"
    locked.mkdir()
    if not _lock(locked, True):
        pytest.skip("this file system cannot make a folder read-only (chattr)")
    lsp_client.repo = repo  # type: ignore[attr-defined]
    try:
        await lsp_client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("neovim"), root_uri=repo.root.as_uri(),
            initialization_options={"indexDirectory": str(locked / "index")}))
        yield
        await lsp_client.shutdown_session()
    finally:
        _lock(locked, False)


async def test_a_read_only_index_folder_is_one_message_and_the_server_goes_on(
        locked_client: LanguageClient):
    client = locked_client
    for _ in range(100):  # the first index run fails quickly
        if client.messages:
            break
        await asyncio.sleep(0.1)
    shown = [m.message for m in client.messages]
    assert len(shown) == 1 and "index" in shown[0] and "writable" in shown[0], shown
    uri = (client.repo.root / "a.py").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text="def f():\n    return 1\n")))
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=0, character=4)))
    assert hover is None  # no index, no hover: and no crash
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert not lenses  # the server still answers requests, with nothing to show
