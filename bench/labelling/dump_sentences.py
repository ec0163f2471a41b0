"""Sample commit sentences of a repository for hand labelling (unit type and record role).

Sentences come out exactly as extraction sees them (``knowledge.sentences.commit_sentences``: the subject,
then the cleaned body split into sentences), so a classifier trained on the labels sees at run
time what it was trained on. Commits the filters skip (bots, releases, trivial, merges without a
PR) are left out. Half the sample comes from commits whose sentences fire a heuristic and half
from the rest, so both the rules' hits and their misses are labelled.

    python bench/labelling/dump_sentences.py --repo /path/to/clone --name flask --n 250 --seed 1 \
        > sentences-flask.jsonl

Output: one JSON object per line, with empty ``unit`` and ``role`` fields for the labeller:
``{"repo", "commit", "index", "from_subject", "sentence", "context", "heuristic", "unit": "",
"role": ""}``; ``context`` is the whole commit message (for the labeller, not for training).
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from whylens.history.repo import open_repository
from whylens.history.walk import walk
from whylens.knowledge import heuristics
from whylens.knowledge.sentences import commit_sentences

MAX_PER_COMMIT = 6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True)
    parser.add_argument("--name", required=True, help="short repository name for the output")
    parser.add_argument("--n", type=int, default=250, help="sentences to sample")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rev", default="HEAD")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    fired, quiet = [], []
    with open_repository(args.repo) as repo:
        for commit in walk(repo, args.rev, hunks=False):
            if commit.skip_reason:
                continue
            sentences = commit_sentences(commit)[:MAX_PER_COMMIT]
            rows = []
            for i, s in enumerate(sentences):
                h = heuristics.classify(s.clean)
                rows.append({
                    "repo": args.name, "commit": commit.sha, "index": i,
                    "from_subject": s.from_subject, "sentence": s.clean,
                    "heuristic": h.name if h else "", "unit": "", "role": "",
                    "context": commit.message[:3000],
                })
            if not rows:
                continue
            (fired if any(r["heuristic"] for r in rows) else quiet).append(rows)
    # whole commits, so a labeller sees each sentence with its neighbours; half/half
    picked: list[dict] = []
    rng.shuffle(fired)
    rng.shuffle(quiet)
    pools = [fired, quiet]
    turn = 0
    while len(picked) < args.n and (fired or quiet):
        pool = pools[turn % 2] if pools[turn % 2] else pools[(turn + 1) % 2]
        picked.extend(pool.pop())
        turn += 1
    for row in picked[: args.n]:
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
