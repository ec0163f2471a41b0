"""Choose the review gate and per-kind shifts on the tune repositories' replays (never held-out).

    python bench/tune_review.py bench/out/requests.json bench/out/express.json \
        [--min-precision 0.6] [--max-per100 5] [--min-kind-precision 0.4]

A coarse search: each kind's confidence may be shifted by 0, -0.1, -0.2 or switched off
(``--keep`` kinds, re-introduced reverts by default, never are), and the gate runs over
0.50..0.85, every combination. Unlabelled suggestions count as noise (the conservative side).
Among the settings whose pooled precision (cases and ordinary changes, hand labels) reaches
--min-precision, with at most --max-per100 comments per 100 ordinary changes on every repository
and every kind showing 3 comments or more reaching --min-kind-precision, the best pooled recall
wins, then the most useful comments (ties: fewer kinds switched off, smaller shifts, lower gate).
The cap of 10 per change is ignored (it never binds near the gate). The winner is printed for
review and baked into ``retrieval/review.py`` by hand (``KIND_SHIFT``, ``GATE``). Constraints on
a file-wide anchor (replays mark them ``wide``) are tuned as their own kind, ``constraint@wide``:
its shift less the constraint shift goes into ``review_constraints.WIDE_SHIFT``. Shifts are
relative to the engine that was replayed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

from score_review import at_gate, is_hit, key, load_labels, tune_kind

LABELS = Path(__file__).resolve().parent / "labels"  # wherever the script is run from
OFF = -9.0
SHIFTS = (0.0, -0.1, -0.2, OFF)
GATES = tuple(round(0.5 + 0.05 * i, 2) for i in range(8))


def prepare(paths: list[str]) -> list[dict]:
    """Per repository: each change's suggestions (deduplicated at the replay's floor) with their
    label and whether they hit the case."""
    repos = []
    for path in paths:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        labels = load_labels(LABELS / f"review-{data['name']}.tsv")
        rows = []
        for r in data["results"]:
            if r["set"] not in ("case", "ordinary"):
                continue
            found = [(tune_kind(s), s["confidence"],
                      labels.get(key(r["target"], s), {}).get("label", "").strip() == "useful",
                      r["set"] == "case" and is_hit(r, s)) for s in at_gate(r["new"], 0.0, {})]
            rows.append((r["set"], found))
        repos.append({"name": data["name"], "rows": rows,
                      "n_ordinary": sum(kind == "ordinary" for kind, _ in rows)})
    return repos


def tables(repos: list[dict]) -> tuple[dict, int, list[int]]:
    """For each kind and threshold: (cases hit as a bit mask, useful, shown, comments per
    repository). The cap of 10 per change is ignored (it never binds near the gate)."""
    out: dict[tuple[str, float], tuple[int, int, int, tuple[int, ...]]] = {}
    kinds = {k for repo in repos for _, found in repo["rows"] for k, *_ in found}
    thresholds = {round(g - v, 2) for g in GATES for v in SHIFTS if v > OFF}
    case_ids, n_ordinary = 0, [repo["n_ordinary"] for repo in repos]
    index = []
    for i, repo in enumerate(repos):
        for kind, found in repo["rows"]:
            index.append((i, kind, case_ids if kind == "case" else None, found))
            case_ids += kind == "case"
    for k in kinds:
        for t in thresholds:
            mask = useful = shown = 0
            comments = [0] * len(repos)
            for i, kind, case, found in index:
                for fk, c, u, h in found:
                    if fk == k and c >= t:
                        shown += 1
                        useful += u
                        if kind == "case":
                            mask |= h << case
                        else:
                            comments[i] += 1
            out[(k, t)] = (mask, useful, shown, tuple(comments))
    return out, case_ids, n_ordinary


def evaluate(table, cases: int, n_ordinary: list[int], shifts: dict[str, float], gate: float) -> dict:
    mask = useful = shown = 0
    comments = [0] * len(n_ordinary)
    weakest = 1.0  # the lowest precision of a kind that shows at least 3 comments
    for k, v in shifts.items():
        if v <= OFF:
            continue
        m, u, s, c = table[(k, round(gate - v, 2))]
        if s >= 3:
            weakest = min(weakest, u / s)
        mask, useful, shown = mask | m, useful + u, shown + s
        comments = [a + b for a, b in zip(comments, c)]
    hits = bin(mask).count("1")
    return {"recall": hits / max(1, cases), "hits": hits, "cases": cases,
            "precision": useful / shown if shown else 0.0, "useful": useful, "shown": shown,
            "per100": [100 * c / max(1, n) for c, n in zip(comments, n_ordinary)],
            "weakest": weakest}


def feasible(m: dict, args) -> bool:
    return m["shown"] > 0 and m["precision"] >= args.min_precision \
        and max(m["per100"]) <= args.max_per100 and m["weakest"] >= args.min_kind_precision


def rank(m: dict, shifts: dict[str, float], gate: float) -> tuple:
    return (m["recall"], m["useful"], m["precision"], -sum(v == OFF for v in shifts.values()),
            sum(v for v in shifts.values() if v > OFF), -gate)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--min-precision", type=float, default=0.6)
    parser.add_argument("--max-per100", type=float, default=5.0)
    parser.add_argument("--min-kind-precision", type=float, default=0.4,
                        help="every kind showing 3 comments or more must reach this precision")
    parser.add_argument("--keep", action="append", default=["reintroduces-revert"], metavar="KIND",
                        help="kinds never shifted (default: reintroduces-revert, whose re-applied "
                             "reverts must always be caught)")
    args = parser.parse_args()
    repos = prepare(args.results)
    table, cases, n_ordinary = tables(repos)
    kinds = sorted({k for k, _t in table})
    best = None
    choices = [(0.0,) if k in args.keep else SHIFTS for k in kinds]
    for combo in itertools.product(*choices):
        shifts = dict(zip(kinds, combo))
        for gate in GATES:
            m = evaluate(table, cases, n_ordinary, shifts, gate)
            if feasible(m, args) and (best is None or rank(m, shifts, gate) > best[0]):
                best = (rank(m, shifts, gate), shifts, gate, m)
    if best is None:
        print("no setting reaches the precision and comment budget")
        return
    _rank, shifts, gate, m = best
    budget = ", ".join(f"{repo['name']} {v:.1f}" for repo, v in zip(repos, m["per100"]))
    print(f"gate {gate}; shifts {{{', '.join(f'{k!r}: {v}' for k, v in shifts.items() if v)}}}")
    print(f"pooled recall {m['hits']}/{m['cases']} = {m['recall']:.0%}, precision {m['useful']}/"
          f"{m['shown']} = {m['precision']:.0%}, comments / 100 ordinary: {budget}")


if __name__ == "__main__":
    sys.exit(main())
