"""Time travel: does search find the earlier fix to the same code, with the history as it was?

    python bench/bench_timetravel.py                   # held-out: flask, axios
    python bench/bench_timetravel.py --tune            # requests, express, redis: sweep the
                                                       # file boost and the context prior

Protocol (CommitDistill's, made precise): fixes F are the first-parent commits of HEAD whose
subject says fix/bug/regression/crash and that change at least one source file (tests and docs
left out), from the second half of the history, spread over it (at most 40). F's targets are the earlier fix
commits that last touched the lines F changes (`git blame` of F's parent on F's changed line
ranges): the fix F is fixing again. Fs without such a target are skipped. For each F, in
commit order, the index is brought to F's parent (`run_index(rev=F^)`, incremental), and:
- WhyLens: `search.rank` for F's subject with F's files as context (the caller is editing
  them), gate off; the commits of its first 10 hits;
- BM25 over the raw messages of the commits reachable from F^, F's subject as the query;
- the query-free baseline: the 10 most recent earlier fix commits touching F's files.
Measure: MRR@10 of the first target, and the share of Fs with a target in the top 10.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qbench import MIRRORS, RawBM25, git_messages  # noqa: E402

from whylens.index.store import IndexStore  # noqa: E402
from whylens.models import Record  # noqa: E402
from whylens.pipeline import run_index  # noqa: E402
from whylens.retrieval import search as search_module  # noqa: E402

TUNE_REPOS = ("requests", "express", "redis")
HELD_OUT_REPOS = ("flask", "axios")
FIX = re.compile(r"\b(?:fix(?:e[sd])?|bug|regression|crash(?:es|ed)?)\b", re.I)
NOT_SOURCE = re.compile(r"(?:^|/)(?:tests?|spec|docs?|examples?|\.github)/|\.(?:md|rst|txt|yml|"
                        r"yaml|json|lock|toml|cfg|ini)$|(?:^|/)(?:CHANGES|HISTORY|History)\b", re.I)
SAMPLE = 40
TOP = 10


def git(mirror: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", mirror, *args], capture_output=True, text=True,
                          errors="replace").stdout


def source_files(mirror: str, sha: str) -> list[str]:
    names = git(mirror, "show", "--format=", "--name-only", "--diff-filter=M", sha).split()
    return [n for n in names if not NOT_SOURCE.search(n)]


def changed_ranges(mirror: str, sha: str, path: str) -> list[tuple[int, int]]:
    """Line ranges of ``path`` at the parent that ``sha`` deletes or modifies."""
    out = git(mirror, "diff", "-U0", f"{sha}^", sha, "--", path)
    ranges = []
    for m in re.finditer(r"^@@ -(\d+)(?:,(\d+))? \+", out, re.M):
        start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
        if count > 0:
            ranges.append((start, start + count - 1))
    return ranges


def blamed(mirror: str, sha: str, path: str, ranges: list[tuple[int, int]]) -> set[str]:
    args = ["blame", "--porcelain", f"{sha}^"]
    for start, end in ranges[:20]:
        args += ["-L", f"{start},{end}"]
    out = git(mirror, *args, "--", path)
    return {line.split()[0] for line in out.splitlines() if re.match(r"^[0-9a-f]{40} \d+", line)}


def subject(mirror: str, sha: str) -> str:
    return git(mirror, "show", "-s", "--format=%s", sha).strip()


def sample_fixes(mirror: str) -> list[dict]:
    rows = git(mirror, "log", "--first-parent", "--no-merges", "--reverse",
               "--format=%H%x1f%s", "HEAD").splitlines()
    fixes = [r.split("\x1f", 1) for r in rows if "\x1f" in r]
    fixes = [(sha, subj) for sha, subj in fixes[len(fixes) // 2:] if FIX.search(subj)]
    stride = max(1, len(fixes) // SAMPLE)  # spread over the period: every stride-th first
    order = [fixes[i] for start in range(stride) for i in range(start, len(fixes), stride)]
    picked = []
    for sha, subj in order:
        files = source_files(mirror, sha)
        if not files:
            continue
        targets: set[str] = set()
        for path in files[:5]:
            ranges = changed_ranges(mirror, sha, path)
            if ranges:
                targets |= blamed(mirror, sha, path, ranges)
        targets = {t for t in targets if FIX.search(subject(mirror, t))}
        if targets:
            picked.append({"sha": sha, "subject": subj, "files": files, "targets": targets})
        if len(picked) >= SAMPLE:
            break
    return sorted(picked, key=lambda fix: fixes.index((fix["sha"], fix["subject"])))


def recent_fixes(mirror: str, fix: dict) -> list[str]:
    out = git(mirror, "log", "--no-merges", "--format=%H%x1f%s", f"{fix['sha']}^", "--",
              *fix["files"])
    shas = [line.split("\x1f", 1)[0] for line in out.splitlines()
            if "\x1f" in line and FIX.search(line.split("\x1f", 1)[1])]
    return shas[:TOP]


def reciprocal_rank(commits: list[list[str]], targets: set[str]) -> float:
    for n, shas in enumerate(commits[:TOP], 1):
        if targets & set(shas):
            return 1.0 / n
    return 0.0


def whylens_commits(reader, fix: dict, weights) -> list[list[str]]:
    context = search_module.SearchContext(paths=tuple(fix["files"]))
    ranking = search_module.rank(reader, fix["subject"], context=context, weights=weights,
                                 load=TOP)
    out = []
    for scored in ranking.ranked[:TOP]:
        shas = [scored.commit]
        if isinstance(scored.item, Record):
            shas += list(scored.item.fixing_commits)
        out.append(shas)
    return out


def run_repo(name: str, workdir: Path, settings: dict) -> dict[str, list[float]]:
    mirror = MIRRORS[name]
    fixes = sample_fixes(mirror)
    index_dir = workdir / f"timetravel-{name}"
    shutil.rmtree(index_dir, ignore_errors=True)
    scores: dict[str, list[float]] = {label: [] for label in settings}
    scores["bm25 raw messages"], scores["10 most recent earlier fixes"] = [], []
    for fix in fixes:
        run_index(mirror, index_dir, rev=f"{fix['sha']}^")
        with IndexStore(index_dir).reader() as reader:
            for label, weights in settings.items():
                scores[label].append(reciprocal_rank(whylens_commits(reader, fix, weights),
                                                     fix["targets"]))
        bm25 = RawBM25(git_messages(mirror, f"{fix['sha']}^"))
        scores["bm25 raw messages"].append(
            reciprocal_rank(bm25.answer(fix["subject"]).commits, fix["targets"]))
        scores["10 most recent earlier fixes"].append(
            reciprocal_rank([[s] for s in recent_fixes(mirror, fix)], fix["targets"]))
    print(f"\n{name}: {len(fixes)} fixes with an earlier fix to the same lines")
    for label, values in scores.items():
        n = max(len(values), 1)
        print(f"  {label:<44} MRR@10 {sum(values) / n:.3f}   target in top 10 "
              f"{sum(v > 0 for v in values) / n:.3f}")
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tune", action="store_true")
    parser.add_argument("--repo", action="append")
    parser.add_argument("--workdir", default="/tmp/search-bench")
    args = parser.parse_args()
    base = search_module.WEIGHTS
    if args.tune:
        settings = {f"whylens file boost {f} context prior {p}":
                    replace(base, file_boost=f, context_prior=p)
                    for f in (0.3, 1.0) for p in (0.0, 0.4, 0.8, 1.5, 3.0)}
    else:
        settings = {"whylens (shipped weights)": base,
                    "whylens, no context": replace(base, file_boost=0.0, symbol_boost=0.0,
                                                   context_prior=0.0, context_n=0)}
    names = args.repo or (TUNE_REPOS if args.tune else HELD_OUT_REPOS)
    print(f"{'TUNE half, in-sample' if args.tune else 'HELD-OUT half'}; load average "
          f"{os.getloadavg()[0]:.1f} (2 cores shared)")
    pooled: dict[str, list[float]] = {}
    for name in names:
        for label, values in run_repo(name, Path(args.workdir), settings).items():
            pooled.setdefault(label, []).extend(values)
    if len(names) > 1:
        print(f"\nall of {', '.join(names)}")
        for label, values in pooled.items():
            n = max(len(values), 1)
            print(f"  {label:<44} MRR@10 {sum(values) / n:.3f}   target in top 10 "
                  f"{sum(v > 0 for v in values) / n:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
