"""Full and incremental `whylens index` on a real repository, next to the git floors.

    python bench/bench_index.py /path/to/repo-or-bare.git [--runs 3] [--mode both]

Prints, from the same run: the floors `git log --name-status -M` and `git log -p -U0 -M`
(output discarded, wall and CPU), then for each indexing mode a full `whylens index`: wall time
(min/median), CPU time (user + sys of the indexer and every process it waited for: the anchor
worker and git), commits/s, ratio to the `git log -p` floor, peak RSS of the indexer's
process tree (summed over the processes alive at the same moment, git included, sampled every
20 ms), and the CPU split between the indexer, the anchor worker and git (the larger of the
first two bounds the wall time on idle cores). Modes: ``worker`` (the default decision: an anchor
worker process for big runs),
``inprocess`` (forced single process, via WHYLENS_ANCHOR_WORKER_MIN_COMMITS), ``both``
(interleaved, so both see the same machine load). Then the units per 1,000 commits, records,
symbol events, an incremental run after no change, the index size, and the load average
before/after (the machine may be shared: compare CPU-time ratios). Nothing is written into the
repository; indexes go to a temporary folder.
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
import threading
import time
from pathlib import Path

NEVER = str(10**12)  # a worker threshold no history reaches: forces the in-process path


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


TICK = os.sysconf("SC_CLK_TCK")


def proc_tree(root: int):
    """(pid, command line, CPU seconds so far, VmRSS kB) of ``root`` and each of its
    descendants, read from /proc; a process that is gone by the time it is read is left out."""
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                args = cmdline.read()
            with open(f"/proc/{pid}/status") as status:
                kb = next((int(line.split()[1]) for line in status
                           if line.startswith("VmRSS:")), 0)
            children = []
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as listed:
                    children.extend(int(child) for child in listed.read().split())
        except (OSError, ValueError):
            continue
        yield pid, args, (int(fields[11]) + int(fields[12])) / TICK, kb
        todo.extend(children)


def tree_rss_kb(pid: int, cpu: dict[int, tuple[str, float]]) -> int:
    """VmRSS summed over ``pid`` and its descendants (0 once it is gone); notes each one's CPU
    seconds so far in ``cpu`` (pid → (kind, seconds))."""
    total = 0
    for current, args, seconds, kb in proc_tree(pid):
        kind = ("indexer" if current == pid else "anchor worker" if b"spawn_main" in args
                else "git" if b"git" in args.split(b"\0")[0] else "other")
        if cpu.get(current, ("other",))[0] != "other":
            kind = cpu[current][0]  # an exited process has no command line any more
        cpu[current] = (kind, seconds)
        total += kb
    return total


class Run:
    """One subprocess, with wall time, CPU time (it and its waited-for children) and peak RSS."""

    def __init__(self, cmd: list[str], env: dict | None = None) -> None:
        cpu_before = children_cpu()
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.peak_kb = 0
        cpu: dict[int, tuple[str, float]] = {}
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.02):
                self.peak_kb = max(self.peak_kb, tree_rss_kb(proc.pid, cpu))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        out, err = proc.communicate()
        self.wall = time.perf_counter() - start
        done.set()
        sampler.join()
        self.cpu = children_cpu() - cpu_before
        self.cpu_by_kind: dict[str, float] = {}  # as last sampled (up to 20 ms short)
        for kind, seconds in cpu.values():
            self.cpu_by_kind[kind] = self.cpu_by_kind.get(kind, 0.0) + seconds
        if proc.returncode:
            sys.exit(f"failed: {' '.join(cmd)}\n{err.decode(errors='replace')}")
        self.stdout = out


def git_floor(repo: str, *args: str) -> tuple[float, float]:
    """(wall, cpu) of one `git log` with its output discarded."""
    cpu_before = children_cpu()
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        subprocess.run(["git", "-C", repo, "log", *args], stdout=sink, check=True)
    return time.perf_counter() - start, children_cpu() - cpu_before


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--runs", type=int, default=3, help="full-index runs per mode")
    parser.add_argument("--mode", choices=("worker", "inprocess", "both"), default="both")
    args = parser.parse_args()
    repo = args.repo
    commits = int(subprocess.check_output(["git", "-C", repo, "rev-list", "--count", "HEAD"]))
    whylens = [sys.executable, "-m", "whylens"]
    modes = ["inprocess", "worker"] if args.mode == "both" else [args.mode]
    envs = {"worker": {k: v for k, v in os.environ.items()
                       if k != "WHYLENS_ANCHOR_WORKER_MIN_COMMITS"},
            "inprocess": {**os.environ, "WHYLENS_ANCHOR_WORKER_MIN_COMMITS": NEVER}}
    load_before = loadavg()

    floors = {
        "git log --name-status -M": min(git_floor(repo, "--format=%H%x00%an%x00%aI%x00%s%x00%b",
                                                  "--name-status", "-M") for _ in range(3)),
        "git log -p -U0 -M": min(git_floor(repo, "-p", "-U0", "-M") for _ in range(3)),
    }
    work = Path(tempfile.mkdtemp(prefix="whylens-bench-"))
    runs: dict[str, list[Run]] = {mode: [] for mode in modes}
    summary: dict = {}
    try:
        for i in range(args.runs):
            for mode in modes:  # interleaved: both modes see the same load
                target = work / f"{mode}{i}"
                run = Run([*whylens, "index", "--repo", repo, "--index-dir", str(target),
                           "--json", "--progress", "none"], env=envs[mode])
                runs[mode].append(run)
                summary = json.loads(run.stdout)
                if i:
                    shutil.rmtree(target, ignore_errors=True)
        first = work / f"{modes[-1]}0"
        incremental = Run([*whylens, "index", "--repo", repo, "--index-dir", str(first),
                           "--json", "--progress", "none"])
        stats = json.loads(Run([*whylens, "stats", "--repo", repo, "--index-dir", str(first),
                                "--json"]).stdout)
        size = folder_size(first)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    floor_wall, floor_cpu = floors["git log -p -U0 -M"]
    print(f"repository: {repo} ({commits} commits); {os.cpu_count()} CPUs; "
          f"load average before {load_before}, after {loadavg()}")
    for name, (wall, cpu) in floors.items():
        print(f"floor  {name:28} {wall:7.2f} s wall {cpu:6.2f} s CPU  "
              f"{commits / wall:9.0f} commits/s")
    for mode, done in runs.items():
        walls = sorted(r.wall for r in done)
        cpus = sorted(r.cpu for r in done)
        best, median = walls[0], walls[len(walls) // 2]
        peak = max(r.peak_kb for r in done) / 1024
        print(f"whylens index full [{mode:9}] wall min/median of {len(done)} {best:6.2f} / "
              f"{median:.2f} s = {best / floor_wall:.1f}x the git log -p floor; "
              f"CPU min {cpus[0]:6.2f} s (CPU/wall {cpus[0] / best:.2f}); "
              f"{commits / best:6.0f} commits/s; peak RSS (tree) {peak:.0f} MB")
        fastest = min(done, key=lambda r: r.cpu)
        split = ", ".join(f"{kind} {seconds:.2f} s" for kind, seconds
                          in sorted(fastest.cpu_by_kind.items()))
        print(f"    CPU by process (the run with the least CPU): {split}")
    if len(runs) == 2:
        inproc, worker = runs["inprocess"], runs["worker"]
        wall = min(r.wall for r in worker) / min(r.wall for r in inproc)
        cpu = min(r.cpu for r in worker) / min(r.cpu for r in inproc)
        print(f"worker vs in-process: wall min {wall:.2f}x, CPU min {cpu:.2f}x")
    print(f"whylens index (incremental, no new commit)  {incremental.wall:7.2f} s")
    print(f"index size {size / 1e6:.1f} MB")
    units_by_type = stats.get("units", {})
    total_units = sum(units_by_type.values())
    per_k = {t: round(n * 1000 / commits, 1) for t, n in units_by_type.items()}
    print(f"units: {total_units} = {total_units * 1000 / commits:.1f} per 1,000 commits {per_k}")
    print(f"records: {summary.get('records')}, symbol events: {summary.get('events')}, "
          f"filtered commits: {summary.get('filtered')}")
    print(f"files skipped by reason: {summary.get('files_skipped')}")


if __name__ == "__main__":
    main()
