"""Full and incremental `whylens index` on a real repository, next to the git floors.

    python bench/bench_index.py /path/to/repo-or-bare.git [--runs 3]

Prints, from the same run: the floors `git log --name-status -M` and `git log -p -U0 -M`
(output discarded), a full `whylens index` (wall time, commits/s, ratio to the `git log -p`
floor, peak RSS of the indexer), the units by type per 1,000 commits, records and symbol events,
an incremental run after no change, and the index size. Nothing is written into the repository;
indexes go to a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str], cwd: str | None = None) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr.decode(errors='replace')}")
    return elapsed, proc


def git_floor(repo: str, *args: str) -> float:
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        subprocess.run(["git", "-C", repo, "log", *args], stdout=sink, check=True)
    return time.perf_counter() - start


def child_peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--runs", type=int, default=3, help="full-index runs (min and median)")
    args = parser.parse_args()
    repo = args.repo
    commits = int(subprocess.check_output(["git", "-C", repo, "rev-list", "--count", "HEAD"]))
    whylens = [sys.executable, "-m", "whylens"]

    floors = {
        "git log --name-status -M": min(git_floor(repo, "--format=%H%x00%an%x00%aI%x00%s%x00%b",
                                                  "--name-status", "-M") for _ in range(3)),
        "git log -p -U0 -M": min(git_floor(repo, "-p", "-U0", "-M") for _ in range(3)),
    }
    work = Path(tempfile.mkdtemp(prefix="whylens-bench-"))
    fulls, summary = [], {}
    try:
        for run in range(args.runs):
            target = work / f"full{run}"
            seconds, proc = timed([*whylens, "index", "--repo", repo, "--index-dir", str(target),
                                   "--json", "--progress", "none"])
            fulls.append(seconds)
            summary = json.loads(proc.stdout)
        peak = child_peak_rss_mb()
        inc_seconds, _ = timed([*whylens, "index", "--repo", repo, "--index-dir",
                                str(work / "full0"), "--json", "--progress", "none"])
        _, stats_proc = timed([*whylens, "stats", "--repo", repo, "--index-dir",
                               str(work / "full0"), "--json"])
        stats = json.loads(stats_proc.stdout)
        size = folder_size(work / "full0")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    floor = floors["git log -p -U0 -M"]
    best, median = min(fulls), sorted(fulls)[len(fulls) // 2]
    print(f"repository: {repo} ({commits} commits)")
    for name, seconds in floors.items():
        print(f"floor  {name:28} {seconds:7.2f} s  {commits / seconds:9.0f} commits/s")
    print(f"whylens index (full, min/median of {len(fulls)}) {best:7.2f} / {median:.2f} s  "
          f"{commits / best:9.0f} commits/s  = {best / floor:.2f}x the git log -p floor")
    print(f"whylens index (incremental, no new commit)  {inc_seconds:7.2f} s")
    print(f"peak RSS of an indexer process: {peak:.0f} MB; index size {size / 1e6:.1f} MB")
    units_by_type = stats.get("units_by_type", {})
    total_units = sum(units_by_type.values())
    per_k = {t: round(n * 1000 / commits, 1) for t, n in units_by_type.items()}
    print(f"units: {total_units} = {total_units * 1000 / commits:.1f} per 1,000 commits {per_k}")
    print(f"records: {summary.get('records')}, symbol events: {summary.get('events')}, "
          f"filtered commits: {summary.get('filtered')}")
    print(f"files skipped by reason: {summary.get('files_skipped')}")


if __name__ == "__main__":
    main()
