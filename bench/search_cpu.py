"""Warm search latency, wall and CPU: every tune question × 3 passes, one reader per repository.

    WHYLENS_BENCH_SERVER=<server> PYTHONPATH=<server> python bench/search_cpu.py INDEXES TAG

Run two checkouts alternated (A, B, A, B) over their own indexes: CPU time is comparable under
load, wall time follows the load average (issue 12, round 12). Prints one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qbench import TUNE, questions  # noqa: E402

from whylens.index.store import IndexStore  # noqa: E402
from whylens.retrieval.search import search  # noqa: E402

PASSES = 3


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))], 1)


def main() -> int:
    workdir, tag = Path(sys.argv[1]), sys.argv[2]
    wall: list[float] = []
    cpu: list[float] = []
    first: list[float] = []
    load = os.getloadavg()[0]
    for name in TUNE:
        with IndexStore(workdir / name).reader() as reader:
            search(reader, "warm up")
            for n in range(PASSES):
                for q in questions(name):
                    w, c = time.perf_counter(), time.process_time()
                    search(reader, q["question"])
                    wall.append((time.perf_counter() - w) * 1000)
                    cpu.append((time.process_time() - c) * 1000)
                    if n == 0:
                        first.append(cpu[-1])
    print(json.dumps({
        "tag": tag, "n": len(wall), "load": [round(load, 1), round(os.getloadavg()[0], 1)],
        "wall_p50": percentile(wall, 0.5), "wall_p95": percentile(wall, 0.95),
        "cpu_p50": percentile(cpu, 0.5), "cpu_p95": percentile(cpu, 0.95),
        "first_pass_cpu_p50": percentile(first, 0.5), "first_pass_cpu_p95": percentile(first, 0.95)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
