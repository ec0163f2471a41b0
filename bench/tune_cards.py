"""Choosing the card gate (knowledge/confidence.py) on the tune repositories, and nowhere else.

    # 1. an index with the gate open: every item any gate could show is in it
    python bench/tune_cards.py index --repo requests=/tmp/requests --index requests=/tmp/open-requests
    # 2. every candidate item of the tune symbols, with its evidence (label the new ones)
    python bench/tune_cards.py pool --set tune --repo requests=/tmp/requests \\
        --index requests=/tmp/open-requests ... > /tmp/pool.jsonl
    # 3. fit the weights (leave-one-repository-out) and see precision / items kept per gate
    python bench/tune_cards.py fit /tmp/pool.jsonl
    # 4. the cards a gate would give, as bench_cards.py reads them, scored with the labels
    python bench/tune_cards.py simulate --set tune --gate 0.5 --repo ... --index ...

An item is keyed as bench_cards.py keys it, (repo, symbol, field, text as a reader sees it), so
the labels of bench/labels/cards/ apply. ``simulate`` applies the product's own gating functions
(``knowledge.confidence``, ``records.about``) to the open index, so it shows exactly what an index
built with that gate would show, without rebuilding it. Only the tune sets may be used here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cards import clean, each_symbol, items_of, load_labels  # noqa: E402
from card_sets import SETS, pairs  # noqa: E402

OPEN = -1.0  # a gate every item passes


def open_gate() -> None:
    from whylens.knowledge import confidence
    confidence.GATE = OPEN


def build(args) -> int:
    from whylens.pipeline import run_index
    open_gate()
    for name, repo in pairs(args.repo).items():
        stats = run_index(repo, pairs(args.index)[name])
        print(name, stats.describe())
    return 0


class GatedReader:
    """An open index read as if its units had been anchored with ``confidence.GATE``: the unit
    gate of ``extract_units`` applied to each symbol's units (record claims are gated when read
    anyway, by ``records.about``)."""

    def __init__(self, reader) -> None:
        self._reader = reader

    def __getattr__(self, name):
        return getattr(self._reader, name)

    def units_for_symbol(self, name: str, path: str | None = None):
        from whylens.knowledge.confidence import shown
        history = self._reader.symbol_history(name, path=path)
        return [u for u in self._reader.units_for_symbol(name, path=path)
                if shown(unit_evidence(u, name, history))]


def _stories(args, gated: bool = False):
    """(repo, path, symbol name, reader, story) of every symbol of the set; ``gated``: read
    through ``GatedReader``."""
    from whylens.retrieval.why import why

    repos = pairs(args.repo)
    for repo, path, name, opened in each_symbol(args):
        reader = GatedReader(opened) if gated else opened
        yield repo, path, name, reader, why(reader, path, symbol=name, repo_root=Path(repos[repo]))


def unit_evidence(unit, symbol: str, history):
    from whylens.knowledge.confidence import UNIT_FIELDS, evidence
    kinds = {e.commit: e.kind for e in history}
    return evidence(unit.content, UNIT_FIELDS[unit.type], unit.weight, symbol,
                    kinds.get(unit.commit, "body"), unit.symbols)


def claim_evidence(record, claim, field: str, symbol: str, history, reader):
    """The evidence ``records.about`` computes for one claim (mirrors ``claims_about``)."""
    from whylens.knowledge.confidence import evidence
    changes = {e.commit: e.kind for e in history}
    units = {u.id: u for u in record.thread}
    unit = units.get(claim.unit)
    commit = unit.commit if unit is not None else None
    title = bool(record.thread) and claim.unit == record.thread[0].id

    def of(sha):
        return [e.symbol for e in reader.events_of(sha) if e.kind != "deleted"]
    if commit is not None:
        return evidence(claim.text, field, claim.weight, symbol, changes.get(commit), of(commit),
                        title=title)
    change = next((changes[s] for s in record.fixing_commits if s in changes), None)
    return evidence(claim.text, field, claim.weight, symbol, change,
                    [s for sha in record.fixing_commits for s in of(sha)], title=title,
                    whole_work=True)


def pool(args) -> int:
    """Every unit and record claim a card of the set's symbols could show (open index)."""
    from dataclasses import asdict

    from whylens.knowledge.confidence import UNIT_FIELDS
    from whylens.markup import inline
    from whylens.retrieval.evidence import anchored_exactly, has_fix_edge

    for repo, path, name, reader, story in _stories(args):
        target = story.symbol.name
        history = story.history
        base = {"repo": repo, "path": path, "symbol": name}
        for unit in reader.units_for_symbol(target, path=path):
            print(json.dumps({**base, "field": UNIT_FIELDS[unit.type],
                              "text": clean(inline(unit.content, 400)), "source": "unit",
                              "commit": unit.commit,
                              **asdict(unit_evidence(unit, target, history))}, ensure_ascii=False))
        for record in reader.records_for_symbol(target, path=path):
            if not (has_fix_edge(record) and anchored_exactly(record, target)):
                continue
            claims = [("problem", record.problem)] if record.problem else []
            claims += [(f, c) for f in ("cause", "decision", "rejected")
                       for c in getattr(record, f)]
            for field, claim in claims:
                ev = claim_evidence(record, claim, field, target, history, reader)
                print(json.dumps({**base, "field": field, "text": clean(inline(claim.text, 400)),
                                  "source": "record", "record": record.id, **asdict(ev)},
                                 ensure_ascii=False))
    return 0


