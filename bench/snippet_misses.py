"""Why the right commit is ranked 1st-3rd but its answer sentence is not in the first 256
printed characters (issue 12, round 12): each such answerable question, classified.

    python bench/snippet_misses.py --tune --workdir DIR     # tune half (in-sample)

Gate off (what search would show). Classes: rank 2-3 and the hits above take the room (its
own block, title + snippet, would show the answer, or not even that); rank 1 and the answer
is the title's sentence cut with "…"; in the snippet but past 256 characters (or a long
sentence windowed); in none of the hit's messages (another commit of the label); a changelog
entry line shown instead (a snippet line absent from the hit's raw messages); a record hit or a
commit / unit hit with another sentence picked.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qbench import (HELD_OUT, MIRRORS, TUNE, answer_shown, ensure_index, hit_commits,  # noqa: E402
                    questions, rank_of, split_args, wanted_commits, whylens_answer, words)

from whylens.index.store import IndexStore  # noqa: E402
from whylens.render.hits import flatten, without_title  # noqa: E402
from whylens.retrieval.search import search  # noqa: E402


def raw_words(name: str, shas: list[str]) -> str:
    out = []
    for sha in shas[:3]:
        text = subprocess.run(["git", "--git-dir", MIRRORS[name], "show", "-s", "--format=%B", sha],
                              capture_output=True, text=True, errors="replace").stdout
        out.append(" ".join(words(text)))
    return " ".join(out)


def holds(answer: str, text: str) -> bool:
    return answer_shown(answer, text, budget=10 ** 9)


def classify(reader, name: str, q: dict) -> str | None:
    answer = whylens_answer(reader, q["question"], gate=0.0)
    rank = rank_of(answer, wanted_commits(q))
    if rank is None or rank > 3 or answer_shown(q["answer"], answer.output):
        return None
    hit = search(reader, q["question"], k=10, gate=0.0, budget=256).hits[rank - 1]
    title = flatten(hit.title)
    snippet = without_title(flatten(hit.snippet), title)
    if rank > 1:
        own = answer_shown(q["answer"], title + ("\n" + snippet if snippet else ""))
        return "rank 2-3, hits above take the room" + (" (its own block shows it)" if own
                                                       else " (its own block does not)")
    body = raw_words(name, hit_commits(reader, hit))
    entry = [line for line in snippet.split(" … ")
             if line and " ".join(words(line)) not in body and not holds(line, title)]
    if holds(q["answer"], title):
        return "rank 1, the answer is the title's sentence, cut"
    if holds(q["answer"], snippet):
        return ("rank 1, a long sentence windowed" if snippet.startswith("…")
                else "rank 1, in the snippet past 256 characters")
    if not holds(q["answer"], body):
        return "rank 1, not in this hit's messages"
    if entry:
        return "rank 1, a changelog entry line shown instead"
    return f"rank 1, {'record' if hit.type == 'decision' else 'commit / unit'} hit, " \
           "another sentence picked"


def main() -> int:
    args, names, _ = split_args(__doc__, TUNE, HELD_OUT)
    counts: Counter[str] = Counter()
    each: dict[str, str] = {}
    for name in names:
        index_dir, _ = ensure_index(name, Path(args.workdir))
        with IndexStore(index_dir).reader() as reader:
            whylens_answer(reader, "warm up")
            for q in questions(name):
                if q["kind"] == "answerable" and (kind := classify(reader, name, q)):
                    counts[kind] += 1
                    each[q["id"]] = kind
    for kind, n in sorted(counts.items()):
        print(f"{n:4}  {kind}")
    if args.verbose:
        print(json.dumps(each, indent=0, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
