"""Tune the known-pitfall scoring (retrieval/pitfalls.py) on the TUNE repositories' error texts.

    python bench/tune_errors.py            # sweep, print the best settings

Errors: bench/labels/errors/{requests,httpx,express}.jsonl (known, with the commits that explain
them, and unrelated). Each error's candidates and their signals are computed once with the
real code (`explain_error`'s search and frames); every setting of the signal weights, the commit
documents' prior and the gate then re-scores them. A setting is feasible when it keeps at least
90% of the unrelated errors silent and when neither the symbol nor the search rank alone can
pass the gate (the hint must not fire on any error in a function only because it has history),
nor a generic builtin failure name (``TypeError``) with the failing symbol, while a specific
one (``PoolExhaustedError``) with the failing symbol or search's first hit passes (the table of
tests/unit/retrieval/test_pitfalls.py); the best feasible one puts a relevant commit in the
top 3 for the most known errors (ties: the higher gate). The held-out repositories are never
opened.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qbench import ERRORS_TUNE, ensure_index, errors  # noqa: E402

from whylens.index.store import IndexStore  # noqa: E402
from whylens.retrieval import pitfalls  # noqa: E402
from whylens.retrieval.errortext import parse_error_text  # noqa: E402

SILENCE = 0.9
GENERIC_NAME = 0.6  # pitfalls.score: a generic builtin failure name counts for 0.6


def collect(workdir: Path) -> list[dict]:
    rows = []
    for name in ERRORS_TUNE:
        index_dir, _ = ensure_index(name, workdir)
        with IndexStore(index_dir).reader() as reader:
            for row in errors(name):
                parsed = parse_error_text(row["text"])
                candidates = pitfalls._search_candidates(
                    reader, parsed, context=pitfalls.error_context(parsed),
                    anchored=pitfalls._frame_candidates(reader, parsed.frames))
                scored = []
                for cand in candidates.values():
                    _, signals = pitfalls.score(cand.item, parsed, cand.symbol, cand.retrieval)
                    scored.append((pitfalls._kind(cand.item), pitfalls.commits_of(cand.item),
                                   signals))
                rows.append({"kind": row["kind"], "relevant": set(row["relevant"]),
                             "candidates": scored})
    return rows


def evaluate(rows: list[dict], weights: dict, priors: dict, gate: float) -> tuple[float, float]:
    hits = silent = 0
    known = [r for r in rows if r["kind"] == "known"]
    unrelated = [r for r in rows if r["kind"] == "unrelated"]
    for row in rows:
        ranked = []
        for kind, commits, signals in row["candidates"]:
            miss = 1.0
            for name, w in weights.items():
                miss *= 1.0 - w * signals[name]
            confidence = priors.get(kind, 0.7) * (1.0 - miss)
            if confidence >= gate:
                ranked.append((confidence, commits))
        ranked.sort(key=lambda pair: -pair[0])
        seen: set[str] = set()
        top = []
        for _, commits in ranked:  # one pitfall per commit, as pitfalls._one_per_commit
            if commits & seen:
                continue
            seen |= commits
            top.append(commits)
        if row["kind"] == "known":
            hits += any(c & row["relevant"] for c in top[:3])
        else:
            silent += not top
    return hits / max(len(known), 1), silent / max(len(unrelated), 1)


def main() -> int:
    rows = collect(Path("/tmp/search-bench") if len(sys.argv) < 2 else Path(sys.argv[1]))
    print(f"{sum(r['kind'] == 'known' for r in rows)} known, "
          f"{sum(r['kind'] == 'unrelated' for r in rows)} unrelated tune errors")
    current = evaluate(rows, pitfalls.WEIGHTS, pitfalls.TYPE_PRIOR, pitfalls.GATE)
    print(f"current settings: top-3 {current[0]:.3f}, unrelated silent {current[1]:.3f}")
    results = []
    for retrieval, fix, symbol, name, words, commit_prior, gate in itertools.product(
            (0.3, 0.5, 0.7), (0.0, 0.1, 0.2), (0.3, 0.45, 0.6), (0.4, 0.6), (0.3, 0.5),
            (0.7, 0.85, 1.0), (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)):
        weights = {"name": name, "symbol": symbol, "words": words, "retrieval": retrieval,
                   "fix": fix}
        priors = {**pitfalls.TYPE_PRIOR, "commit": commit_prior}
        strongest = max(priors.values())
        if max(symbol, retrieval) * strongest >= gate:
            continue  # one weak signal alone would pass
        if (1 - (1 - GENERIC_NAME * name) * (1 - symbol)) * strongest >= gate:
            continue  # a builtin failure name (TypeError) in the failing function is not enough
        if min(1 - (1 - name) * (1 - symbol), 1 - (1 - name) * (1 - retrieval)) < gate:
            continue  # a specific failure name with the failing symbol, or ranked first, is
        found, silent = evaluate(rows, weights, priors, gate)
        results.append((found, silent, gate, retrieval, fix, symbol, name, words, commit_prior))
    feasible = [r for r in results if r[1] >= SILENCE]
    feasible.sort(key=lambda r: (-r[0], -r[2], r[3], r[4]))
    print("best feasible settings (top-3, unrelated silent, gate, retrieval, fix, symbol, name, "
          "words, commit prior):")
    for r in feasible[:10]:
        print("  " + "  ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
