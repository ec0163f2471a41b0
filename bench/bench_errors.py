"""Errors whose explanation is in the history: `explain-error` and the known-pitfall hint, next to
BM25 over raw commit messages, on the HELD-OUT repositories (or the tune ones, in-sample).

    python bench/bench_errors.py                 # held-out: flask, axios
    python bench/bench_errors.py --tune          # requests, httpx, express (in-sample)
    python bench/bench_errors.py --verbose

Labels: bench/labels/errors/<repo>.jsonl — `known` error texts (reproduced at the fix's parent,
or quoted from a fix's message) with the commits that explain or fix them, and `unrelated` ones
the history knows nothing about. Each repository is indexed at its HEAD (the fix is in the
history, as it is for a developer running an older release or meeting the bug again).
- explain-error: `retrieval.pitfalls.explain_error(reader, text)`; right when a relevant commit
  stands behind one of the first 3 pitfalls; silent when it returns none;
- the hint: `retrieval.pitfalls.match_errors` for the error reported at the row's path and line
  (the file as it was at `as_of`, as the editor would hold it); rows without a line are left
  out of this measure;
- baseline: BM25 over raw commit messages with the whole error text as the query (top 3; it
  never stays silent).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qbench import (ERRORS_HELD_OUT, ERRORS_TUNE, MIRRORS, RawBM25, ensure_index,  # noqa: E402
                    errors, git_messages, split_args)

from whylens.index.store import IndexStore  # noqa: E402
from whylens.retrieval.pitfalls import commits_of, explain_error, match_errors  # noqa: E402

TOP = 3


def file_at(mirror: str, rev: str, path: str) -> str | None:
    out = subprocess.run(["git", "--git-dir", mirror, "show", f"{rev}:{path}"],
                         capture_output=True)
    return out.stdout.decode("utf-8", "replace") if out.returncode == 0 else None


def hit(pitfalls, relevant: set[str]) -> bool:
    return any(commits_of(p.item) & relevant for p in pitfalls[:TOP])


def run_repo(name: str, workdir: Path, verbose: bool) -> list[dict]:
    index_dir, _ = ensure_index(name, workdir)
    bm25 = RawBM25(git_messages(MIRRORS[name]))
    rows = []
    with IndexStore(index_dir).reader() as reader:
        explain_error(reader, "warm up")
        for row in errors(name):
            relevant = set(row["relevant"])
            started = time.perf_counter()
            found = explain_error(reader, row["text"])
            seconds = time.perf_counter() - started
            hint = None
            if row.get("path") and row.get("line"):
                text = file_at(MIRRORS[name], row["as_of"], row["path"])
                hint = match_errors(reader, row["path"], text, [
                    {"line": row["line"], "message": row["message"], "source": "bench",
                     "code": None}])
            baseline = bm25.answer(row["text"])
            out = {
                "id": row["id"], "kind": row["kind"], "seconds": seconds,
                "explain_hit": hit(found, relevant), "explain_silent": not found,
                "hint_hit": None if hint is None else hit(hint, relevant),
                "hint_silent": None if hint is None else not hint,
                "bm25_hit": any(set(c) & relevant for c in baseline.commits[:TOP]),
            }
            rows.append(out)
            if verbose:
                top = found[0].item.title[:60] if found else "(silent)"
                print(f"  {row['id']:<28} {row['kind']:<9} explain {'hit ' if out['explain_hit'] else '-   '}"
                      f"hint {out['hint_hit']!s:<5} bm25 {'hit' if out['bm25_hit'] else '-'}  {top}")
    return rows


def report(title: str, rows: list[dict]) -> None:
    known = [r for r in rows if r["kind"] == "known"]
    unrelated = [r for r in rows if r["kind"] == "unrelated"]
    hinted = [r for r in known if r["hint_hit"] is not None]
    hinted_unrelated = [r for r in unrelated if r["hint_silent"] is not None]
    n = max(len(known), 1)
    ms = sorted(r["seconds"] * 1000 for r in rows)
    print(f"\n{title}: {len(known)} known errors, {len(unrelated)} unrelated")
    print(f"  explain-error: relevant fix in the top {TOP} {sum(r['explain_hit'] for r in known) / n:.3f}"
          f", silent on unrelated {sum(r['explain_silent'] for r in unrelated) / max(len(unrelated), 1):.3f}"
          f", silent on known {sum(r['explain_silent'] for r in known) / n:.3f}"
          f"  (p50 {statistics.median(ms):.0f} ms, max {ms[-1]:.0f} ms)")
    if hinted:
        print(f"  known-pitfall hint ({len(hinted)} known with a line): relevant fix in the top "
              f"{TOP} {sum(r['hint_hit'] for r in hinted) / len(hinted):.3f}; silent on "
              f"{len(hinted_unrelated)} unrelated with a line "
              f"{sum(r['hint_silent'] for r in hinted_unrelated) / max(len(hinted_unrelated), 1):.3f}")
    print(f"  baseline, BM25 over raw messages: relevant fix in the top {TOP} "
          f"{sum(r['bm25_hit'] for r in known) / n:.3f} (never silent)")


def main() -> int:
    args, names, label = split_args(__doc__, ERRORS_TUNE, ERRORS_HELD_OUT)
    pooled = []
    for name in names:
        if args.verbose:
            print(f"\n{name}")
        rows = run_repo(name, Path(args.workdir), args.verbose)
        report(name, rows)
        pooled += rows
    if len(names) > 1:
        report(f"all of {', '.join(names)} ({label})", pooled)
    return 0


if __name__ == "__main__":
    sys.exit(main())
