"""The server, its child indexer and its review child run no program the repository configures
(filters, fsmonitor, textconv, external diff, pager, hooks, helpers: ``hostile.py``), and no
``whylens`` package in the repository shadows WhyLens's own in the children."""

from __future__ import annotations

import os
import sys

import pytest

from e2e_history import build
from raw_client import RawClient

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "unit"))
from hostile import arm_repository_programs, write_attributes  # noqa: E402

pytestmark = [pytest.mark.e2e]


async def test_serve_index_and_review_run_no_repository_program(make_repo, tmp_path):
    repo = make_repo("project")
    write_attributes(repo)
    shas = build(repo)
    marker = tmp_path / "marker"
    arm_repository_programs(repo, marker)
    shadow = repo.root / "whylens"  # a package that would shadow WhyLens's own in `-m whylens`
    shadow.mkdir()
    for name in ("__init__.py", "__main__.py"):
        (shadow / name).write_text(f"open({str(marker)!r}, 'a').write('shadow {name}')\n")
    session = repo.root / "src" / "session.py"
    session.write_text(session.read_text() + "\n# edited\n")  # a work-tree change to review
    client, status = await RawClient.indexed(repo.root, tmp_path / "index")
    try:
        assert status["state"] == "idle", status
        review = await client.request("whylens/prSuggestions", {"base": shas["deadlock"]},
                                      timeout=120)
        assert review is not None and isinstance(review.result["suggestions"], list)
        search = await client.request("whylens/search", {"query": "deadlock pool exhausted"})
        assert search is not None and search.result is not None
        assert not marker.exists(), marker.read_text()
    finally:
        assert await client.stop() == 0
