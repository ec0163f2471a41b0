"""Evaluate the shipped sentence classifier on the held-out labels, next to today's rules.

    python bench/eval_sentences.py [--repos flask,axios,gin,jq] [--markdown]

For each held-out repository's hand-labelled sentences (bench/labels/sentences/), per class:
precision, recall, F1 and the confusion matrix, for
- the classifier shipped in server/whylens/knowledge/data (never trained on these repositories);
- the rules, as the previous release applied them: for the unit type, the units
  ``knowledge.extract`` built from the commit with the classifier switched off, matched back to
  their sentence; for the role, the record cue phrases in the order ``records.extract`` reads
  them (cause, rejected, decision; a subject that is none of these is the problem).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sentence_corpus import HELD_OUT, ROLE_CLASSES, UNIT_CLASSES, Labelled, features_of, load  # noqa: E402

from whylens.knowledge import cues, extract  # noqa: E402
from whylens.knowledge.classify import default_model  # noqa: E402
from whylens.knowledge.ids import normalise  # noqa: E402


def model_predictions(rows: list[Labelled]) -> tuple[list[str], list[str]]:
    model = default_model()
    if model is None:
        raise SystemExit("the shipped model could not be loaded")
    units, roles = [], []
    for row in rows:
        prediction = model.predict(features_of(row))
        units.append(prediction.unit)
        roles.append(prediction.role)
    return units, roles


def rule_units(rows: list[Labelled]) -> list[str]:
    """The type of the unit the rules built from each sentence (``none`` when none did)."""
    cache: dict[str, list] = {}
    out = []
    for row in rows:
        if row.commit.sha not in cache:
            cache[row.commit.sha] = extract.extract_units(row.commit, use_model=False)
        sentence = normalise(row.sentence)
        found = "none"
        for unit in cache[row.commit.sha]:
            if normalise(unit.content).startswith(sentence[:60]) and sentence:
                found = unit.type
                break
        out.append(found)
    return out


def rule_role(row: Labelled) -> str:
    text = row.sentence
    if cues.CAUSE.search(text):
        return "cause"
    if cues.REJECTED.search(text) or cues.REPLACED.search(text):
        return "rejected"
    first = text.split()[:1]
    if cues.DECISION.search(text) or (first and first[0].lower() in cues.ACTION_VERBS):
        return "decision"
    return "problem" if row.from_subject else "none"


def report(name: str, gold: list[str], pred: list[str], classes, markdown: bool) -> list[str]:
    lines = [f"**{name}**", "", "| class | n | P | R | F1 |", "|---|---|---|---|---|"]
    for c in classes:
        tp = sum(1 for p, g in zip(pred, gold) if p == c and g == c)
        n_pred = sum(1 for p in pred if p == c)
        n_gold = sum(1 for g in gold if g == c)
        precision = tp / n_pred if n_pred else 0.0
        recall = tp / n_gold if n_gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        lines.append(f"| {c} | {n_gold} | {precision:.2f} ({tp}/{n_pred}) | {recall:.2f} | {f1:.2f} |")
    if "none" in classes:
        picked = [p != "none" for p in pred]
        hits = sum(1 for p, g in zip(pred, gold) if p != "none" and g != "none")
        n_gold = sum(1 for g in gold if g != "none")
        lines.append(f"| *any but none* | {n_gold} | {hits / max(sum(picked), 1):.2f} "
                     f"({hits}/{sum(picked)}) | {hits / max(n_gold, 1):.2f} | |")
    matrix = Counter(zip(gold, pred))
    lines += ["", "confusion (rows: label, columns: predicted)", "",
              "| | " + " | ".join(classes) + " |", "|---" * (len(classes) + 1) + "|"]
    for g in classes:
        lines.append(f"| {g} | " + " | ".join(str(matrix[(g, p)]) for p in classes) + " |")
    return lines + [""]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", default=",".join(HELD_OUT))
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    rows = load(args.repos.split(","))
    units, roles = model_predictions(rows)
    gold_units = [r.unit for r in rows]
    gold_roles = [r.role for r in rows]
    out = [f"{len(rows)} held-out sentences ({args.repos})", ""]
    out += report("unit type: classifier", gold_units, units, UNIT_CLASSES, args.markdown)
    out += report("unit type: rules", gold_units, rule_units(rows), UNIT_CLASSES, args.markdown)
    out += report("record role: classifier", gold_roles, roles, ROLE_CLASSES, args.markdown)
    out += report("record role: rules", gold_roles, [rule_role(r) for r in rows], ROLE_CLASSES,
                  args.markdown)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
