"""A local edit of a file history keeps as a copy of another project (``review_vendored``,
recall31): requests' vendored urllib3 edits, undone by a revert or the next sync."""

from __future__ import annotations

import json

from whylens.cli import main
from whylens.pipeline import run_index

POOL = "requests/packages/urllib3/pool.py"


def _pool(version: str, timeout: str = "%f") -> str:
    return ('"""urllib3 connection pool."""\n\n'
            f"__version__ = {version!r}\n\n\n"
            "class Pool(object):\n"
            "    def __init__(self, size=10):\n"
            "        self.size = size\n\n"
            "    def urlopen(self, url, timeout=None):\n"
            "        if timeout is not None and timeout < 0:\n"
            f'            raise ValueError("bad timeout %s" % {timeout!r})\n'
            "        return self.size\n")


def _models(extra: str = "") -> str:
    return ("class Request(object):\n"
            "    def send(self, pool):\n"
            f"        return pool.urlopen(self.url){extra}\n")


def _history(repo) -> str:
    """A product file and a copy of urllib3 brought in and updated twice from upstream (with a
    body: "Update urllib3 to 1.1" alone is a trivial commit, which file history leaves out);
    one local edit of the copy, reverted. Returns the base of the change to review."""
    repo.commit("Add the request model\n", {"requests/models.py": _models()}, days=60)
    repo.commit("Import urllib3\n", {POOL: _pool("1.0")}, days=50)
    repo.commit("Update urllib3 to 1.1\n\nFrom upstream 5f1a2b3.\n", {POOL: _pool("1.1")}, days=30)
    local = repo.commit("fix urllib3 timeout message\n", {POOL: _pool("1.1", "%s")}, days=5)
    repo.commit(f'Revert "fix urllib3 timeout message"\n\nThis reverts commit {local}.\n',
                {POOL: _pool("1.1")}, days=1)
    repo.commit("Update urllib3 to 1.2\n\nFrom upstream 8c9d0e1.\n", {POOL: _pool("1.2")}, days=20)
    repo.commit("Send through the pool\n", {"requests/models.py": _models(" or None")}, days=3)
    return repo.git("rev-parse", "HEAD").strip()


def _review(repo, index_dir, capsys, base: str) -> list[dict]:
    head = repo.git("rev-parse", "HEAD").strip()
    common = ["--repo", str(repo.root), "--index-dir", str(index_dir)]
    assert main(["pr-comments", *common, "--base", base, "--head", head, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["suggestions"]


def test_a_local_edit_of_a_vendored_copy_is_told_to_go_upstream(make_repo, index_dir, capsys):
    repo = make_repo("vendored")
    base = _history(repo)
    run_index(repo.root, index_dir)
    repo.commit("Fix SSL error on old Ubuntu\n", {POOL: _pool("1.2").replace("< 0", "<= 0")}, days=1)
    found = [s for s in _review(repo, index_dir, capsys, base) if s["kind"] == "vendored-edit"]
    assert len(found) == 1, found
    body = found[0]["body"]
    assert "copy of `urllib3`" in body and "3 of its changes were syncs" in body
    assert "Update urllib3 to 1.2" in body and "was reverted" in body
    assert found[0]["confidence"] >= 0.55  # at the gate


def test_a_sync_and_a_product_change_get_no_vendored_comment(make_repo, index_dir, capsys):
    repo = make_repo("vendored-sync")
    base = _history(repo)
    run_index(repo.root, index_dir)
    repo.commit("Update urllib3 to 1.3\n\nFrom upstream 9a8b7c6.\n",
                {POOL: _pool("1.3").replace("< 0", "<= 0")}, days=1)
    assert not [s for s in _review(repo, index_dir, capsys, base) if s["kind"] == "vendored-edit"]
    base = repo.git("rev-parse", "HEAD").strip()
    repo.commit("Return the status\n", {"requests/models.py": _models(" or 200")}, days=1)
    assert not [s for s in _review(repo, index_dir, capsys, base) if s["kind"] == "vendored-edit"]


def test_sync_subjects():
    from whylens.retrieval.review_vendored import copied_from, is_sync

    assert is_sync("Update urllib3 to d89d508", "urllib3")
    assert is_sync("upstream urllib3", "urllib3")
    assert is_sync("urllib3 v1.2.2", "urllib3")
    assert not is_sync("fix urllib3 bug", "urllib3")
    assert not is_sync("Update urllib3-docs link", "urllib3")
    assert copied_from("tests/packages/urllib3/test_pool.py", []) is None
