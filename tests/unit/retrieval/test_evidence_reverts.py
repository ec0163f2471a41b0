"""A revert that was itself reverted no longer counts: every surface agrees on the outcome."""

from __future__ import annotations

from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.evidence import record_outcome, revert_check

BASE = "def fetch(url):\n    return get(url)\n"
FIXED = "def fetch(url):\n    return get(url, timeout=5)\n"


def test_reverted_then_restored_work_is_landed(make_repo, index_dir):
    repo = make_repo()
    repo.commit("Add fetch", {"net.py": BASE})
    fix = repo.commit("Give fetch a timeout (#5)\n\nA request without a timeout hangs forever "
                      "when the server stalls, because the socket waits indefinitely.",
                      {"net.py": FIXED})
    revert = repo.commit(f'Revert "Give fetch a timeout (#5)"\n\nThis reverts commit {fix}.',
                         {"net.py": BASE})
    run_index(repo.root, index_dir)
    reader = IndexStore(index_dir).reader()
    try:
        record = reader.record("pr-5")
        assert record is not None and fix in record.fixing_commits
        assert revert_check(reader)(fix) is True
        assert record_outcome(reader, record) == "reverted"
    finally:
        reader.close()

    repo.commit(f'Revert "Revert "Give fetch a timeout (#5)""\n\nThis reverts commit {revert}.',
                {"net.py": FIXED})
    run_index(repo.root, index_dir)
    reader = IndexStore(index_dir).reader()
    try:
        assert revert_check(reader)(fix) is False
        assert record_outcome(reader, reader.record("pr-5")) == "landed"
    finally:
        reader.close()
