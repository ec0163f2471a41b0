"""The pipeline end to end on real repositories: modes, counters, rebuilds, what gets indexed."""

from __future__ import annotations

from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.search import search

from histories import SESSION_V1, build_session_history


def _reader(index_dir):
    return IndexStore(index_dir).reader()


def test_full_then_up_to_date_then_incremental(make_repo, index_dir):
    repo = make_repo()
    shas = build_session_history(repo)

    first = run_index(repo.root, index_dir)
    assert first.mode == "full"
    assert first.commits_indexed == 4
    assert first.filtered["trivial"] == 1  # "formatting" yields no knowledge
    assert first.units > 0

    again = run_index(repo.root, index_dir)
    assert again.mode == "up-to-date" and again.commits_indexed == 0

    repo.commit("Document why close must be idempotent\n\nclose() must be safe to call twice, "
                "because the pool calls it again on shutdown.", {"NOTES.md": "close twice\n"})
    repo.commit("wip", {"NOTES.md": "close twice!\n"})
    third = run_index(repo.root, index_dir)
    assert third.mode == "incremental"
    assert third.commits_total == 2 and third.commits_indexed == 2  # cost ∝ new commits

    reader = _reader(index_dir)
    try:
        assert reader.meta["last_sha"] == repo.shas[-1]
        assert reader.has_commit(shas["add"]) and reader.has_commit(repo.shas[-1])
        history = reader.symbol_history("Session.send", "src/session.py")
        commits = [entry.commit for entry in history]
        assert shas["deadlock"] in commits and shas["timeout"] in commits
        assert shas["format"] not in commits  # whitespace-only: not an event
    finally:
        reader.close()


def test_search_finds_the_unit_with_full_provenance(make_repo, index_dir):
    repo = make_repo()
    shas = build_session_history(repo)
    run_index(repo.root, index_dir)
    reader = _reader(index_dir)
    try:
        result = search(reader, "deadlock connection pool exhausted", k=5)
        assert not result.abstained
        top = result.hits[0]
        assert top.commit == shas["deadlock"] and len(top.commit) == 40
        assert top.author == "Grace Hopper"
        assert "src/session.py" in top.files
        assert "Session.send" in top.symbols
        nonsense = search(reader, "kubernetes helm chart ingress annotations", k=5)
        assert nonsense.abstained and nonsense.hits == []
    finally:
        reader.close()


def test_force_push_rebuilds_and_drops_vanished_commits(make_repo, index_dir):
    repo = make_repo()
    shas = build_session_history(repo)
    run_index(repo.root, index_dir)

    repo.git("reset", "-q", "--hard", shas["add"])  # the deadlock fix leaves the history
    repo.commit("Retry sends on connection reset\n\nA reset connection fails with "
                "ConnectionResetError when the server restarts; retry once instead of failing.",
                {"src/session.py": SESSION_V1.replace("request)", "request, retries=1)", 1)})
    summary = run_index(repo.root, index_dir)
    assert summary.mode == "full"
    reader = _reader(index_dir)
    try:
        assert not reader.has_commit(shas["deadlock"])
        units = list(reader.iter_units())
        assert all(unit.commit != shas["deadlock"] for unit in units)
        assert any("ConnectionResetError" in unit.content for unit in units)
    finally:
        reader.close()


def test_index_lives_outside_the_repository_and_changes_nothing(make_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo = make_repo()
    build_session_history(repo)
    before = repo.git("status", "--porcelain", "--ignored")
    config_before = (repo.root / ".git" / "config").read_bytes()
    summary = run_index(repo.root)
    assert str(tmp_path / "cache") in summary.index_dir
    assert not summary.index_dir.startswith(str(repo.root))
    assert repo.git("status", "--porcelain", "--ignored") == before
    assert (repo.root / ".git" / "config").read_bytes() == config_before
