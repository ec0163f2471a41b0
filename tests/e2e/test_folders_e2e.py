"""A folder removed from the workspace and added back gets a fresh index runner: its answers
follow new commits instead of an orphaned runner bound to the removed workspace."""

from __future__ import annotations

import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from e2e_helpers import as_data, wait_for_runs
from e2e_history import V3, build, commit_new

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="function")]


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "whylens", "serve"]))
async def folder_client(lsp_client: LanguageClient, make_repo, tmp_path):
    repo = make_repo("project")
    build(repo)
    lsp_client.workspace_repo = repo  # type: ignore[attr-defined]
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


async def close_hover(client: LanguageClient):
    uri = (client.workspace_repo.root / "src" / "session.py").as_uri()
    line = next(i for i, text in enumerate(V3.splitlines()) if "def close(" in text)
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=V3.splitlines()[line].index("close") + 1)))


async def test_a_re_added_folder_follows_new_commits(folder_client: LanguageClient):
    client = folder_client
    repo = client.workspace_repo
    await wait_for_runs(client, 1)
    uri = (repo.root / "src" / "session.py").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=V3)))
    folder = types.WorkspaceFolder(uri=repo.root.as_uri(), name="project")
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[], removed=[folder])))
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[folder], removed=[])))
    await wait_for_runs(client, 2)  # the re-added folder is indexed (up to date) by a new runner
    # A rewritten history (force-push) makes the next run a full rebuild into a new generation:
    # only a runner bound to the live workspace reopens its reader onto it.
    repo.git("reset", "-q", "--hard", "HEAD~1")
    commit_new(repo)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(repo.root / ".git" / "refs" / "heads" / "main").as_uri(),
                        type=types.FileChangeType.Changed)]))
    await wait_for_runs(client, 3)
    after = await close_hover(client)
    assert after is not None and "idempotent" in after.contents.value, after
