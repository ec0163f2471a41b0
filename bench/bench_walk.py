"""history.walk() on a real repository, next to the git floors, measured in the same run.

    python bench/bench_walk.py /path/to/repo-or-bare.git [--runs 5]

Prints the floors `git log --format=… --name-status -M` and `git log -p -U0 -M` (output
discarded), then walk() consuming every commit with hunks and without: best wall time of
--runs (measurements interleaved), commits/s, the ratio to the `git log -p` floor, and the CPU
seconds spent (git + Python), which do not depend on how busy the machine is. Read-only on
the repository.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import time

from whylens.history.repo import open_repository
from whylens.history.walk import walk

NAME_STATUS = "git log --format=… --name-status -M"
PATCH = "git log -p -U0 -M"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def git_floor(repo: str, *args: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one git log with its output discarded."""
    cpu, start = children_cpu(), time.perf_counter()
    with open(os.devnull, "wb") as sink:
        subprocess.run(["git", "-C", repo, "log", *args], stdout=sink, check=True)
    return time.perf_counter() - start, children_cpu() - cpu


def walk_once(repo: str, hunks: bool, counts: dict) -> tuple[float, float]:
    """(wall, CPU of git + this process) for one full walk; fills ``counts``."""
    cpu, own, start = children_cpu(), time.process_time(), time.perf_counter()
    commits = changes = ranges = 0
    with open_repository(repo) as handle:
        for commit in walk(handle, "HEAD", hunks=hunks):
            commits += 1
            changes += len(commit.changes)
            ranges += sum(len(c.hunks) for c in commit.changes)
    wall = time.perf_counter() - start
    counts[hunks] = (commits, changes, ranges)
    return wall, (children_cpu() - cpu) + (time.process_time() - own)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--runs", type=int, default=5, help="runs of each measurement (best)")
    args = parser.parse_args()
    repo, runs = args.repo, max(1, args.runs)
    total = int(subprocess.check_output(["git", "-C", repo, "rev-list", "--count", "HEAD"]))

    counts: dict = {}
    measures = {
        NAME_STATUS: lambda: git_floor(repo, "--format=%H%x00%aN%x00%aI%x00%s%x00%b",
                                       "--name-status", "-M"),
        PATCH: lambda: git_floor(repo, "-p", "-U0", "-M"),
        "walk(hunks=True)": lambda: walk_once(repo, True, counts),
        "walk(hunks=False)": lambda: walk_once(repo, False, counts),
    }
    best: dict[str, tuple[float, float]] = {}
    for _ in range(runs):  # interleaved, so load on the machine hits each measure alike
        for name, measure in measures.items():
            wall, cpu = measure()
            old = best.get(name)
            best[name] = (min(wall, old[0]), min(cpu, old[1])) if old else (wall, cpu)

    floor_wall, floor_cpu = best[PATCH]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"repository: {repo}  ({total} commits from HEAD; best of {runs} interleaved runs; "
          f"{os.cpu_count()} CPUs, load average {load:.2f})")
    print(f"{'measure':38} {'wall s':>7} {'commits/s':>10} {'× -p wall':>10} "
          f"{'CPU s':>7} {'× -p CPU':>9}")
    for name, (wall, cpu) in best.items():
        print(f"{name:38} {wall:7.3f} {total / wall:10.0f} {wall / floor_wall:10.2f} "
              f"{cpu:7.3f} {cpu / floor_cpu:9.2f}")
    commits, changes, ranges = counts[True]
    print(f"walk yielded {commits} commits, {changes} file changes, {ranges} hunks; "
          f"walk(hunks=False) is {best['walk(hunks=False)'][0] / best[NAME_STATUS][0]:.2f}× "
          "the --name-status floor (wall)")


if __name__ == "__main__":
    main()
