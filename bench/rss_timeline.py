"""The RSS of every process of a command's tree over time, by role: who holds the peak, and when.

    python bench/rss_timeline.py --out TIMELINE.tsv [--every 0.5] -- whylens index --repo ...

Runs the command (``whylens …`` means ``python -m whylens …`` with this interpreter and the
environment as given, so ``PYTHONPATH=…/server`` picks the checkout), reads its plain progress
lines (``mining: N/T``) from stderr, and every ``--every`` seconds reads VmRSS and CPU of each
process of the tree from /proc. A segmented backfill execs itself: same pid, still the indexer.
Roles: ``indexer`` (the command's process), ``worker`` (multiprocessing's spawned child), ``git
SUBCOMMAND``, ``other``. Writes one row per sample and process (seconds, commits mined, role,
pid, RSS kB) and prints: wall, CPU of the tree (user + sys of every waited-for process), the
tree's peak with its moment and owners, the ten highest 30-s maxima (tree / indexer / worker /
git), and one line a minute.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_index import proc_tree  # noqa: E402

_MINED = re.compile(r"mining: (\d+)/(\d+)")


@dataclass
class Sample:
    t: float
    mined: int
    rss: dict[int, tuple[str, int]]  # pid → (role, kB)

    def total(self, prefix: str = "") -> int:
        return sum(kb for role, kb in self.rss.values() if role.startswith(prefix))


@dataclass
class Timeline:
    samples: list[Sample] = field(default_factory=list)
    cpu: dict[int, tuple[str, float]] = field(default_factory=dict)  # pid → (role, seconds)
    mined: int = 0
    phase: str = "mine"


def role_of(pid: int, root: int, args: list[bytes]) -> str:
    if pid == root:
        return "indexer"
    if any(b"spawn_main" in a or b"multiprocessing" in a for a in args):
        return "worker"
    if args and os.path.basename(args[0]) == b"git":
        rest, skip = [], False
        for arg in args[1:]:
            if skip:
                skip = False
            elif arg in (b"-C", b"-c"):
                skip = True
            elif not arg.startswith(b"-"):
                rest.append(arg)
        return "git " + (rest[0].decode() if rest else "?")
    return "other"


def read_tree(root: int, timeline: Timeline) -> dict[int, tuple[str, int]]:
    found: dict[int, tuple[str, int]] = {}
    for pid, args, seconds, kb in proc_tree(root):
        role = role_of(pid, root, args.split(b"\0"))
        if role == "other" and pid in timeline.cpu:
            role = timeline.cpu[pid][0]
        timeline.cpu[pid] = (role, seconds)
        found[pid] = (role, kb)
    return found


class Sampler:
    """RSS of the process tree under ``pid`` every ``every`` seconds, in a thread, into
    ``timeline`` (times from ``start``, a ``time.monotonic()`` reading)."""

    def __init__(self, pid: int, start: float, every: float = 0.5) -> None:
        self.timeline = Timeline()
        self._done = threading.Event()

        def sample() -> None:
            while not self._done.wait(every):
                rss = read_tree(pid, self.timeline)
                self.timeline.samples.append(
                    Sample(time.monotonic() - start, self.timeline.mined, rss))

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


def run(cmd: list[str], every: float) -> tuple[Timeline, float, float, int]:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu0 = usage.ru_utime + usage.ru_stime
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    sampler = Sampler(proc.pid, start, every)
    timeline = sampler.timeline
    assert proc.stderr is not None
    for line in proc.stderr:
        match = _MINED.search(line)
        if match:
            timeline.mined = int(match.group(1))
        elif line.strip():
            sys.stderr.write(f"[{time.monotonic() - start:7.1f} s] {line}")
    proc.wait()
    sampler.stop()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return timeline, time.monotonic() - start, usage.ru_utime + usage.ru_stime - cpu0, \
        proc.returncode


def owners(sample: Sample) -> str:
    by_role: dict[str, int] = {}
    for role, kb in sample.rss.values():
        by_role[role] = by_role.get(role, 0) + kb
    return ", ".join(f"{role} {kb / 1024:.0f}" for role, kb in
                     sorted(by_role.items(), key=lambda item: -item[1]))


def report(timeline: Timeline, wall: float, cpu: float) -> None:
    samples = timeline.samples
    by_kind: dict[str, float] = {}
    for role, seconds in timeline.cpu.values():
        kind = "git" if role.startswith("git") else role
        by_kind[kind] = by_kind.get(kind, 0.0) + seconds
    print(f"wall {wall:.1f} s, CPU of the tree {cpu:.1f} s ("
          + ", ".join(f"{k} {v:.1f}" for k, v in sorted(by_kind.items())) + ")")
    if not samples:
        return
    peak = max(samples, key=Sample.total)
    print(f"tree peak {peak.total() / 1024:.0f} MB at {peak.t:.0f} s, {peak.mined} commits "
          f"mined, {len(peak.rss)} processes: {owners(peak)}")
    for role in ("indexer", "worker"):
        top = max(samples, key=lambda s, r=role: s.total(r))
        print(f"{role} peak {top.total(role) / 1024:.0f} MB at {top.t:.0f} s "
              f"({top.mined} mined)")
    windows: dict[int, Sample] = {}
    for s in samples:
        key = int(s.t // 30)
        if key not in windows or s.total() > windows[key].total():
            windows[key] = s
    best = sorted(windows.values(), key=Sample.total, reverse=True)[:10]
    print("highest 30-s maxima, tree / indexer / worker / git (MB) at seconds, mined:")
    for s in best:
        print(f"  {s.total() / 1024:4.0f} / {s.total('indexer') / 1024:4.0f} / "
              f"{s.total('worker') / 1024:4.0f} / {s.total('git') / 1024:4.0f}"
              f"  at {s.t:6.0f} s, {s.mined}")
    print("per minute (max of tree, its owners):")
    minutes: dict[int, Sample] = {}
    for s in samples:
        key = int(s.t // 60)
        if key not in minutes or s.total() > minutes[key].total():
            minutes[key] = s
    for key in sorted(minutes):
        s = minutes[key]
        print(f"  {key:3} min {s.total() / 1024:4.0f} MB ({s.mined} mined): {owners(s)}")


def write_tsv(timeline: Timeline, path: str) -> None:
    with open(path, "w") as out:
        out.write("seconds\tmined\trole\tpid\trss_kb\n")
        for s in timeline.samples:
            for pid, (role, kb) in sorted(s.rss.items()):
                out.write(f"{s.t:.2f}\t{s.mined}\t{role}\t{pid}\t{kb}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="the timeline, one row per process a tick")
    parser.add_argument("--every", type=float, default=0.5)
    parser.add_argument("cmd", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if cmd[:1] == ["whylens"]:
        cmd = [sys.executable, "-m", "whylens", *cmd[1:]]
    timeline, wall, cpu, code = run(cmd, args.every)
    write_tsv(timeline, args.out)
    report(timeline, wall, cpu)
    if code:
        sys.exit(f"exit {code}: {' '.join(cmd)}")


if __name__ == "__main__":
    main()
