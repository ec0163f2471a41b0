"""Repositories that lack objects, indexed: a pruned mirror and partial clones, in one run.

    python bench/bench_missing.py --work DIR [--pruned REPO] [--promisor REPO]
                                  [--baseline SERVER_DIR]

1. ``--pruned`` (default: the gson mirror, which lacks its blobs of 4 MiB and more): the floor
   ``git log -p -U0 -M`` (it dies on the first missing blob, so it is timed per stretch between
   the commits it cannot diff, plus ``git log -1 --raw -M100%`` for each of those), then
   ``whylens index``: wall, CPU, peak RSS, commits at file level, index size.
2. ``--promisor`` (default: the requests mirror) is copied to a bare repository that serves
   filters; a full clone, a ``--filter=blob:limit=1m`` and a ``--filter=blob:none`` clone of it
   are indexed, with a git trace of every process (any ``fetch`` in it is reported): commits,
   units, records, events, blame runs, index size, next to the full clone's.
``--baseline``: another WhyLens's server/ folder (main's), run on the same repositories.
Read-only on the mirrors; everything it writes goes under ``--work``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_index import Run, children_cpu, folder_size  # noqa: E402

SERVER = HERE.parent / "server"


def git(*args: str, cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=check)


def timed_log(repo: str, *args: str) -> tuple[float, float, int, str]:
    """(wall, CPU, commits printed, stderr) of one git log, its output counted, not kept."""
    cpu, start = children_cpu(), time.perf_counter()
    proc = subprocess.Popen(["git", "-C", repo, "-c", "core.bigFileThreshold=8m", "log",
                             "--format=%x00%x00C", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    commits = 0
    assert proc.stdout is not None and proc.stderr is not None
    for block in iter(lambda: proc.stdout.read(1 << 20), b""):  # type: ignore[union-attr]
        commits += block.count(b"\0\0C")
    err = proc.stderr.read().decode(errors="replace")
    proc.wait()
    return time.perf_counter() - start, children_cpu() - cpu, commits, err.strip()


def patch_floor(repo: str, failing: list[str]) -> str:
    """``git log -p -U0 -M`` over the stretches between the commits it cannot diff."""
    patch = ["-p", "-U0", "-M", "--raw", "-z", "--no-abbrev"]
    wall, cpu, commits, err = timed_log(repo, *patch, "HEAD")
    lines = [f"git log -p -U0 -M HEAD: {commits} commits, then `{err.splitlines()[-1]}`"
             if err else f"git log -p -U0 -M HEAD: {commits} commits"]
    if not failing:
        return lines[0] + f" in {wall:.2f} s wall, {cpu:.2f} s CPU"
    total_wall = total_cpu = 0.0
    total = 0
    tips = ["HEAD", *(f"{sha}^" for sha in failing)]
    stops = [*failing, None]
    for tip, stop in zip(tips, stops):
        if git("rev-parse", "--verify", "-q", tip, cwd=Path(repo), check=False).returncode:
            continue  # a root commit failed: nothing before it
        w, c, n, err = timed_log(repo, *patch, tip, *([f"^{stop}"] if stop else []))
        total_wall, total_cpu, total = total_wall + w, total_cpu + c, total + n
        if err:
            lines.append(f"  stretch from {tip} failed: {err.splitlines()[-1]}")
    for sha in failing:
        w, c, n, _ = timed_log(repo, "--raw", "-M100%", "-z", "--no-abbrev", "-1", sha)
        total_wall, total_cpu, total = total_wall + w, total_cpu + c, total + n
    lines.append(f"floor (stretches + {len(failing)} commits --raw alone): {total} commits in "
                 f"{total_wall:.2f} s wall, {total_cpu:.2f} s CPU")
    return "\n".join(lines)


def index(server: Path, repo: Path, target: Path, env_extra: dict | None = None) -> dict:
    """``whylens index`` + ``whylens stats`` with ``server`` on PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": str(server), **(env_extra or {})}
    if target.exists():
        subprocess.run(["rm", "-rf", str(target)], check=True)
    cmd = [sys.executable, "-m", "whylens", "index", "--repo", str(repo), "--index-dir",
           str(target), "--json", "--progress", "none"]
    try:
        run = Run(cmd, env=env)
    except SystemExit as failed:
        return {"failed": str(failed).strip().splitlines()[-1]}
    summary = json.loads(run.stdout)
    stats = json.loads(subprocess.run(
        [sys.executable, "-m", "whylens", "stats", "--repo", str(repo), "--index-dir",
         str(target), "--json"], capture_output=True, env=env, check=True).stdout)
    return {"wall": run.wall, "cpu": run.cpu, "rss_mb": run.peak_kb / 1024,
            "commits": summary["commits_indexed"], "units": summary["units"],
            "records": summary["records"], "events": summary["events"],
            "blame_runs": summary["blame_runs"],
            "missing": summary.get("commits_missing_objects"),
            "partial": summary.get("partial_clone"), "bytes": folder_size(target),
            "decisions": stats.get("decisions"), "pitfalls": stats.get("pitfalls")}


