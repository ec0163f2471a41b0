"""Dump, per question, what `whylens search` shows (gate off) and the candidate sentences of
its first hits, for offline study of an answer line (issue 12, round 29). TUNE only.

    python bench/answer_dump.py --tune --workdir DIR > dump.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qbench import (TUNE, answer_shown, ensure_index, hit_commits, questions,  # noqa: E402
                    split_args, wanted_commits, whylens_answer)

from whylens.index.store import IndexStore  # noqa: E402
from whylens.render.hits import flatten, without_title  # noqa: E402
from whylens.retrieval import search as search_module  # noqa: E402
from whylens.retrieval.snippets import coverage, is_reference, said_by  # noqa: E402
from whylens.retrieval.steps import is_step  # noqa: E402

HEAD = 5


def dump(reader, q: dict) -> dict:
    ranking = search_module.rank(reader, q["question"], load=10 + search_module.SPARE)
    confidence = search_module.gates.confidence(ranking.features) if ranking.ranked else 0.0
    result = search_module.search(reader, q["question"], k=10, gate=0.0)
    terms = reader.query_terms(ranking.plan.lexical)
    by_id = {s.item.id: s for s in ranking.ranked if s.item is not None}
    wanted = wanted_commits(q)
    hits = []
    for n, h in enumerate(result.hits):
        title = flatten(h.title)
        snippet = without_title(flatten(h.snippet), title)
        row = {"id": h.id, "commit": h.commit, "type": h.type, "title": title,
               "block": title + (f"\n{snippet}" if snippet else ""),
               "right": bool(wanted & set(hit_commits(reader, h)))}
        s = by_id.get(h.id)
        if n < HEAD and s is not None and s.sentences:
            said = said_by(s.item.title, s.sentences)
            row["sentences"] = [
                {"text": t, "score": sc, "coverage": coverage(terms, t),
                 "said": i in said, "ref": is_reference(t), "step": is_step(t),
                 "answer": bool(q.get("answer")) and answer_shown(q["answer"], t, 10 ** 9)}
                for i, (t, sc) in enumerate(zip(s.sentences, s.sentence_scores))]
            row["features"] = s.features
            row["score"] = s.score
        hits.append(row)
    output = whylens_answer(reader, q["question"], gate=0.0).output
    return {"id": q["id"], "kind": q["kind"], "question": q["question"],
            "answer": q.get("answer", ""), "confidence": confidence,
            "gate": search_module.GATE, "hits": hits, "output": output}


def main() -> int:
    args, names, _ = split_args(__doc__, TUNE, TUNE)
    for name in names:
        index_dir, _ = ensure_index(name, Path(args.workdir))
        with IndexStore(index_dir).reader() as reader:
            whylens_answer(reader, "warm up")
            for q in questions(name):
                print(json.dumps(dump(reader, q)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