# Signs a weight may take under ``--monotone`` (a feature missing here is free): more of what
# explains code never lowers confidence, more of what only reports work never raises it.
SIGNS = {"knowledge": 1, "names_symbol": 1, "long": 1, "reason": 1, "failure": 1,
         "field:pitfall": 1, "names_other": -1, "added": -1, "short": -1, "pronoun": -1,
         "about_change": -1, "imperative": -1, "breadth": -1}


def fit(args) -> int:
    """Leave-one-repository-out logistic regression of useful vs not on the pool's evidence;
    precision and items kept at each gate (pooled, then per left-out repository), then the
    weights fitted on every repository. ``--drop`` leaves features out (their weight 0),
    ``--monotone`` keeps each weight's sign as ``SIGNS`` says."""
    import numpy as np

    from whylens.knowledge.confidence import ItemEvidence, features, never_shown

    labels = load_labels()
    rows, skipped = [], Counter()
    for line in Path(args.pool).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        label = labels.get((row["repo"], row["symbol"], row["field"], row["text"]))
        if label is None:
            skipped["unlabelled"] += 1
            continue
        known = {k: row[k] for k in ItemEvidence.__dataclass_fields__ if k in row}
        item = ItemEvidence(**known)
        if never_shown(item):
            skipped["never shown"] += 1
            continue
        rows.append((row, item, label["label"]))
    seen, unique = set(), []
    for row, item, label in rows:  # one item per card, as the card shows it once
        key = (row["repo"], row["symbol"], row["text"])
        if key not in seen:
            seen.add(key)
            unique.append((row, item, label))
    dropped = set(args.drop or ())
    names = sorted({k for _, item, _ in unique for k in features(item)} - dropped)
    x = np.array([[features(item).get(k, 0.0) for k in names] for _, item, _ in unique])
    y = np.array([label == "useful" for _, _, label in unique], dtype=float)
    repos = np.array([row["repo"] for row, _, _ in unique])
    print(f"{len(unique)} items ({dict(skipped)}); useful {int(y.sum())}; features {names}")
    signs = np.array([SIGNS.get(k, 0) if args.monotone else 0 for k in names])

    def train(x, y, l2):
        w = np.zeros(x.shape[1])
        for _ in range(4000):
            p = 1 / (1 + np.exp(-(x @ w)))
            grad = x.T @ (p - y) / len(y) + l2 * w / len(y) * (np.array(names) != "bias")
            w -= 0.5 * grad
            w = np.where(signs > 0, np.maximum(w, 0), np.where(signs < 0, np.minimum(w, 0), w))
        return w

    for l2 in args.l2:
        oof = np.zeros(len(y))
        for repo in sorted(set(repos)):
            held = repos == repo
            oof[held] = 1 / (1 + np.exp(-(x[held] @ train(x[~held], y[~held], l2))))
        oof = np.clip(oof, 1e-6, 1 - 1e-6)
        print(f"l2 {l2}: log loss {-np.mean(y * np.log(oof) + (1 - y) * np.log(1 - oof)):.3f}")
        for gate in args.gates:
            print(f"  gate {gate:.2f}: " + _kept(unique, oof, gate) + "  | " + "; ".join(
                f"{repo} " + _kept([u for u, r in zip(unique, repos) if r == repo],
                                   oof[repos == repo], gate, short=True)
                for repo in sorted(set(repos))))
    weights = train(x, y, args.l2[0])
    print("WEIGHTS = {" + ", ".join(f'"{k}": {w:.2f}' for k, w in zip(names, weights)) + "}")
    return 0


