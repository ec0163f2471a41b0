"""Sweep the reason bonus of answer sentences (``snippets.REASON``, issue 12, round 30): the
answer sentence in the first 256 printed characters, per setting, on the TUNE half (in-sample).

    python bench/tune_reason.py --workdir DIR [--repo NAME ...]

Settings: the question condition (``why``: why-questions only; ``why+symptom``: also a stated
symptom; ``always``: every question, round 12's unconditional bonus), the sentence signal
(``reason``: ``snippets.states_reason``; ``cause``: ``cues.CAUSE`` alone; ``rerank``: the second
stage's wider ``rerank._REASON``) and the bonus. The bonus orders a hit's sentences only, so the
ranks and the gate's silence do not move (checked: the first commit is compared with the
bonus-free run); gate-on figures are the gate-off ones less the questions the gate abstains on.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qbench import TUNE, answer_shown, answerable_questions, split_args, whylens_answer  # noqa: E402

from whylens.knowledge.cues import CAUSE  # noqa: E402
from whylens.retrieval import query, rerank, snippets  # noqa: E402

BONUSES = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3)
NEVER = re.compile(r"(?!)")
ALWAYS = re.compile(r"")
CONDITIONS = {"why": (query._WHY, NEVER), "why+symptom": (query._WHY, query._SYMPTOM),
              "always": (ALWAYS, NEVER)}
SIGNALS = {"reason": snippets.states_reason,
           "cause": lambda s: bool(CAUSE.search(s)),
           "rerank": lambda s: bool(rerank._REASON.search(s))}


def settings() -> list[tuple[str, str, float]]:
    out = [("why+symptom", "reason", 0.0)]
    for cond in CONDITIONS:
        for signal in SIGNALS:
            out += [(cond, signal, b) for b in BONUSES if b > 0]
    return out


def main() -> int:
    args, names, _ = split_args(__doc__, TUNE, TUNE)
    shown: dict[tuple[str, str, float], set[str]] = {s: set() for s in settings()}
    moved: dict[tuple[str, str, float], int] = {s: 0 for s in settings()}
    abstained: set[str] = set()
    total = 0
    for name, reader, asked in answerable_questions(names, args.workdir):
        total += len(asked)
        first: dict[str, list] = {}
        for setting in settings():
            cond, signal, bonus = setting
            query._WHY, query._SYMPTOM = CONDITIONS[cond]
            snippets.states_reason = SIGNALS[signal]
            snippets.REASON = bonus
            for q in asked:
                answer = whylens_answer(reader, q["question"], gate=0.0)
                if bonus == 0.0:
                    first[q["id"]] = answer.commits[:1]
                    if whylens_answer(reader, q["question"]).abstained:
                        abstained.add(q["id"])
                elif answer.commits[:1] != first[q["id"]]:
                    moved[setting] += 1
                if answer_shown(q["answer"], answer.output):
                    shown[setting].add(q["id"])
        print(f"{name} done", file=sys.stderr, flush=True)
    base = shown[settings()[0]]
    print(f"{total} answerable questions; within 256, gate off / on; gained / lost vs no bonus")
    for setting in settings():
        got = shown[setting]
        gained, lost = sorted(got - base), sorted(base - got)
        print(f"{setting[0]:12} {setting[1]:7} {setting[2]:.2f}  {len(got):3} / "
              f"{len(got - abstained):3}  first hit moved {moved[setting]}  "
              f"+{gained} -{lost}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
