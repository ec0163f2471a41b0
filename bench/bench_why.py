"""`why` latency on a real repository: warm (in process) and from process start.

    python bench/bench_why.py /work/.mirror/psf+requests/repo [--index-dir DIR] [--targets 200]

Indexes the repository (a bare mirror is fine) into a temporary folder unless --index-dir holds
one, materialises the HEAD version of its source files with `git show REV:path` into a temporary
work folder (never a checkout inside the mirror), then asks `why` about the name line of every
function / method / class in them (sampled to --targets):

- warm: one open reader, `retrieval.why.why` per target (goal p95 ≤ 100 ms); its floor in the same
  run is the outline parse alone (what any editor feature pays), and the baseline is what a user
  would type without WhyLens, `git log -L start,end:path` (a few targets only: it is slow);
- from process start: `python -m whylens why PATH:LINE --json` as a new process, next to the
  floor `python -c pass` and `python -m whylens --version`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.why import why
from whylens.symbols.languages import language_for_path
from whylens.symbols.outline import outline


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def materialise(repo: str, rev: str, folder: Path) -> list[str]:
    """HEAD's parseable source files into ``folder`` (a fresh `git init`, so the CLI finds a root)."""
    names = subprocess.check_output(["git", "--git-dir", repo, "ls-tree", "-r", "--name-only", rev],
                                    text=True).splitlines()
    kept = []
    for name in names:
        if not language_for_path(name):
            continue
        data = subprocess.run(["git", "--git-dir", repo, "show", f"{rev}:{name}"],
                              capture_output=True, check=True).stdout
        if len(data) > 1_000_000:
            continue
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        kept.append(name)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return kept


def targets_in(folder: Path, files: list[str], limit: int, seed: int) -> list[tuple[str, int, object]]:
    found = []
    for name in files:
        source = (folder / name).read_bytes()
        for sym in outline(source, language_for_path(name)):
            found.append((name, sym.name_line or sym.start_line, sym))
    random.Random(seed).shuffle(found)
    return found[:limit]


def target_args(doc: str) -> argparse.ArgumentParser:
    """The options every per-symbol benchmark takes (bench_why.py, bench_mcp.py)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("repo", help="a repository or bare mirror")
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--index-dir", help="reuse an index here (built when missing)")
    parser.add_argument("--targets", type=int, default=200)
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    return parser


def main() -> None:
    parser = target_args(__doc__)
    parser.add_argument("--git-log-runs", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="whylens-bench-why-") as tmp:
        tmp_path = Path(tmp)
        index_dir = Path(args.index_dir) if args.index_dir else tmp_path / "index"
        start = time.perf_counter()
        summary = run_index(args.repo, index_dir, rev=args.rev)
        print(f"index ({summary.mode}): {summary.commits_indexed} commits in "
              f"{time.perf_counter() - start:.1f} s")
        work = tmp_path / "work"
        work.mkdir()
        files = materialise(args.repo, args.rev, work)
        targets = targets_in(work, files, args.targets, args.seed)
        print(f"targets: {len(targets)} symbols in {len(files)} source files at {args.rev}")

        reader = IndexStore(index_dir).reader()
        try:
            why(reader, targets[0][0], line=targets[0][1], repo_root=work)  # warm the caches
            warm, parse, known = [], [], 0
            for path, line, _name in targets:
                source = (work / path).read_bytes()
                t0 = time.perf_counter()
                outline(source, language_for_path(path))
                t1 = time.perf_counter()
                story = why(reader, path, line=line, repo_root=work)
                t2 = time.perf_counter()
                parse.append(t1 - t0)
                warm.append(t2 - t1)
                known += story.known
        finally:
            reader.close()
        print(f"\nwarm why over {len(warm)} symbols ({known} with a story):")
        print(f"  why          p50 {ms(pct(warm, .5))}  p95 {ms(pct(warm, .95))}  "
              f"max {ms(max(warm))}   (goal p95 ≤ 100 ms)")
        print(f"  floor parse  p50 {ms(pct(parse, .5))}  p95 {ms(pct(parse, .95))}  "
              "(outline of the file alone)")

        git_log = []
        for path, _line, sym in targets[: args.git_log_runs]:
            t0 = time.perf_counter()
            proc = subprocess.run(["git", "--git-dir", args.repo, "log", "--format=%H",
                                   f"-L{sym.start_line},{sym.end_line}:{path}", args.rev, "--"],
                                  capture_output=True)
            git_log.append(time.perf_counter() - t0)
            if proc.returncode:
                sys.exit(f"git log -L failed: {proc.stderr.decode(errors='replace')}")
        if git_log:
            print(f"  baseline `git log -L start,end:path` p50 {ms(pct(git_log, .5))} "
                  f"(n={len(git_log)}; no units, no records, line-level only)")

        cold = []
        base = [sys.executable, "-m", "whylens"]
        for path, line, _name in targets[: args.cold_runs]:
            t0 = time.perf_counter()
            proc = subprocess.run([*base, "why", f"{work / path}:{line}", "--repo", str(work),
                                   "--index-dir", str(index_dir), "--json"], capture_output=True)
            cold.append(time.perf_counter() - t0)
            if proc.returncode:
                sys.exit(proc.stderr.decode(errors="replace"))
        floor_python = min(_time([sys.executable, "-c", "pass"]) for _ in range(3))
        floor_cli = min(_time([*base, "--version"]) for _ in range(3))
        print(f"\nfrom process start ({len(cold)} runs): `whylens why --json` median "
              f"{ms(statistics.median(cold))}, min {ms(min(cold))}")
        print(f"  floors: `python -c pass` {ms(floor_python)}, `whylens --version` {ms(floor_cli)}")


def _time(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True)
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
