"""Score a review replay (bench/replay_review.py --save) at a gate, against hand labels.

    python bench/score_review.py bench/out/requests.json [--gate 0.7] \
        [--labels bench/labels/review-requests.tsv] [--todo to-label.tsv] [--offset co-change=-0.1]

For the new engine and the baseline (main's engine at its own gate), from the same run:
- recall: the share of cases (later reverted / soon fixed) with a suggestion at the gate on a
  symbol the later revert or fix touched — or, for a co-change suggestion, naming a file or symbol
  the later revert or fix touched (the partner the change left out); a suggestion on a file-wide
  anchor (replays from review4 mark them ``wide``) is no hit, since every change of the file
  touches that symbol (printed alongside: the count with them);
- precision: useful / labelled among the suggestions at the gate (cases and ordinary changes),
  from the hand labels (``label`` = useful / noise, rule in the labels' README section of
  docs/benchmarks.md); unlabelled ones are counted and listed with --todo;
- comments per 100 ordinary changes;
- the re-applied revert set: the share caught (a ``reintroduces-revert`` citing the revert).
``--offset KIND=X`` adds X to one kind's confidence before gating (for tuning on tune
repositories only; bake the result into the engine and re-run).
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import statistics
import sys
from pathlib import Path

from review_causal import keep_case
from whylens.models import Suggestion
from whylens.retrieval.review import DEFAULT_CAP, GATE, select

BASELINE_GATE = 0.6  # the pre-issue-15 engine's gate, for replays saved without ``baseline_gate``
FIELDS = ["target", "set", "path", "line", "kind", "confidence", "evidence", "body", "label", "note"]


def key(target: str, s: dict) -> tuple:
    return (target, s["path"], str(s["line"]), s["kind"], " ".join(s["evidence"]))


def load_labels(path: Path) -> dict[tuple, dict]:
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return {(r["target"], r["path"], r["line"], r["kind"], r["evidence"]): r for r in rows}


WIDE_KINDS = ("constraint",)  # kinds scored and tuned apart on file-wide anchors (KIND@wide)


def tune_kind(s: dict) -> str:
    """The kind as calibrated: ``constraint@wide`` for a constraint on a file-wide anchor
    (``review_hunks.file_wide``; replays saved before review4 have no ``wide``)."""
    return f"{s['kind']}@wide" if s.get("wide") and s["kind"] in WIDE_KINDS else s["kind"]


def at_gate(suggestions: list[dict], gate: float, offsets: dict[str, float]) -> list[dict]:
    """The suggestions ``select`` keeps at ``gate`` after ``offsets`` (by ``tune_kind``, else kind)."""
    wide = {}
    objects = []
    for s in suggestions:
        shift = offsets.get(tune_kind(s), offsets.get(s["kind"], 0))
        objects.append(Suggestion(path=s["path"], line=s["line"], side=s["side"], kind=s["kind"],
                                  body=s["body"], confidence=round(s["confidence"] + shift, 3),
                                  evidence=tuple(s["evidence"]), symbol=s["symbol"]))
        wide[(s["path"], s["line"], s["kind"], tuple(s["evidence"]))] = bool(s.get("wide"))
    kept = select(objects, cap=DEFAULT_CAP, gate=gate)
    return [{"path": s.path, "line": s.line, "side": s.side, "kind": s.kind, "body": s.body,
             "confidence": s.confidence, "evidence": list(s.evidence), "symbol": s.symbol,
             "wide": wide[(s.path, s.line, s.kind, s.evidence)]} for s in kept]


def is_hit(row: dict, s: dict, wide: bool = False) -> bool:
    """``s`` is on what the later revert or fix touched. A suggestion on a file-wide anchor
    (``wide``: ``module.exports`` holding the file, a test class spanning it) counts only with
    ``wide=True``: every change of its file touches that symbol, so naming it says nothing."""
    if s.get("wide") and not wide and s["kind"] != "co-change":
        return False
    names = {symbol for _p, symbol in row["targets"]}
    paths = {p for p, _s in row["targets"]}
    if s["kind"] == "co-change":
        partner = s["evidence"][0].removeprefix("co-change:")
        path, _, symbol = partner.partition("::")
        if symbol:
            return [path, symbol] in row["later_symbols"]
        return path in row["later_files"]
    return s["symbol"] in names or (s["symbol"] is None and s["path"] in paths)


def score(data: dict, engine: str, gate: float, offsets: dict, labels: dict,
          definition: str = "symbol") -> dict:
    """``definition``: ``symbol`` (the replay's case set as saved) or ``causal`` (a fixed case
    only when the later fix rewrites lines the change added, ``review_causal.keep_case``)."""
    cases = [r for r in data["results"] if r["set"] == "case"
             and (definition == "symbol" or keep_case(data["repo"], r))]
    ordinary = [r for r in data["results"] if r["set"] == "ordinary"]
    shown = {id(r): at_gate(r[engine], gate, offsets if engine == "new" else {})
             for r in cases + ordinary}
    hits = collections.Counter()
    wide_hits = 0
    for r in cases:
        if any(is_hit(r, s) for s in shown[id(r)]):
            hits[r["kind"]] += 1
        wide_hits += any(is_hit(r, s, wide=True) for s in shown[id(r)])
    by_kind = collections.Counter(r["kind"] for r in cases)
    judged = collections.Counter()
    unlabelled = []
    kinds = collections.Counter()
    for r in cases + ordinary:
        for s in shown[id(r)]:
            label = labels.get(key(r["target"], s), {}).get("label", "").strip()
            kinds[(tune_kind(s), label or "?")] += 1
            if label in ("useful", "noise"):
                judged[(r["set"], label)] += 1
            else:
                unlabelled.append((r, s))
    comments = sum(len(shown[id(r)]) for r in ordinary)
    useful = judged[("case", "useful")] + judged[("ordinary", "useful")]
    labelled = sum(judged.values())
    return {
        "recall": (sum(hits.values()), len(cases)), "recall_with_wide": (wide_hits, len(cases)),
        "recall_by_kind": {k: (hits[k], n) for k, n in by_kind.items()},
        "per100": 100 * comments / max(1, len(ordinary)), "comments": comments,
        "precision": (useful, labelled),
        "precision_ordinary": (judged[("ordinary", "useful")],
                               judged[("ordinary", "useful")] + judged[("ordinary", "noise")]),
        "unlabelled": unlabelled, "kinds": kinds,
    }


def pct(pair) -> str:
    a, b = pair
    return f"{a}/{b} = {a / b:.0%}" if b else f"{a}/0"


def caught_by(r: dict, engine: str, gate: float, offsets: dict, same: bool = False) -> bool:
    """A ``reintroduces-revert`` at the gate cites the revert; with ``same``, or the same revert
    otherwise: a commit a revert made as a merge brought in (replays from review6 list them),
    or the reverted commit (cited with another revert of it)."""
    shown = at_gate(r[engine], gate, offsets if engine == "new" else {})
    pair = r["pair"]
    names = {pair["revert"]}
    if same:
        names |= set(pair.get("brought_in", ())) | {pair["reverted"]}
    return any(s["kind"] == "reintroduces-revert" and names & set(s["evidence"]) for s in shown)


def reapply(data: dict, gate: float, offsets: dict, baseline_gate: float) -> None:
    for what in ("reapply-revert", "reapply-child"):
        rows = [r for r in data["results"] if r["set"] == what]
        if not rows:
            continue
        def code(r):
            return r.get("code_changes", r.get("text_changes", 0))
        undone = sum(1 for r in rows if r.get("applied") and code(r) and r.get("revert_undone"))
        applied = [r for r in rows if r.get("applied") and code(r) and not r.get("revert_undone")]
        binary = sum(1 for r in rows if r.get("applied") and not code(r))
        caught, missed = 0, []
        for r in applied:
            if caught_by(r, "new", gate, offsets):
                caught += 1
            elif not caught_by(r, "new", gate, offsets, same=True):
                missed.append(r)
        same = len(applied) - len(missed)
        old = sum(1 for r in applied if caught_by(r, "old", baseline_gate, {}))
        old_same = sum(1 for r in applied if caught_by(r, "old", baseline_gate, {}, same=True))
        print(f"  {what:15} {len(rows)} reverts, {len(applied)} applied with code changes "
              f"({binary} binary or layout only, {undone} with the revert already undone): "
              f"caught {pct((caught, len(applied)))}, citing the same revert {pct((same, len(applied)))}"
              f"  (baseline: {pct((old, len(applied)))}, {pct((old_same, len(applied)))})")
        for r in missed:
            best = max((s["confidence"] for s in r["new"] if r["pair"]["revert"] in s["evidence"]), default=None)
            print(f"    missed {r['pair']['revert'][:10]} {r['pair']['subject'][:70]!r} (best {best})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--gate", type=float, default=GATE)
    parser.add_argument("--labels", help="default: bench/labels/review-NAME.tsv")
    parser.add_argument("--offset", action="append", default=[], metavar="KIND=X")
    parser.add_argument("--todo", help="write the unlabelled suggestions at the gate here (TSV)")
    parser.add_argument("--cases", choices=("symbol", "causal", "both"), default="both",
                        help="case definition: the replay's (symbol), causal fixes only, or both")
    parser.add_argument("--curve", action="store_true", help="also print other thresholds")
    args = parser.parse_args()
    offsets = {k: float(v) for k, v in (o.split("=", 1) for o in args.offset)}
    todo = []
    for path in args.results:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        labels_path = Path(args.labels) if args.labels else (
            Path(__file__).resolve().parent / "labels" / f"review-{data['name']}.tsv")
        labels = load_labels(labels_path)
        seconds = [r["seconds"] for r in data["results"] if "seconds" in r]
        print(f"{data['name']} (HEAD {data['head'][:10]}): {data['n_cases']} cases, {data['n_ordinary']} "
              f"ordinary; replay {data['seconds']} s; review p50 {statistics.median(seconds or [0]):.2f} s, "
              f"max {max(seconds or [0]):.2f} s; labels {labels_path}")
        baseline_gate = data.get("baseline_gate") or BASELINE_GATE
        definitions = ("symbol", "causal") if args.cases == "both" else (args.cases,)
        for engine, gate, definition in [(e, g, d) for e, g in (("old", baseline_gate), ("new", args.gate))
                                         for d in definitions]:
            m = score(data, engine, gate, offsets, labels, definition)
            title = f"baseline {data.get('baseline', '')}" if engine == "old" else "new engine"
            title += f" [{definition}]"
            print(f"  {title:15} gate {gate:.2f}: recall {pct(m['recall'])} {m['recall_by_kind']} "
                  f"(counting hits on file-wide anchors: {pct(m['recall_with_wide'])}); "
                  f"precision {pct(m['precision'])} (ordinary {pct(m['precision_ordinary'])}); "
                  f"{m['per100']:.1f} comments / 100 ordinary; {len(m['unlabelled'])} unlabelled")
            print(f"    kinds: {dict(sorted(m['kinds'].items()))}")
            if definition == definitions[0]:
                todo += [(engine, r, s) for r, s in m["unlabelled"]]
        if args.curve:
            for threshold in (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9):
                m = score(data, "new", threshold, offsets, labels)
                print(f"    ≥ {threshold:.2f}: recall {pct(m['recall'])}, precision {pct(m['precision'])}, "
                      f"{m['per100']:.1f} / 100, unlabelled {len(m['unlabelled'])}")
        reapply(data, args.gate, offsets, baseline_gate)
    if args.todo:
        seen = set()
        with open(args.todo, "w", newline="", encoding="utf-8") as handle:
            out = csv.writer(handle, delimiter="\t")
            out.writerow(FIELDS)
            for _engine, r, s in todo:
                k = key(r["target"], s)
                if k in seen:
                    continue
                seen.add(k)
                out.writerow([r["target"], r["set"], s["path"], s["line"], s["kind"], s["confidence"],
                              " ".join(s["evidence"]), " ".join(s["body"].split())[:400], "", ""])
        print(f"wrote {len(seen)} unlabelled suggestions to {args.todo}")


if __name__ == "__main__":
    sys.exit(main())
