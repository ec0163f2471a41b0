"""Record when each progress line of a full index arrives, then score time-left estimators on it.

``record``: runs ``whylens index --progress json`` (a fresh index folder) and writes one JSON line
per progress event with its arrival time: ``{"t", "phase", "done", "total"}``, then ``{"t", "end"}``.
``score``: replays timelines through each estimator and prints how far its "time left" is from
the time that was really left, at 10%, 25%, 50% and 75% of the run's wall time.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import rss_timeline  # noqa: E402

SERVER = os.environ.get("WHYLENS_BENCH_SERVER", str(ROOT / "server"))


def record(repo: str, index_dir: Path, out: Path, rss_out: Path | None = None) -> None:
    """``rss_out``: also sample the RSS of the indexer's process tree every 0.5 s (as
    ``rss_timeline.py``), write its rows there and print its peak and the tree's CPU."""
    if index_dir.exists():
        shutil.rmtree(index_dir)
    env = {**os.environ, "PYTHONPATH": SERVER}
    args = [sys.executable, "-m", "whylens", "index", "--repo", repo, "--index-dir",
            str(index_dir), "--progress", "json"]
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu0 = usage.ru_utime + usage.ru_stime
    start = time.monotonic()
    with out.open("w") as sink, subprocess.Popen(args, stdout=subprocess.PIPE, text=True,
                                                 env=env, cwd=ROOT) as child:
        assert child.stdout is not None
        sampler = rss_timeline.Sampler(child.pid, start) if rss_out is not None else None
        for line in child.stdout:
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if data.get("event") == "progress":
                row = {"t": round(time.monotonic() - start, 3), "phase": data["phase"],
                       "done": data["done"], "total": data["total"]}
                row.update({k: data[k] for k in EXTRA_FIELDS if k in data})
                sink.write(json.dumps(row) + "\n")
                if sampler is not None:
                    sampler.timeline.mined = int(data["done"])
        child.wait()
        sink.write(json.dumps({"t": round(time.monotonic() - start, 3), "end": True,
                               "rc": child.returncode}) + "\n")
    if sampler is not None and rss_out is not None:
        sampler.stop()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        rss_timeline.write_tsv(sampler.timeline, str(rss_out))
        rss_timeline.report(sampler.timeline, time.monotonic() - start,
                            usage.ru_utime + usage.ru_stime - cpu0)


# progress-line fields besides phase/done/total that a timeline keeps when the run prints them
EXTRA_FIELDS = ("work", "work_total")


def load(path: Path) -> tuple[list[dict], float]:
    rows = [json.loads(line) for line in path.open()]
    end = next(r["t"] for r in rows if r.get("end"))
    return [r for r in rows if not r.get("end")], end


def estimates(rows: list[dict], make) -> list[tuple[float, float | None]]:
    """(time, seconds-left estimate) after each event, as the server would show it."""
    est = make()
    out = []
    for r in rows:
        out.append((r["t"], est.update(r["phase"], r["done"], r["total"], r["t"])))
    return out


def _eta_class(server: str):
    """``progress.Eta`` of the server checkout at ``server``, loaded apart from this one."""
    spec = importlib.util.spec_from_file_location(f"eta_{abs(hash(server))}",
                                                  Path(server) / "whylens" / "progress.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module.Eta


MARKS = (0.1, 0.25, 0.5, 0.75, 0.9)


def score(paths: list[Path], servers: dict[str, str]) -> None:
    makers = {label: _eta_class(server) for label, server in servers.items()}
    print(f"{'timeline':22} {'estimator':8} " + " ".join(f"{int(m * 100):>5}%" for m in MARKS)
          + "   estimate / real time left, at that share of the run's wall time")
    errors: dict[str, list[float]] = {label: [] for label in makers}
    for path in paths:
        rows, end = load(path)
        for label, make in makers.items():
            series = estimates(rows, make)
            cells = []
            for mark in MARKS:
                t_mark = mark * end
                shown = [e for t, e in series if t <= t_mark]
                if shown and shown[-1] is not None:
                    ratio = shown[-1] / (end - t_mark)
                    errors[label].append(abs(math.log2(ratio)))
                    cells.append(f"{ratio:6.2f}")
                else:
                    cells.append("     -")
            print(f"{path.stem:22} {label:8} " + " ".join(cells))
    for label, errs in errors.items():
        errs.sort()
        within = sum(e <= 1 for e in errs)
        median = errs[len(errs) // 2] if errs else float("nan")
        print(f"{label}: {len(errs)} estimates shown, {within} within a factor of 2, "
              f"median error ×{2 ** median:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("repo")
    rec.add_argument("--index-dir", type=Path, required=True)
    rec.add_argument("--out", type=Path, required=True)
    rec.add_argument("--rss", type=Path, help="also sample the tree's RSS; rows written here")
    sc = sub.add_parser("score")
    sc.add_argument("timelines", type=Path, nargs="+")
    sc.add_argument("--server", action="append", default=[], metavar="LABEL=DIR",
                    help="a checkout's server folder whose Eta to score (repeat)")
    args = parser.parse_args()
    if args.cmd == "record":
        record(args.repo, args.index_dir, args.out, args.rss)
    else:
        servers = dict(item.split("=", 1) for item in args.server) or {"this": SERVER}
        score(args.timelines, servers)


if __name__ == "__main__":
    main()