def _kept(unique, scores, gate: float, short: bool = False) -> str:
    kept = Counter(label for (_, _, label), p in zip(unique, scores) if p >= gate)
    n = sum(kept.values())
    m = max(n, 1)
    if short:
        return f"{n} u{100 * kept['useful'] / m:.0f}/n{100 * kept['noise'] / m:.0f}"
    return (f"{n:3} items, useful {kept['useful']:3} ({100 * kept['useful'] / m:.0f}%), "
            f"noise {kept['noise']:3} ({100 * kept['noise'] / m:.0f}%)")


def simulate(args) -> int:
    """The cards an index built with ``--gate`` (and the module's weights) would give."""
    from whylens.knowledge import confidence
    from whylens.render.rationale import rationale
    from whylens.retrieval.citations import web_links_from_meta

    confidence.GATE = args.gate
    labels = load_labels()
    counts: Counter = Counter()
    cards_with_items = 0
    unlabelled = []
    for repo, path, name, reader, story in _stories(args, gated=True):
        items = items_of(rationale(story, web_links_from_meta(reader.meta)))
        cards_with_items += bool(items)
        for item in items:
            label = labels.get((repo, name, item["field"], item["text"]))
            counts[label["label"] if label else "unlabelled"] += 1
            if label is None:
                unlabelled.append({"repo": repo, "path": path, "symbol": name, **item})
    n = sum(counts[k] for k in ("useful", "marginal", "noise")) or 1
    print(f"gate {args.gate}: {sum(counts.values())} items on {cards_with_items} cards; useful "
          f"{counts['useful']} ({100 * counts['useful'] / n:.0f}%), marginal {counts['marginal']} "
          f"({100 * counts['marginal'] / n:.0f}%), noise {counts['noise']} "
          f"({100 * counts['noise'] / n:.0f}%); unlabelled {counts['unlabelled']}")
    if args.unlabelled:
        with open(args.unlabelled, "w", encoding="utf-8") as fh:
            for row in unlabelled:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("index", "pool", "simulate"):
        p = sub.add_parser(name)
        p.add_argument("--set", choices=sorted(SETS), default="tune")
        p.add_argument("--repo", action="append", help="NAME=work tree")
        p.add_argument("--index", action="append", help="NAME=index folder (gate open)")
        if name == "simulate":
            p.add_argument("--gate", type=float, required=True)
            p.add_argument("--unlabelled", help="write the items no label covers here")
    p = sub.add_parser("fit")
    p.add_argument("pool")
    p.add_argument("--l2", type=float, nargs="+", default=[1.0, 0.5, 3.0],
                   help="L2 strengths; the first one gives the printed WEIGHTS")
    p.add_argument("--gates", type=float, nargs="+", default=[0.3, 0.4, 0.5, 0.6, 0.7])
    p.add_argument("--drop", nargs="*", help="features to leave out")
    p.add_argument("--monotone", action="store_true", help="keep the signs SIGNS gives")
    args = parser.parse_args()
    if getattr(args, "set", "tune") not in ("tune", "tune2"):
        raise SystemExit("the gate is chosen on the tune sets only")
    commands = {"index": build, "pool": pool, "fit": fit, "simulate": simulate}
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
