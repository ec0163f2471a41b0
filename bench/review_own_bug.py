"""Merged pull requests reviewed with an index at or past their head (review29): how many comments
cite the branch's own commits (``base..head``), with and without ``own`` (``review_own``).

    PYTHONPATH=server python3 bench/review_own_bug.py /work/.mirror/psf+requests/repo INDEX_DIR \
        [--since 2014-01-01] [--prs 40] [--gate 0.55]

Each first-parent merge ``m`` since --since, evenly sampled: base = merge-base(m^1, m^2), head = m^2,
reviewed with INDEX_DIR (an index of the repository's HEAD, so past every head). A comment cites
the branch when its evidence names a base..head commit or its body names one's short sha.
"""

from __future__ import annotations

import argparse
import json
import sys

from whylens.cli.review import (branch_commits, change_message, history_patches, indexed_reader,
                                revision_reader)
from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.index.store import IndexStore
from whylens.retrieval.review import GATE, review


def cites(s, own: frozenset[str]) -> bool:
    return bool(set(s.evidence) & own) or any(sha[:7] in s.body for sha in own)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo")
    parser.add_argument("index")
    parser.add_argument("--since", default="2014-01-01")
    parser.add_argument("--prs", type=int, default=40)
    parser.add_argument("--gate", type=float, default=GATE)
    parser.add_argument("--save")
    args = parser.parse_args()
    rows = []
    with open_repository(args.repo) as repo, IndexStore(args.index).reader() as reader:
        merges = repo.git("log", "--first-parent", "--merges", "--format=%H",
                          f"--since={args.since}", "HEAD").split()
        step = max(1, len(merges) // args.prs)
        for m in merges[::step][: args.prs]:
            head = repo.resolve(f"{m}^2")
            base = repo.git("merge-base", f"{m}^1", head).strip()
            if not base or base == head:
                continue
            own = branch_commits(repo, base, head)
            common = dict(read_base=revision_reader(repo, base), patches=history_patches(repo),
                          message=change_message(repo, base, head),
                          read_indexed=indexed_reader(repo, reader, base), gate=args.gate, cap=1000)
            changes = diff_changes(repo, base, head)
            read_head = revision_reader(repo, head)
            before = review(reader, repo.root, changes, read_head, **common)
            after = review(reader, repo.root, changes, read_head, own=own, **common)
            rows.append({"merge": m, "base": base, "head": head, "own": len(own),
                         "before": [[s.kind, s.path, s.line, cites(s, own), s.body] for s in before],
                         "after": [[s.kind, s.path, s.line, cites(s, own), s.body] for s in after]})
            print(m[:10], len(own), len(before), sum(cites(s, own) for s in before), len(after),
                  sum(cites(s, own) for s in after), file=sys.stderr, flush=True)
    for side in ("before", "after"):
        total = sum(len(r[side]) for r in rows)
        citing = sum(1 for r in rows for s in r[side] if s[3])
        prs = sum(1 for r in rows if any(s[3] for s in r[side]))
        print(f"{side}: {len(rows)} PRs, {total} comments, {citing} cite base..head ({prs} PRs)")
    if args.save:
        with open(args.save, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
