"""Big-history behaviour of a whole run: line blame kept right by incremental runs, decision
records over sliding windows, bounded per-commit work, and an index that cannot be written."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from whylens.errors import WhyLensError
from whylens.index.store import IndexStore
from whylens.models import Commit
from whylens.pipeline import run_index
from whylens.pipeline.records import RecordWindows
from whylens.records.history import build_records

from histories import build_session_history

V1 = "def f(x):\n    a = x + 1\n    return a\n\n\ndef g():\n    return 'g'\n"


def _blame(index_dir, path: str, lines: range) -> list[str | None]:
    with IndexStore(index_dir).reader() as reader:
        return [(e.commit if (e := reader.line_blame(path, n)) else None) for n in lines]


def test_line_blame_is_written_and_kept_right_by_incremental_runs(make_repo, index_dir):
    repo = make_repo()
    c1 = repo.commit("Add f and g", {"m.py": V1})
    c2 = repo.commit("Add two instead of one", {"m.py": V1.replace("x + 1", "x + 2")})
    run_index(repo.root, index_dir)
    assert _blame(index_dir, "m.py", range(1, 8)) == [c1, c2, c1, c1, c1, c1, c1]

    # a new commit: one line changed, two lines added above the rest (which shift down)
    c3 = repo.commit("g says G", {"m.py": "# header\n\n" + V1.replace("x + 1", "x + 2").replace(
        "'g'", "'G'")})
    quotes = repo.commit("Double quotes", {"m.py": (repo.root / "m.py").read_text().replace(
        "'G'", '"G"')})  # formatting only: the line keeps c3
    summary = run_index(repo.root, index_dir)
    assert summary.mode == "incremental"
    assert _blame(index_dir, "m.py", range(1, 10)) == [c3, c3, c1, c2, c1, c1, c1, c1, c3]
    assert quotes not in _blame(index_dir, "m.py", range(1, 10))
    with IndexStore(index_dir).reader() as reader:
        entry = reader.line_blame("m.py", 4)
        assert entry is not None and entry.subject == "Add two instead of one"
        assert entry.kind == "line"
        assert reader.line_blame("m.py", 99) is None and reader.line_blame("gone.py", 1) is None


def _merge(repo, other: str, message: str) -> str:
    repo.git("-c", "user.name=Ada", "-c", "user.email=ada@example.com", "merge", "-q", "--no-ff", "--no-commit", other)
    return repo.commit(message)


def test_incremental_blame_keeps_lines_a_merged_in_branch_carries_back_past_the_last_run(
        make_repo, tmp_path):
    """A pull request branched before the indexed revision merges the mainline in, then is merged:
    its merge hands the mainline's lines down the branch to the branch point's version, older than
    the indexed revision's. They keep their blame (review12: they were unknown), as in a full run."""
    repo = make_repo()
    c1 = repo.commit("Add f and g", {"m.py": V1, "o.py": "X = 1\n"})
    repo.git("checkout", "-q", "-b", "pr")
    p1 = repo.commit("Other module", {"o.py": "X = 2\n"})
    repo.git("checkout", "-q", "main")
    c2 = repo.commit("Add two instead of one", {"m.py": V1.replace("x + 1", "x + 2")})
    incremental, full = tmp_path / "incremental", tmp_path / "full"
    run_index(repo.root, incremental)
    repo.git("checkout", "-q", "pr")
    _merge(repo, "main", "Merge main into pr")
    repo.git("checkout", "-q", "main")
    c4 = repo.commit("g says G", {"m.py": V1.replace("x + 1", "x + 2").replace("'g'", "'G'")})
    _merge(repo, "pr", "Merge pr")
    assert run_index(repo.root, incremental).mode == "incremental"
    run_index(repo.root, full)
    expected = [c1, c2, c1, c1, c1, c1, c4]
    assert _blame(full, "m.py", range(1, 8)) == expected
    assert _blame(incremental, "m.py", range(1, 8)) == expected
    assert _blame(incremental, "o.py", range(1, 2)) == [p1]


