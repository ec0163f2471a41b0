"""End-to-end fixtures: the real server (`python -m whylens serve`) over stdio, driven by
pytest-lsp with real client-capability snapshots, on a git repository built in code.

Helpers wait on events (notifications, progress ``end``), never on the clock; each wait has a
generous timeout so a broken server fails the test instead of hanging it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

HERE = Path(__file__).resolve().parent
for folder in (HERE.parents[1], HERE):  # the project root (tests.conftest) and this folder
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from tests.conftest import init_repo  # noqa: E402  (the shared GitRepo helper)

from e2e_helpers import as_data, wait_for_runs  # noqa: E402
from e2e_history import build  # noqa: E402

CLIENTS = ["visual-studio-code", "neovim"]


def _record_custom(client: LanguageClient) -> None:
    client.whylens_statuses = []  # type: ignore[attr-defined]
    client.registrations = []  # type: ignore[attr-defined]
    client.lens_refreshes = 0  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params):
        client.lens_refreshes += 1
        return None

    @client.feature("whylens/indexStatus")
    def index_status(params):
        client.whylens_statuses.append(as_data(params))

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams):
        client.registrations.extend(params.registrations)
        return None


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "whylens", "serve"]),
    scope="module",
    params=CLIENTS,
)
async def client(lsp_client: LanguageClient, request, tmp_path_factory):
    """A server on a fresh repository, indexed; ``lsp_client.workspace_repo`` is the GitRepo."""
    name = request.param
    base = tmp_path_factory.mktemp(name)
    repo = init_repo(base / "project")
    shas = build(repo)
    lsp_client.workspace_repo = repo  # type: ignore[attr-defined]
    lsp_client.shas = shas  # type: ignore[attr-defined]
    lsp_client.client_name = name  # type: ignore[attr-defined]
    _record_custom(lsp_client)
    folders = [types.WorkspaceFolder(uri=repo.root.as_uri(), name="project")]
    if name == "visual-studio-code":  # a second folder that is not a repository: one message
        plain = base / "notes"
        plain.mkdir()
        folders.append(types.WorkspaceFolder(uri=plain.as_uri(), name="notes"))
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(name),
        root_uri=repo.root.as_uri(),
        workspace_folders=folders if name == "visual-studio-code" else None,
        initialization_options={
            "indexDirectory": str(base / "index"),
            "settings": {"hover": {"enabled": "yes"}, "pitfalls": {"maxPerFile": 3}},
        },
    ))
    await wait_for_runs(lsp_client, 1)
    yield
    await lsp_client.shutdown_session()


def pytest_collection_modifyitems(items):
    """Run the end-to-end tests (marked ``e2e``) after the unit tests, keeping their order."""
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)
