"""Full-history symbol anchoring of a real repository, next to the ``git log`` floor.

    python bench/bench_anchor.py [REPO]   # default: the psf/requests mirror fetched for benchmarks

Prints, from one run: the floor ``git log -p -U0 -M`` (its output read and dropped), the walk
alone (whylens.history.walk: parsing commits and hunks), and walk + anchoring (blobs read through
one ``git cat-file --batch``, parsed with the cache), with the ratio to the floor (goal ≤ 3×),
the parse-cache hit rate, files skipped by reason and the number of events.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from whylens.history.blobs import BlobReader  # noqa: E402
from whylens.history.repo import open_repository  # noqa: E402
from whylens.history.walk import walk  # noqa: E402
from whylens.symbols.anchor import Anchorer  # noqa: E402

DEFAULT_REPO = "/work/.mirror/psf+requests/repo"


def floor_seconds(repo_path: str) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(["git", "-C", repo_path, "log", "-p", "-U0", "-M", "HEAD"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    while proc.stdout.read(1 << 20):
        pass
    proc.wait()
    return time.perf_counter() - start


def main() -> None:
    repo_path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_REPO
    floor = floor_seconds(repo_path)
    with open_repository(repo_path) as repo:
        start = time.perf_counter()
        commits = sum(1 for _ in walk(repo))
        walk_time = time.perf_counter() - start

        start = time.perf_counter()
        with BlobReader(repo) as blobs:
            attributes = repo.gitattributes("HEAD")
            anchorer = Anchorer(blobs.read, attributes)
            events = 0
            for commit in walk(repo):
                events += len(anchorer.events(commit))
        total = time.perf_counter() - start
    stats = anchorer.stats
    lookups = stats["parsed"] + stats["cache_hits"]
    print(f"repository            {repo_path} ({commits} commits)")
    print(f"floor git log -p -U0 -M   {floor:6.2f} s")
    print(f"walk only                 {walk_time:6.2f} s  ({walk_time / floor:.1f}x floor)")
    print(f"walk + anchoring          {total:6.2f} s  ({total / floor:.1f}x floor; goal <= 3x)")
    print(f"anchoring alone (approx)  {total - walk_time:6.2f} s")
    print(f"blobs parsed              {stats['parsed']} ({stats['incremental']} incrementally)")
    print(f"parse-cache hit rate      {stats['cache_hits'] / max(lookups, 1):.1%} "
          f"({stats['cache_hits']} of {lookups} lookups)")
    print(f"file changes anchored     {stats['files']}")
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(stats["files_skipped"].items()))
    print(f"files skipped             {skipped or 'none'}")
    print(f"symbol events             {events}")


if __name__ == "__main__":
    main()
