"""Indexing a repository that lacks objects: nothing readable is lost, nothing is fetched."""

from __future__ import annotations

import json

import pytest

from whylens.cli import main
from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.search import search
from whylens.retrieval.why import why

from histories import (
    RETRY_V4,
    build_missing_blob_history,
    build_session_history,
    promisor_clone,
)

WORKER, IN_PROCESS = 1, 10**9  # anchor_worker_min_commits forcing either path


def _line(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize("worker", [IN_PROCESS, WORKER])
def test_a_missing_blob_costs_only_what_it_held(make_repo, index_dir, worker):
    repo = make_repo()
    shas, _ = build_missing_blob_history(repo)
    summary = run_index(repo.root, index_dir, anchor_worker_min_commits=worker)
    assert summary.commits_indexed == 4
    assert (summary.commits_missing_objects, summary.partial_clone) == (2, False)
    reader = IndexStore(index_dir).reader()
    try:
        events = {(e.commit, e.symbol, e.kind) for e in
                  (e for sha in shas.values() for e in reader.events_of(sha))}
        # before and after the lost blob: from git's hunks; "move" and "add", which git could
        # not diff: from the blobs that are there (src/retry.py), compared here
        assert (shas["reset"], "retry", "body") in events
        assert (shas["cap"], "backoff", "body") in events
        assert (shas["move"], "retry", "signature") in events
        assert {(shas["add"], "backoff", "added"), (shas["add"], "retry", "added")} <= events
        assert reader.stats()["commits_missing_objects"] == 2
        hit = search(reader, "server resets the connection ConnectionResetError", k=3).hits[0]
        assert hit.commit == shas["reset"]
        moved = search(reader, "lookup table read as CSV", k=3).hits[0]
        assert moved.commit == shas["move"] and "assets/table.csv" in moved.files
        story = why(reader, "src/retry.py", symbol="retry", repo_root=repo.root)
        assert [e.commit for e in story.changes] == [shas["reset"], shas["move"], shas["add"]]
        assert reader.line_blame("src/retry.py", _line(RETRY_V4, "except")).commit == \
            shas["reset"]
        assert reader.line_blame("src/retry.py", _line(RETRY_V4, "def retry")).commit == \
            shas["move"]
    finally:
        reader.close()


def test_the_cli_says_it_once(make_repo, index_dir, capsys):
    repo = make_repo()
    build_missing_blob_history(repo)
    assert main(["index", "--repo", str(repo.root), "--index-dir", str(index_dir)]) == 0
    out = capsys.readouterr().out
    notes = [line for line in out.splitlines() if "missing" in line]
    assert len(notes) == 1
    assert notes[0].startswith("note: 2 commit(s) are indexed at file level or less")
    assert "partial clone" not in notes[0]
    assert main(["stats", "--repo", str(repo.root), "--index-dir", str(index_dir),
                 "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["commits_missing_objects"] == 2 and stats["partial_clone"] is False


def _index_without_fetching(clone, tmp_path, monkeypatch, worker=IN_PROCESS):
    """``run_index`` on ``clone`` with a git trace of every process WhyLens starts (the worker's
    too); asserts that none started a fetch and that no object came."""
    trace = tmp_path / "git-trace.txt"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    packs = sorted(p.name for p in (clone / ".git" / "objects" / "pack").iterdir())
    summary = run_index(clone, tmp_path / "index", anchor_worker_min_commits=worker)
    assert [line for line in trace.read_text().splitlines() if "fetch" in line] == []
    assert sorted(p.name for p in (clone / ".git" / "objects" / "pack").iterdir()) == packs
    return summary


@pytest.mark.parametrize("worker", [IN_PROCESS, WORKER])
def test_a_partial_clone_is_indexed_without_fetching(make_repo, tmp_path, monkeypatch, worker):
    source = make_repo("source")
    shas = build_session_history(source)
    clone, _ = promisor_clone(source.root, tmp_path)
    user_config = tmp_path / "user.gitconfig"  # a user who lets git fetch over file://
    user_config.write_text('[protocol "file"]\n\tallow = always\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(user_config))
    summary = _index_without_fetching(clone, tmp_path, monkeypatch, worker)
    assert summary.commits_indexed == 4 and summary.partial_clone
    # only the checked-out version of src/session.py is there: every commit that changed it
    # needs one the clone lacks (its file history stays, its symbol events do not)
    assert summary.commits_missing_objects == 4 and summary.events == 0
    reader = IndexStore(tmp_path / "index").reader()
    try:
        hit = search(reader, "deadlock connection pool exhausted", k=5).hits[0]
        assert hit.commit == shas["deadlock"] and "src/session.py" in hit.files
        assert [e.commit for e in reader.file_history("src/session.py")] == \
            [shas[k] for k in ("timeout", "deadlock", "add")]  # "formatting" is filtered
        assert reader.stats()["partial_clone"] is True
    finally:
        reader.close()


def test_a_clone_without_trees_keeps_every_message(make_repo, tmp_path, monkeypatch):
    source = make_repo("source")
    shas = build_session_history(source)
    source.git("checkout", "-q", "-b", "side", shas["deadlock"])
    source.commit("Document the pool", {"docs/pool.md": "The pool blocks.\n"})
    source.git("checkout", "-q", "main")
    source.git("merge", "-q", "--no-edit", "side", env={
        "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "A",
        "GIT_COMMITTER_EMAIL": "a@x"})
    clone, _ = promisor_clone(source.root, tmp_path, "--filter=tree:0")
    summary = _index_without_fetching(clone, tmp_path, monkeypatch)
    assert summary.commits_indexed == 6 and summary.partial_clone
    assert summary.commits_missing_objects >= 1
    reader = IndexStore(tmp_path / "index").reader()
    try:
        hit = search(reader, "deadlock connection pool exhausted", k=5).hits[0]
        assert hit.commit == shas["deadlock"]
    finally:
        reader.close()


PARSER = "def parse(text):\n    return text.split()\n\n\ndef tokens(text):\n    return len(parse(text))\n"


def test_a_blob_limit_clone_keeps_gits_patches(make_repo, tmp_path, monkeypatch):
    source = make_repo("source")
    shas = {"add": source.commit("Add the parser and its fixture",
                                 {"src/parse.py": PARSER, "assets/fixture.txt": "row\n" * 800})}
    shas["move"] = source.commit("Move the parser into the package and split on commas", {
        "src/parse.py": None, "pkg/parse.py": PARSER.replace("text.split()", "text.split(',')")})
    shas["grow"] = source.commit("Grow the fixture", {"assets/fixture.txt": "row\n" * 900})
    clone, _ = promisor_clone(source.root, tmp_path, "--filter=blob:limit=1k")
    summary = _index_without_fetching(clone, tmp_path, monkeypatch)
    assert summary.commits_indexed == 3 and summary.partial_clone
    assert summary.commits_missing_objects == 2  # "add" and "grow" need the first fixture
    reader = IndexStore(tmp_path / "index").reader()
    try:
        # git's patch saw the edited rename: one changed function, nothing moved
        assert [(e.path, e.symbol, e.kind) for e in reader.events_of(shas["move"])] == [
            ("pkg/parse.py", "parse", "body")]
    finally:
        reader.close()
