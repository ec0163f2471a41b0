"""history.walk() on a real repository, next to the git floors, measured in the same run.

    python bench/bench_walk.py /path/to/repo-or-bare.git [--runs 3]

Prints the floors `git log --format=… --name-status -M` and `git log -p -U0 -M` (output
discarded), then walk() consuming every commit with hunks and without (best of --runs each),
as seconds, commits/s and the ratio to the `git log -p` floor. Read-only on the repository.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time

from whylens.history.repo import open_repository
from whylens.history.walk import walk


def git_floor(repo: str, *args: str) -> float:
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        subprocess.run(["git", "-C", repo, "log", *args], stdout=sink, check=True)
    return time.perf_counter() - start


def walk_time(repo: str, hunks: bool) -> tuple[float, int, int, int]:
    """(seconds, commits, file changes, hunks) for one full walk."""
    start = time.perf_counter()
    commits = changes = ranges = 0
    with open_repository(repo) as handle:
        for commit in walk(handle, "HEAD", hunks=hunks):
            commits += 1
            changes += len(commit.changes)
            ranges += sum(len(c.hunks) for c in commit.changes)
    return time.perf_counter() - start, commits, changes, ranges


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--runs", type=int, default=3, help="runs of each measurement (best)")
    args = parser.parse_args()
    repo, runs = args.repo, max(1, args.runs)
    total = int(subprocess.check_output(["git", "-C", repo, "rev-list", "--count", "HEAD"]))

    rows: list[tuple[str, float]] = []
    # Interleave the measurements so load on the machine hits each of them alike.
    best: dict[str, float] = {}
    counts: dict[str, tuple[int, int, int]] = {}
    for _ in range(runs):
        for name, measure in (
            ("git log --format=… --name-status -M",
             lambda: git_floor(repo, "--format=%H%x00%aN%x00%aI%x00%s%x00%b",
                               "--name-status", "-M")),
            ("git log -p -U0 -M", lambda: git_floor(repo, "-p", "-U0", "-M")),
            ("walk(hunks=True)", lambda: _walk(repo, True, counts)),
            ("walk(hunks=False)", lambda: _walk(repo, False, counts)),
        ):
            seconds = measure()
            best[name] = min(seconds, best.get(name, seconds))
    rows = list(best.items())

    floor = best["git log -p -U0 -M"]
    name_status = best["git log --format=… --name-status -M"]
    print(f"repository: {repo}  ({total} commits reachable from HEAD; best of {runs} runs)")
    print(f"{'measure':40} {'seconds':>8} {'commits/s':>10} {'× -p floor':>11}")
    for name, seconds in rows:
        print(f"{name:40} {seconds:8.3f} {total / seconds:10.0f} {seconds / floor:11.2f}")
    commits, changes, ranges = counts["walk(hunks=True)"]
    print(f"walk yielded {commits} commits, {changes} file changes, {ranges} hunks; "
          f"walk(hunks=False) is {best['walk(hunks=False)'] / name_status:.2f}× the "
          "--name-status floor")


def _walk(repo: str, hunks: bool, counts: dict) -> float:
    seconds, *found = walk_time(repo, hunks)
    counts[f"walk(hunks={hunks})"] = tuple(found)
    return seconds


if __name__ == "__main__":
    main()
