"""Sweep how a hit's sentences are scored for its snippet (issue 12, round 31): the answer
sentence in the first 256 printed characters, gate off, on the TUNE half (in-sample).

    python bench/tune_context.py --workdir DIR [--repo NAME ...] [--verbose]

A setting transforms the sentence scores of ``snippets.sentence_scores`` (both stages call it)
before they are packed. Sentence scores order a hit's sentences only, never the hits: the first
commit is compared with the untransformed run and any move is counted.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qbench import TUNE, answer_shown, answerable_questions, split_args, whylens_answer  # noqa: E402

from whylens.retrieval import rerank, snippets  # noqa: E402

ORIGINAL = snippets.sentence_scores


def neighbour(weight: float, before: bool = True, after: bool = True):
    """Each sentence gains ``weight`` × the best score of the sentences beside it."""
    def transform(scores: list[float]) -> list[float]:
        out = []
        for i, s in enumerate(scores):
            near = ([scores[i - 1]] if before and i > 0 else []) + (
                [scores[i + 1]] if after and i + 1 < len(scores) else [])
            out.append(s + weight * max(near, default=0.0))
        return out
    return transform


def settings() -> dict[str, object]:
    out: dict[str, object] = {"none": None}
    for w in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0):
        out[f"next {w}"] = neighbour(w, before=False)
    return out


def install(transform) -> None:
    def scored(*args, **kwargs):
        scores = ORIGINAL(*args, **kwargs)
        return transform(scores) if transform else scores
    snippets.sentence_scores = scored
    rerank.sentence_scores = scored


def main() -> int:
    args, names, _ = split_args(__doc__, TUNE, TUNE)
    table = settings()
    shown: dict[str, set[str]] = {s: set() for s in table}
    moved = dict.fromkeys(table, 0)
    total = 0
    for name, reader, asked in answerable_questions(names, args.workdir):
        total += len(asked)
        first: dict[str, list] = {}
        for label, transform in table.items():
            install(transform)
            for q in asked:
                answer = whylens_answer(reader, q["question"], gate=0.0)
                if transform is None:
                    first[q["id"]] = answer.commits[:1]
                elif answer.commits[:1] != first[q["id"]]:
                    moved[label] += 1
                if answer_shown(q["answer"], answer.output):
                    shown[label].add(q["id"])
        print(f"{name} done", file=sys.stderr, flush=True)
    install(None)
    base = shown["none"]
    print("per repository:", " ".join(names))
    for label in table:
        print(f"{label:16}", " ".join(f"{sum(i.startswith(n + '-') for i in shown[label]):3}"
                                      for n in names))
    print(f"{total} answerable questions; within 256, gate off; gained / lost vs none")
    for label in table:
        got = shown[label]
        print(f"{label:16} {len(got):3}  first hit moved {moved[label]}  "
              f"+{sorted(got - base)} -{sorted(base - got)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
