"""Full rebuilds by two or more servers (or flush cadences), alternated, next to the git floor.

    python bench/bench_cadence.py OUT REPO [REPO ...] --run LABEL=SERVER_DIR[@FIRST,MAX] ...
        [--rounds 2]

For each REPO, from the same run: the floor ``git log -p -U0 -M`` (wall and CPU, once per
round), then, in each round, one full ``whylens index`` per ``--run`` in the order given (so the
servers alternate): wall, CPU (the indexer and every process it waited for, as ``/usr/bin/time``
counts user + sys), CPU by process kind, peak RSS of the process tree (summed over the processes
alive at once, sampled every 20 ms) and the ratio of the CPU to the floor's CPU. ``@FIRST,MAX``
runs that server with ``pipeline.FIRST_FLUSH_SECONDS`` and ``MAX_FLUSH_SECONDS`` set (another
flush cadence, for ``index_digest.py``). Indexes are kept in OUT/LABEL-REPO-ROUND.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_index import Run, git_floor, loadavg  # noqa: E402

PRELUDE = ("import sys, whylens.pipeline as p; p.FIRST_FLUSH_SECONDS = {}; "
           "p.MAX_FLUSH_SECONDS = {}; from whylens.cli import main; sys.exit(main(sys.argv[1:]))")


def command(cadence: str | None) -> list[str]:
    if cadence is None:
        return [sys.executable, "-m", "whylens"]
    first, cap = (float(x) for x in cadence.split(","))
    return [sys.executable, "-c", PRELUDE.format(first, cap)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("repos", nargs="+")
    parser.add_argument("--run", action="append", required=True, help="LABEL=SERVER[@F,M]")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    runs = []
    for spec in args.run:
        label, rest = spec.split("=", 1)
        server, _, cadence = rest.partition("@")
        runs.append((label, server, cadence or None))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for repo in args.repos:
        name = Path(repo).parent.name.split("+")[-1]
        for round_no in range(1, args.rounds + 1):
            floor_wall, floor_cpu = git_floor(repo, "-p", "-U0", "-M")
            print(f"{name} round {round_no}: floor git log -p -U0 -M {floor_wall:.2f} s wall "
                  f"{floor_cpu:.2f} s CPU; load {loadavg()}", flush=True)
            for label, server, cadence in runs:
                target = out / f"{label}-{name}-{round_no}"
                env = dict(os.environ, PYTHONPATH=server)
                run = Run(["nice", *command(cadence), "index", "--repo", repo, "--index-dir",
                           str(target), "--json", "--progress", "none"], env=env)
                kinds = ", ".join(f"{k} {v:.1f}" for k, v in sorted(run.cpu_by_kind.items()))
                print(f"  {label:10s} {run.wall:8.2f} s wall {run.cpu:8.2f} s CPU "
                      f"= {run.cpu / floor_cpu:5.1f}x floor; peak RSS (tree) "
                      f"{run.peak_kb / 1024:6.0f} MB; {kinds}; load {loadavg()}", flush=True)


if __name__ == "__main__":
    main()
