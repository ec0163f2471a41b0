"""No program from the repository runs: every command on a repository whose .git/config points
filters, fsmonitor, textconv, external diff, pager, hooks and helpers at a marker script."""

from __future__ import annotations

import io
import os

import pytest

from hostile import arm_repository_programs, write_attributes
from histories import SESSION_V4, build_session_history
from whylens import gitcli
from whylens.cli import main
from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository


@pytest.fixture
def armed(make_repo, tmp_path):
    repo = make_repo("armed")
    write_attributes(repo)
    repo.write("notes.txt", "notes\n")
    shas = build_session_history(repo)
    marker = tmp_path / "marker"
    arm_repository_programs(repo, marker)
    # the work tree differs from HEAD: content changed, and a file whose stat data alone changed
    repo.write("src/session.py", SESSION_V4 + "\n# edited\n")
    os.utime(repo.root / "notes.txt", (1, 1))
    repo.write("new_file.py", "def added():\n    return 1\n")
    return repo, shas, marker


def _ran(marker) -> str:
    return marker.read_text() if marker.exists() else ""


def test_the_armed_repository_really_runs_its_programs(armed):
    """The check can fail: plain git on this repository runs the filter and fsmonitor."""
    import subprocess

    repo, _, marker = armed
    subprocess.run(["git", "diff-index", "-p", "HEAD", "--"], cwd=repo.root, capture_output=True,
                   env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    assert "fsmonitor" in _ran(marker) and ("clean" in _ran(marker) or "process" in _ran(marker))


def test_every_command_runs_none_of_them(armed, index_dir, monkeypatch, capsys):
    repo, shas, marker = armed
    common = ["--repo", str(repo.root), "--index-dir", str(index_dir)]
    assert main(["index", *common]) == 0
    assert main(["why", "src/session.py", "--symbol", "Session.send", *common]) == 0
    assert main(["search", "deadlock pool", *common]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("Session.send deadlock: the pool is exhausted"))
    assert main(["explain-error", *common]) == 0
    for fmt in ("markdown", "json", "github", "sarif"):
        assert main(["pr-comments", *common, "--base", shas["add"], "--format", fmt]) == 0
    assert main(["pr-comments", *common, "--base", shas["add"], "--head", "HEAD"]) == 0
    assert main(["export", *common]) == 0
    with open_repository(repo.root) as opened:
        changes = {c.path for c in diff_changes(opened, shas["add"])}
        opened.git("show", "HEAD")
        opened.git("log", "-p", "-1")
    assert {"src/session.py", "new_file.py"} <= changes and "notes.txt" not in changes
    capsys.readouterr()
    assert _ran(marker) == ""


def test_the_repository_keys_are_found_and_emptied(armed):
    repo, _, _ = armed
    keys = gitcli.repository_settings("git", str(repo.root / ".git"), str(repo.root))
    assert {"filter.x.clean", "filter.x.smudge", "filter.x.required", "diff.x.textconv",
            "diff.x.command", "filter.y.process", "filter.y.required"} <= set(keys)
    argv = gitcli.command("git", "status", neutralised=keys)
    assert argv[:2] == ["git", "--no-pager"]
    assert "filter.x.clean=" in argv and "filter.y.required=false" in argv
    assert "diff.x.textconv=cat" in argv and "diff.x.command=" in argv
    assert "core.fsmonitor=false" in argv and f"core.hooksPath={os.devnull}" in argv


def test_global_filters_stay_the_users(tmp_path):
    raw = b"global\0filter.lfs.clean\0local\0filter.x.clean\0worktree\0diff.y.textconv\0"
    assert gitcli.parse_scoped_list(raw) == ["filter.x.clean", "diff.y.textconv"]