def test_records_over_windows_equal_records_over_everything(make_repo, index_dir):
    repo = make_repo()
    build_session_history(repo)
    for n in range(12):
        repo.commit(f"Fix retry {n} (#{100 + n})\n\nRetries must stop after three attempts, "
                    f"because the server bans clients that retry forever. Fixes #{n % 4 + 1}.",
                    {f"src/r{n % 3}.py": f"def retry_{n}():\n    return {n}\n"})
    run_index(repo.root, index_dir)
    with IndexStore(index_dir).reader() as reader:
        whole = {r.id: set(r.fixing_commits) for r in reader.iter_records()}
    from whylens.history.repo import open_repository
    from whylens.history.walk import walk

    with open_repository(repo.root) as opened:
        commits = list(walk(opened, "HEAD", hunks=False))
    direct = {r.id: set(r.fixing_commits) for r in build_records(commits, {})}
    assert whole == direct  # the run's windows (2,000 commits) held everything

    with IndexStore(index_dir).writer(rebuild=True) as writer:
        windows = RecordWindows(writer, None, True, window=3)
        for commit in commits:
            windows.add(commit, [])
        windows.finish()
    with IndexStore(index_dir).reader() as reader:
        small = {r.id: set(r.fixing_commits) for r in reader.iter_records()}
    assert small == direct  # windows of 3 commits: issues fixed across windows coalesce


def _run_cli(repo, index_dir, limit: int | None = None) -> subprocess.CompletedProcess:
    def cap() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "whylens", "index", "--repo", str(repo.root),
                           "--index-dir", str(index_dir), "--progress", "none"],
                          capture_output=True, text=True, preexec_fn=cap)


def test_a_full_disk_keeps_the_previous_index_and_says_so(make_repo, index_dir):
    repo = make_repo()
    build_session_history(repo)
    assert _run_cli(repo, index_dir).returncode == 0
    with IndexStore(index_dir).reader() as reader:
        before = reader.stats()["commits"]
    repo.commit("Retry on reset\n\nA reset connection must be retried once, because servers "
                "close idle sockets.", {"src/session.py": "def retry():\n    return 1\n" * 400})
    failed = _run_cli(repo, index_dir, limit=4096)  # every file may grow to 4 KiB, no more
    assert failed.returncode == 1
    assert "cannot write the index" in failed.stderr and "unchanged" in failed.stderr
    assert "Traceback" not in failed.stderr
    with IndexStore(index_dir).reader() as reader:
        assert reader.stats()["commits"] == before  # readable, as it was
    assert _run_cli(repo, index_dir).returncode == 0  # room again: it catches up


def _read_only(folder: Path, on: bool) -> bool:
    """Make ``folder`` unwritable (chattr +i as root, where permissions do not stop writes)."""
    if os.geteuid() != 0:
        for path in [folder, *folder.rglob("*")]:
            path.chmod((path.stat().st_mode & ~0o222) if on else (path.stat().st_mode | 0o200))
        return True
    done = subprocess.run(["chattr", "-R", "+i" if on else "-i", str(folder)],
                          capture_output=True)
    return done.returncode == 0


def test_a_read_only_index_folder_gives_a_clear_message(make_repo, index_dir):
    repo = make_repo()
    build_session_history(repo)
    assert _run_cli(repo, index_dir).returncode == 0
    repo.commit("Add a timeout\n\nThe default timeout must be finite, because a stalled server "
                "would hang the client forever.", {"src/t.py": "TIMEOUT = 30\n"})
    if not _read_only(index_dir, True):
        pytest.skip("this file system cannot make a folder read-only (chattr)")
    try:
        failed = _run_cli(repo, index_dir)
        assert failed.returncode == 1
        assert "cannot write the index" in failed.stderr and "Traceback" not in failed.stderr
        try:  # reading a read-only index either works or fails with a message, never a crash
            with IndexStore(index_dir).reader() as reader:
                reader.stats()
        except WhyLensError:
            pass
    finally:
        _read_only(index_dir, False)


def test_no_list_of_every_commit_is_kept(make_repo, index_dir, monkeypatch):
    """Memory is bounded: the run keeps a window of commits for the records, never all."""
    repo = make_repo()
    for n in range(30):
        repo.commit(f"Change {n}\n\nThe value must be {n}, because the spec says so.",
                    {"v.py": f"def value():\n    return {n}\n"})
    held: list[int] = []
    original = RecordWindows.add

    def add(self, commit: Commit, events) -> None:
        original(self, commit, events)
        held.append(len(self._commits))

    monkeypatch.setattr("whylens.pipeline.records.WINDOW_COMMITS", 5)
    monkeypatch.setattr(RecordWindows, "add", add)
    run_index(repo.root, index_dir)
    assert max(held) < 10  # two windows at most