def show(label: str, result: dict) -> None:
    if "failed" in result:
        print(f"  {label:28} FAILED: {result['failed']}")
        return
    print(f"  {label:28} {result['commits']:6} commits {result['units']:5} units "
          f"{result['records']:5} records {result['events']:6} events "
          f"{result['blame_runs']:6} blame runs; missing {result['missing']}, "
          f"partial {result['partial']}; {result['bytes'] / 1e6:5.1f} MB; "
          f"{result['wall']:6.1f} s wall {result['cpu']:6.1f} s CPU {result['rss_mb']:4.0f} MB")


def failing_commits(repo: str) -> list[str]:
    """The commits whose diff git cannot print (``whylens`` walk's degraded ones)."""
    sys.path.insert(0, str(SERVER))
    from whylens.history.repo import open_repository
    from whylens.history.walk import walk

    with open_repository(repo) as handle:
        return [c.sha for c in walk(handle) if c.missing_objects]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", required=True)
    parser.add_argument("--pruned", default="/work/.mirror/google+gson/repo")
    parser.add_argument("--promisor", default="/work/.mirror/psf+requests/repo")
    parser.add_argument("--baseline", help="server/ folder of the WhyLens to compare with")
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    servers = [("this", SERVER)] + ([("baseline", Path(args.baseline))] if args.baseline else [])
    print(f"load average {os.getloadavg()[0]:.1f}")

    failing = failing_commits(args.pruned)
    print(f"{args.pruned}: {len(failing)} commits git cannot diff")
    print(patch_floor(args.pruned, failing))
    for name, server in servers:
        show(f"{name}: whylens index", index(server, Path(args.pruned), work / f"pruned-{name}"))

    bare = work / "promisor.git"
    if not bare.exists():
        git("clone", "-q", "--bare", "--no-local", "--single-branch",
            f"file://{args.promisor}", str(bare))
        git("-C", str(bare), "config", "uploadpack.allowFilter", "true")
        git("-C", str(bare), "config", "uploadpack.allowAnySHA1InWant", "true")
    clones = {"full": (), "blob:limit=1m": ("--filter=blob:limit=1m",),
              "blob:none": ("--filter=blob:none",)}
    for kind, options in clones.items():
        clone = work / f"clone-{kind.replace(':', '-').replace('=', '')}"
        if not clone.exists():
            git("clone", "-q", *options, f"file://{bare}", str(clone))
        objects = git("-C", str(clone), "count-objects", "-v").stdout.decode()
        in_pack = next(line for line in objects.splitlines() if line.startswith("in-pack"))
        print(f"{kind} clone ({in_pack})")
        for name, server in servers:
            trace = work / f"trace-{kind}-{name}.txt"
            trace.unlink(missing_ok=True)
            result = index(server, clone, work / f"index-{kind}-{name}",
                           {"GIT_TRACE": str(trace)})
            show(f"{name}", result)
            fetches = [line for line in trace.read_text().splitlines() if "fetch" in line] \
                if trace.exists() else []
            after = git("-C", str(clone), "count-objects", "-v").stdout.decode()
            print(f"    fetch lines in the git trace: {len(fetches)}; objects "
                  f"{'unchanged' if after == objects else 'CHANGED'}")


if __name__ == "__main__":
    main()
