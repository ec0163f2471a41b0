"""The real `whylens mcp` over stdio, driven by the SDK's own client, on repositories built here.

Tests are plain functions: the client lives on an event loop in a background thread (an anyio
blocking portal), so one server serves a whole module.
"""

from __future__ import annotations

import pytest

from mcp_server.mcp_helpers import POOL_CHANGE, Project, build_project, mcp_session


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Project:
    return build_project(tmp_path_factory.mktemp("mcp"))


@pytest.fixture(scope="module")
def served(project, tmp_path_factory):
    """One server on the indexed project, with uncommitted work in src/pool.py."""
    (project.repo.root / "src" / "pool.py").write_text(POOL_CHANGE)
    with mcp_session(project.args, tmp_path_factory.mktemp("log") / "stderr.txt") as session:
        yield session


