"""A repository with the pool history, indexed once per test by the real pipeline."""

from __future__ import annotations

import pytest

from whylens.index.store import IndexStore
from whylens.pipeline import run_index

from retrieval.pool_history import build_pool_history


@pytest.fixture
def pool_repo(make_repo, index_dir):
    """(repo, shas, reader) over an index of the pool history."""
    repo = make_repo("pool")
    shas = build_pool_history(repo)
    run_index(repo.root, index_dir)
    reader = IndexStore(index_dir).reader()
    try:
        yield repo, shas, reader
    finally:
        reader.close()
