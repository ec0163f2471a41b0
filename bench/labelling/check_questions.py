"""Check question label files and print each answerable question's word overlap.

Usage: python3 bench/labelling/check_questions.py <questions.jsonl> [<mirror git dir>]

Overlap = content words (lowercased runs of [a-z0-9_] with 3+ letters, minus stop words and
the repository's own short name) shared by the question and its answer sentence; a plural
"s"/"ies" ending is folded. With a git dir, also checks that every sha exists and that the answer
occurs verbatim (whitespace unwrapped) in that commit's message.
"""
import json
import re
import subprocess
import sys
from collections import Counter

STOP = set("""
about above after again against all also and any are aren because been before being below
between both but can cannot could couldn did didn does doesn doing don down during each few
for from further had hadn has hasn have haven having her here hers him his how into isn its
itself just more most mustn nor not now off once only other our ours out over own same she
should shouldn some such than that the their theirs them then there these they this those
through too under until very was wasn were weren what when where which while who whom why
will with won would wouldn you your yours yourself use used using instead still
""".split())


def words(text: str, repo: str) -> set[str]:
    out = set()
    for tok in re.findall(r"[a-z0-9_]+", text.lower()):
        if sum(ch.isalpha() for ch in tok) < 3 or tok in STOP or tok == repo:
            continue
        if len(tok) > 4 and tok.endswith("ies"):
            tok = tok[:-3] + "y"
        elif len(tok) > 3 and tok.endswith("s") and not tok.endswith(("ss", "us", "is")):
            tok = tok[:-1]
        out.add(tok)
    return out


def overlap(question: str, answer: str, repo: str) -> set[str]:
    return words(question, repo) & words(answer, repo)


def message(gitdir: str, sha: str) -> str:
    return subprocess.run(["git", "-C", gitdir, "show", "-s", "--format=%B", sha],
                          capture_output=True, text=True, check=True).stdout


def main() -> int:
    path = sys.argv[1]
    gitdir = sys.argv[2] if len(sys.argv) > 2 else None
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    problems = []
    ids = Counter(r["id"] for r in rows)
    problems += [f"duplicate id {i}" for i, n in ids.items() if n > 1]
    kinds = Counter(r["kind"] for r in rows)
    dist = Counter()
    for r in rows:
        if r["kind"] != "answerable":
            if r["commit"] or r["answer"]:
                problems.append(f"{r['id']}: non-answerable with commit/answer")
            continue
        shared = overlap(r["question"], r["answer"], r["repo"])
        dist[len(shared)] += 1
        print(f"{r['id']}  overlap={len(shared)} {sorted(shared)}\n    Q: {r['question']}")
        if gitdir:
            for sha in [r["commit"], *r["also"]]:
                if not re.fullmatch(r"[0-9a-f]{40}", sha):
                    problems.append(f"{r['id']}: bad sha {sha}")
                    continue
                kind = subprocess.run(["git", "-C", gitdir, "cat-file", "-t", sha],
                                      capture_output=True, text=True).stdout.strip()
                if kind != "commit":
                    problems.append(f"{r['id']}: {sha} is not a commit")
            msg = " ".join(message(gitdir, r["commit"]).split())
            if " ".join(r["answer"].split()) not in msg:
                problems.append(f"{r['id']}: answer not verbatim in {r['commit']}")
    low = sum(n for k, n in dist.items() if k <= 2)
    total = sum(dist.values())
    print(f"kinds={dict(kinds)} overlap distribution={dict(sorted(dist.items()))} "
          f"<=2: {low}/{total}")
    if total and low * 3 < total * 2:
        problems.append("fewer than 2/3 of answerable questions have overlap <= 2")
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
