"""A missing index is built by a child `whylens index` (never in the server, never in the
repository), new commits are picked up, and a folder that is no repository is said so."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest

from mcp_server.mcp_helpers import (
    RawServer, SEND_LINE, build_session_history, init_repo, mcp_session, text_of,
)
from mcp_server.test_mcp_protocol import _processes_mentioning

from e2e_history import NEW_COMMIT_SUBJECT, commit_new


def _tree_state(root):
    """Every file of the repository (work tree and .git) with its size and mtime."""
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def _is_indexing(result) -> bool:
    data = result.structured_content or {}
    return bool(data.get("abstained") and "indexing" in data)


def test_a_missing_index_is_built_then_new_commits_are_followed(tmp_path):
    repo = init_repo(tmp_path / "fresh")
    build_session_history(repo)
    index = tmp_path / "cache" / "index"
    before = _tree_state(repo.root)
    args = ["--repo", str(repo.root), "--index-dir", str(index)]
    why_send = {"path": "src/session.py", "line": SEND_LINE}
    with mcp_session(args, tmp_path / "stderr.txt") as session:
        first = session.call("why", why_send)
        assert not first.is_error and _is_indexing(first)
        assert "indexing the history of fresh" in text_of(first) and "Try again" in text_of(first)
        assert {"phase", "done", "total"} <= set(first.structured_content["indexing"])
        answered = session.until("why", why_send, lambda r: not _is_indexing(r))
        assert answered.structured_content["known"], text_of(answered)
        assert _tree_state(repo.root) == before  # nothing written into the repository
        assert index.is_dir()

        sha = commit_new(repo)  # HEAD moves: the server updates its index in a child again
        why_close = {"path": "src/session.py", "symbol": "Session.close"}
        updated = session.until("why", why_close, lambda r: sha in str(r.structured_content))
        subjects = [e["subject"] for e in updated.structured_content["history"]]
        assert NEW_COMMIT_SUBJECT in subjects
        assert "Traceback" not in session.stderr()


def test_without_auto_index_the_tool_says_how_to_build_it(tmp_path):
    repo = init_repo(tmp_path / "fresh")
    build_session_history(repo)
    index = tmp_path / "index"
    args = ["--repo", str(repo.root), "--index-dir", str(index), "--no-auto-index"]
    with mcp_session(args, tmp_path / "stderr.txt") as session:
        result = session.call("search", {"query": "deadlock"})
        assert result.is_error
        assert f"whylens index --repo {repo.root} --index-dir {index}" in text_of(result)
    assert not index.exists()


def test_a_folder_that_is_not_a_git_repository(tmp_path):
    plain = tmp_path / "notes"
    plain.mkdir()
    (plain / "a.py").write_text("x = 1\n")
    args = ["--repo", str(plain), "--index-dir", str(tmp_path / "index")]
    with mcp_session(args, tmp_path / "stderr.txt") as session:
        assert len(session.tools()) == 4  # the server starts; each tool explains
        for name, arguments in [("why", {"path": "a.py"}), ("search", {"query": "x"}),
                                ("explain_error", {"text": "KeyError: 'x'"}),
                                ("review_diff", {})]:
            result = session.call(name, arguments)
            assert result.is_error and "not inside a git repository" in text_of(result), name
        assert "not inside a git repository" in session.stderr()
    assert not (tmp_path / "index").exists()


def test_a_repository_without_commits_reports_the_failed_run(tmp_path):
    repo = init_repo(tmp_path / "empty")
    args = ["--repo", str(repo.root), "--index-dir", str(tmp_path / "index")]
    with mcp_session(args, tmp_path / "stderr.txt") as session:
        result = session.until("why", {"path": "a.py"}, lambda r: r.is_error)
        assert "indexing" in text_of(result) and "no commits yet" in text_of(result)
        again = session.call("search", {"query": "anything"})  # not retried until HEAD moves
        assert again.is_error and "no commits yet" in text_of(again)


@pytest.mark.parametrize("how", ["close stdin", "SIGTERM"])
def test_a_client_that_leaves_while_indexing_takes_the_child_along(tmp_path, how):
    repo = init_repo(tmp_path / "fresh")
    build_session_history(repo)
    index = tmp_path / "index"
    server = RawServer(["--repo", str(repo.root), "--index-dir", str(index)])
    server.initialize()
    server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": "why", "arguments": {"path": "src/session.py"}}})
    answer = server.response(1)["result"]
    assert "indexing" in answer["structuredContent"]
    if how == "SIGTERM":
        server.proc.send_signal(signal.SIGTERM)
    code, stderr = server.close()
    assert code == 0 and "Traceback" not in stderr
    deadline = time.monotonic() + 5
    while _processes_mentioning(str(index)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _processes_mentioning(str(index))
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo.root, capture_output=True,
                            text=True, check=True)
    assert status.stdout == ""
