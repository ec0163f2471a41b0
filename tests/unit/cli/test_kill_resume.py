"""A killed index changes nothing: SIGKILL a real `whylens index` once its first flush is
published, resume it, and `export` (and the commit count) equal a clean index byte for byte; also
after a killed *first* index followed by a history rewrite.

The history has what made resumed runs differ: the anchorer emits one event twice when two
nested functions of one name change in one commit, and records rank their anchors by counts.
Runs flush every few milliseconds (``FAST``) so that kills land between flushes.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time

import pytest

FAST = ("import sys, whylens.pipeline as p; p.FIRST_FLUSH_SECONDS = 0.005; "
        "p.MAX_FLUSH_SECONDS = 0.02; from whylens.cli import main; sys.exit(main(sys.argv[1:]))")


def build_twin_history(repo, commits: int = 70) -> None:
    for i in range(commits):
        body = (f"def outer_{i % 5}(x):\n    def helper(y):\n        return y + {i}\n"
                f"    def helper(y):\n        return y - {i}\n    return helper(x)\n\n\n"
                f"def aaa(z):\n    return z * {i}\n")
        repo.commit(f"Fix overflow in outer_{i % 5} (#{i + 1})\n\nouter_{i % 5} raised "
                    f"OverflowError {i} when x was huge. Fixed by clamping x before helper {i} "
                    f"runs.\n\nFixes #{100 + i}\n", {f"src/m{i % 5}.py": body}, days=0)


def index(repo, target, kill_at_random: random.Random | None = None) -> str:
    """Run the indexer; with ``kill_at_random``, SIGKILL it a moment after its first flush is
    published. Returns the mode the run printed ('' when killed)."""
    command = [sys.executable, "-c", FAST, "index", "--repo", str(repo.root),
               "--index-dir", str(target)]
    if kill_at_random is None:
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (target / "CURRENT").exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    time.sleep(kill_at_random.uniform(0.0, 0.25))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return ""


def snapshot(repo, target) -> tuple[str, int]:
    common = ["--repo", str(repo.root), "--index-dir", str(target)]
    out = subprocess.run([sys.executable, "-m", "whylens", "export", *common],
                         check=True, capture_output=True, text=True).stdout
    stats = subprocess.run([sys.executable, "-m", "whylens", "stats", "--json", *common],
                           check=True, capture_output=True, text=True).stdout
    return out, json.loads(stats)["commits"]


@pytest.mark.slow
def test_killed_and_resumed_runs_export_exactly_the_clean_index(make_repo, tmp_path):
    repo = make_repo("twins")
    build_twin_history(repo)
    index(repo, tmp_path / "clean")
    expected = snapshot(repo, tmp_path / "clean")
    rng = random.Random(11)
    modes = []
    for point in range(4):
        target = tmp_path / f"killed{point}"
        index(repo, target, kill_at_random=rng)
        modes.append(index(repo, target).split(":")[0])
        assert snapshot(repo, target) == expected, f"kill point {point} ({modes[-1]})"
    assert "resumed" in modes, f"no kill landed mid-run: {modes}"


@pytest.mark.slow
def test_a_killed_first_index_then_a_rewrite_keeps_no_vanished_commit(make_repo, tmp_path):
    repo = make_repo("rewritten")
    build_twin_history(repo)
    target = tmp_path / "killed"
    index(repo, target, kill_at_random=random.Random(5))
    repo.git("reset", "-q", "--hard", "HEAD~12")  # the newest commits, indexed first, vanish
    repo.commit("A new tip after the rewrite", {"src/new.py": "def fresh():\n    return 1\n"})
    assert index(repo, target).startswith("resumed")
    index(repo, tmp_path / "clean")
    assert snapshot(repo, target) == snapshot(repo, tmp_path / "clean")
