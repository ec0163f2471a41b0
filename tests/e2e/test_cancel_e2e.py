"""Cancelling the indexing progress kills the child; the server keeps running and can reindex."""

from __future__ import annotations

import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from e2e_helpers import statuses, wait_until
from e2e_history import build

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="function")]


def cancelling_client() -> LanguageClient:
    """pytest-lsp's test client, except that it cancels the first progress once it begins."""
    client = LanguageClient(converter_factory=default_converter)

    record_progress = DEFAULT_CLIENT_FEATURES[types.PROGRESS]

    @client.feature(types.PROGRESS)
    def progress(ls: LanguageClient, params: types.ProgressParams):
        record_progress(ls, params)
        reports = ls.progress_reports.get(params.token, [])
        if len(ls.progress_reports) == 1 and len(reports) == 1:
            # the user presses "cancel" as soon as the first bar appears
            ls.window_work_done_progress_cancel(
                types.WorkDoneProgressCancelParams(token=params.token))

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams):
        return None

    defaults = {method: fn for method, fn in DEFAULT_CLIENT_FEATURES.items()
                if method != types.PROGRESS}
    register_lsp_features(client, defaults)
    return client


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "whylens", "serve"], client_factory=cancelling_client))
async def cancel_client(lsp_client: LanguageClient, make_repo, tmp_path):
    repo = make_repo("project")
    build(repo)
    lsp_client.whylens_statuses = []  # type: ignore[attr-defined]

    @lsp_client.feature("whylens/indexStatus")
    def index_status(params):
        lsp_client.whylens_statuses.append(params._asdict())

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params):  # VS Code's capabilities promise this request is answered
        return None

    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=repo.root.as_uri(),
        initialization_options={"indexDirectory": str(tmp_path / "index")}))
    yield
    await lsp_client.shutdown_session()


async def test_cancel_kills_the_child_and_reindex_recovers(cancel_client: LanguageClient):
    client = cancel_client
    await wait_until(client, "whylens/indexStatus",
                     lambda: any(s["state"] != "indexing" for s in statuses(client)))
    first = next(s for s in statuses(client) if s["state"] != "indexing")
    assert "cancelled" in first["message"], statuses(client)
    assert first["state"] in ("error", "degraded")
    token = next(iter(client.progress_reports))
    assert isinstance(client.progress_reports[token][-1], types.WorkDoneProgressEnd)
    assert not client.messages  # a cancel is the user's choice: no error popup
    # The server still answers, and a reindex builds the index.
    await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="whylens.server.reindex", arguments=[]))
    await wait_until(client, "whylens/indexStatus",
                     lambda: statuses(client)[-1]["state"] == "idle")
    assert statuses(client)[-1]["units"] > 0
    assert len(client.progress_reports) == 2
