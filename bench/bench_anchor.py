"""Full-history symbol anchoring of a real repository, next to the ``git log`` floor.

    python bench/bench_anchor.py [REPO] [--verify]

REPO defaults to the psf/requests mirror fetched for benchmarks. Prints, from one run: the floor
``git log -p -U0 -M`` (its output read and dropped), the walk alone (whylens.history.walk), and
walk + anchoring (blobs through one ``git cat-file --batch``, parsed with the cache), each as
wall-clock and CPU seconds (CPU is the steadier figure on a shared machine), with the ratio to
the floor (goal <= 3x), the parse-cache hit rate, files skipped by reason and events.

``--verify`` also re-checks, for every modified file in the history, that the incremental
outline (edited tree + copied definitions) equals a parse from scratch, in both directions.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from whylens.history.blobs import BlobReader  # noqa: E402
from whylens.history.repo import open_repository  # noqa: E402
from whylens.history.walk import walk  # noqa: E402
from whylens.symbols.anchor import Anchorer  # noqa: E402
from whylens.symbols.hunks import hunk_rows as _rows  # noqa: E402
from whylens.symbols.extract import parse_outline, reparse_outline  # noqa: E402
from whylens.symbols.languages import language_for_path  # noqa: E402

DEFAULT_REPO = "/work/.mirror/psf+requests/repo"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def floor_seconds(repo_path: str) -> tuple[float, float]:
    """(wall, CPU) of ``git log -p -U0 -M HEAD`` with its output read and dropped."""
    cpu_before, start = _children_cpu(), time.perf_counter()
    proc = subprocess.Popen(["git", "-C", repo_path, "log", "-p", "-U0", "-M", "HEAD"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    while proc.stdout.read(1 << 20):
        pass
    proc.wait()
    return time.perf_counter() - start, _children_cpu() - cpu_before


def _timed(run) -> tuple[float, float, object]:
    cpu_before, start = time.process_time() + _children_cpu(), time.perf_counter()
    result = run()
    return (time.perf_counter() - start, time.process_time() + _children_cpu() - cpu_before,
            result)


def anchor_history(repo) -> tuple[Anchorer, int]:
    with BlobReader(repo) as blobs:
        anchorer = Anchorer(blobs.read, repo.gitattributes("HEAD"))
        events = sum(len(anchorer.events(commit)) for commit in walk(repo))
    return anchorer, events


def verify(repo) -> tuple[int, int]:
    """(outlines checked, mismatches) of incremental vs scratch outlines over the history."""
    checked = mismatches = 0
    with BlobReader(repo) as blobs:
        for commit in walk(repo):
            for change in commit.changes:
                language = language_for_path(change.path)
                if not (language and change.hunks and change.old_blob and change.new_blob):
                    continue
                old_data, new_data = blobs.read(change.old_blob), blobs.read(change.new_blob)
                if old_data is None or new_data is None:
                    continue
                ranges = [_rows(h) for h in change.hunks]
                old, new = parse_outline(old_data, language), parse_outline(new_data, language)
                back = [(nr, nc, orow, oc) for orow, oc, nr, nc in ranges]
                for built, expected in ((reparse_outline(old, new_data, ranges), new),
                                        (reparse_outline(new, old_data, back), old)):
                    checked += 1
                    if _shape(built) != _shape(expected):
                        mismatches += 1
                        print(f"  mismatch: {commit.sha[:10]} {change.path}")
    return checked, mismatches


def _shape(outline) -> list:
    return [(d.symbol, d.start_byte, d.end_byte, d.body_byte, d.parent) for d in
            outline.definitions]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    repo_path = args[0] if args else DEFAULT_REPO
    floor_wall, floor_cpu = floor_seconds(repo_path)
    with open_repository(repo_path) as repo:
        walk_wall, walk_cpu, commits = _timed(lambda: sum(1 for _ in walk(repo)))
        total_wall, total_cpu, (anchorer, events) = _timed(lambda: anchor_history(repo))
        checked = _timed(lambda: verify(repo)) if "--verify" in sys.argv else None
    stats = anchorer.stats
    lookups = stats["parsed"] + stats["cache_hits"]

    def line(label: str, wall: float, cpu: float) -> str:
        return (f"{label:<26}{wall:6.2f} s wall ({wall / floor_wall:4.1f}x)  "
                f"{cpu:6.2f} s CPU ({cpu / floor_cpu:4.1f}x)")

    print(f"repository                {repo_path} ({commits} commits)")
    print(line("floor git log -p -U0 -M", floor_wall, floor_cpu))
    print(line("walk only", walk_wall, walk_cpu))
    print(line("walk + anchoring", total_wall, total_cpu) + "   goal <= 3x floor")
    print(f"blobs parsed              {stats['parsed']} ({stats['incremental']} incrementally)")
    print(f"parse-cache hit rate      {stats['cache_hits'] / max(lookups, 1):.1%} "
          f"({stats['cache_hits']} of {lookups} lookups)")
    print(f"file changes anchored     {stats['files']}")
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(stats["files_skipped"].items()))
    print(f"files skipped             {skipped or 'none'}")
    print(f"symbol events             {events}")
    if checked is not None:
        wall, _, (count, bad) = checked
        print(f"incremental outlines      {count} checked against scratch parses, {bad} differ "
              f"({wall:.1f} s)")


if __name__ == "__main__":
    main()
