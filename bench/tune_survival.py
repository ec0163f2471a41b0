"""Choose ``review_survival``'s threshold and scope on tune replays (round 33, recall34).

    python bench/tune_survival.py /work/scratch/recall34/tune-*.json

The replays must be run with ``replay_review.py --survival-trace``: the new engine then never
silences a ``rewrites-fix`` on a kept fix, and records, for each finding, how many of the fix's
tokens the change takes out and how many it adds again, in both scopes (``file``, ``hunk``;
replays from recall34's second run also ``change``: any added line of the change, every file,
which the engine does not offer).
For each scope and threshold, the findings whose share kept is at least the threshold are
dropped from the new engine's suggestions (exactly what the engine would do: the choice is
made per finding before ``select``), and the replays are scored at the gate under the causal
case definition, pooled and per repository: cases caught, precision (hand labels), comments
per 100 ordinary changes, and what was silenced at the gate by label.

Rule, fixed before the replays were read: the scope and threshold with the most noise minus
useful silenced at the gate (pooled); ties go to the higher threshold (silent less often), then
to ``file``.
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import sys
from pathlib import Path

from score_review import at_gate, key, load_labels, pct, score
from whylens.retrieval.review import GATE

THRESHOLDS = (None, 1.0, 0.9, 0.8, 0.75, 2 / 3, 0.6, 0.5)  # None: never silent (main)


def share(row: dict, scope: str) -> float:
    kept, total = row[scope]
    return kept / total if total else 0.0  # as review_survival.Survival.share


def silenced(data: dict, scope: str, threshold: float | None) -> dict:
    """A copy of ``data`` whose new-engine suggestions lack the findings silenced at ``threshold``."""
    out = copy.deepcopy(data)
    if threshold is None:
        return out
    for r in out["results"]:
        quiet = {(t["path"], t["line"], t["fix"]) for t in r.get("survival", ()) if share(t, scope) >= threshold}
        r["new"] = [s for s in r.get("new", []) if not (
            s["kind"] == "rewrites-fix" and (s["path"], s["line"], s["evidence"][0]) in quiet)]
    return out


def gone_at_gate(before: dict, after: dict, labels: dict) -> collections.Counter:
    """Labels of the suggestions at the gate in ``before`` and not in ``after``."""
    out: collections.Counter = collections.Counter()
    for r, q in zip(before["results"], after["results"]):
        if r["set"] not in ("case", "ordinary"):
            continue
        was = {key(r["target"], s) for s in at_gate(r["new"], GATE, {})}
        now = {key(r["target"], s) for s in at_gate(q["new"], GATE, {})}
        for k in was - now:
            out[labels.get(k, {}).get("label", "").strip() or "?"] += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+")
    args = parser.parse_args()
    runs = []
    for path in args.results:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        labels = load_labels(Path(__file__).resolve().parent / "labels" / f"review-{data['name']}.tsv")
        runs.append((data, labels))
    best = None
    scopes = ["file", "hunk"] + (["change"] if any(
        "change" in t for data, _ in runs for r in data["results"] for t in r.get("survival", ())) else [])
    for scope in scopes:
        for threshold in THRESHOLDS:
            pooled = collections.Counter()
            lines = []
            for data, labels in runs:
                after = silenced(data, scope, threshold)
                m = score(after, "new", GATE, {}, labels, "causal")
                gone = gone_at_gate(data, after, labels)
                pooled.update({"hit": m["recall"][0], "cases": m["recall"][1], "useful": m["precision"][0],
                               "labelled": m["precision"][1], "comments": m["comments"],
                               "ordinary": data["n_ordinary"], "unlabelled": len(m["unlabelled"]),
                               **{f"gone_{k}": v for k, v in gone.items()}})
                lines.append(f"    {data['name']:9} cases {pct(m['recall'])}, precision {pct(m['precision'])}, "
                             f"{m['per100']:.1f} / 100, unlabelled {len(m['unlabelled'])}, silenced {dict(gone)}")
            name = "never" if threshold is None else f"{threshold:.2f}"
            net = pooled["gone_noise"] - pooled["gone_useful"]
            print(f"{scope:4} ≥ {name}: cases {pct((pooled['hit'], pooled['cases']))}, precision "
                  f"{pct((pooled['useful'], pooled['labelled']))}, "
                  f"{100 * pooled['comments'] / max(1, pooled['ordinary']):.1f} / 100, unlabelled "
                  f"{pooled['unlabelled']}; silenced at the gate: noise {pooled['gone_noise']}, useful "
                  f"{pooled['gone_useful']}, unlabelled {pooled['gone_?']} (net {net})")
            print("\n".join(lines))
            if threshold is not None and (best is None or net > best[0]):
                best = (net, scope, threshold)
    if best:
        print(f"chosen (most noise minus useful silenced; ties: higher threshold, then file): "
              f"scope {best[1]}, threshold {best[2]:.2f} (net {best[0]})")


if __name__ == "__main__":
    sys.exit(main())
