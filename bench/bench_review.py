"""Review time of a ~2,000-line diff, next to `git diff` of the same range (the floor).

    python bench/bench_review.py /work/.mirror/psf+requests/repo [--lines 2000] [--runs 5] \
        [--index-dir DIR]

Picks base = the first-parent ancestor of HEAD at which `git diff --shortstat base HEAD` first
reaches --lines changed lines, indexes the repository at HEAD (or reuses --index-dir), then times:
- `git diff base HEAD` (a child process: the floor any review pays to see the change);
- the review in process (`review_report` with the base side, the messages and the past diffs, as
  `whylens pr-comments` runs it), wall and CPU;
- `whylens pr-comments --format json` as a child process (what the editor and CI pay).
Medians of --runs; the load average is printed, since the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from whylens.cli.review import change_message, history_patches, revision_reader
from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.review import review_report


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], capture_output=True, check=True,
                          text=True).stdout


def pick_base(repo: str, lines: int) -> tuple[str, int]:
    for sha in git(repo, "rev-list", "--first-parent", "--max-count=2000", "HEAD").split()[1:]:
        stat = git(repo, "diff", "--shortstat", sha, "HEAD")
        changed = sum(int(n) for n in re.findall(r"(\d+) (?:insertion|deletion)", stat))
        if changed >= lines:
            return sha, changed
    raise SystemExit(f"no first-parent ancestor within 2000 commits reaches {lines} changed lines")


def timed(fn, runs: int) -> tuple[float, float, object]:
    walls, cpus, result = [], [], None
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--index-dir")
    args = parser.parse_args()
    base, changed = pick_base(args.repo, args.lines)
    head = git(args.repo, "rev-parse", "HEAD").strip()
    with tempfile.TemporaryDirectory(prefix="whylens-bench-review-") as tmp:
        index_dir = Path(args.index_dir or Path(tmp) / "index")
        run_index(args.repo, index_dir)
        git_wall, _, _ = timed(lambda: subprocess.run(
            ["git", "--git-dir", args.repo, "diff", base, head], capture_output=True, check=True), args.runs)

        def in_process():
            with open_repository(args.repo) as repo, IndexStore(index_dir).reader() as reader:
                changes = diff_changes(repo, base, head)
                return review_report(reader, repo.root, changes, revision_reader(repo, head),
                                     read_base=revision_reader(repo, base),
                                     patches=history_patches(repo),
                                     message=change_message(repo, base, head))

        wall, cpu, report = timed(in_process, args.runs)
        command = [sys.executable, "-m", "whylens", "pr-comments", "--repo", args.repo, "--index-dir",
                   str(index_dir), "--base", base, "--head", head, "--format", "json"]
        child_wall, _, _ = timed(lambda: subprocess.run(command, capture_output=True, check=True), args.runs)
    print(f"{Path(args.repo).parent.name}: {base[:10]}..{head[:10]}, {changed:,} changed lines "
          f"({report.lines:,} reviewed in {report.files} text files), {len(report.suggestions)} "
          f"suggestions; load average {os.getloadavg()[0]:.1f}, medians of {args.runs}")
    print(f"  git diff (floor)            {git_wall * 1000:8.0f} ms")
    print(f"  review in process           {wall * 1000:8.0f} ms wall, {cpu * 1000:.0f} ms CPU")
    print(f"  whylens pr-comments (child) {child_wall * 1000:8.0f} ms wall   (goal ≤ 5,000 ms)")


if __name__ == "__main__":
    sys.exit(main())
