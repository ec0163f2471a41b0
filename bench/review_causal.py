"""Is a later fix a failure of the change? The causal case definition of the review replay (recall32).

    python bench/review_causal.py REPLAY.json [--near 3] [--labels bench/labels/review-misses-NAME.tsv]

recall31's miss study (docs/benchmarks.md, Round 30) found that 22 of 37 studied "fixed" cases
are not failures of the change: the replay's old rule (``replay_review.find_cases``, kept as
``--cases symbol``) makes a case of the most recent change of a symbol that a fix commit touched
within 30 days, whatever the fix repaired. Here a later fix makes a case only when it removes or
rewrites **product lines the change added**, or lines within ``near`` lines of them:

- the fix's hunks (``git diff -U0 -M fix^ fix``) on product source (``review_guarded.product_source``:
  not tests, docs, examples, vendored copies), each as the lines it removes at the fix's parent,
  widened by ``near`` lines either side (a pure insertion: the ``near`` lines either side of where
  it goes, none when ``near`` is 0);
- ``git blame -w`` of those lines at the fix's parent: the case is causal when one of them is
  the change's (the change wrote it, and no later commit rewrote it other than in whitespace).

Reverts stay cases as before (a revert undoes the change itself). Git only, read-only on the
repository; one blame per (fix, file), cached.

Run on a replay, this prints for every fixed case the blamed count and the causal verdict at
``near``, and with ``--labels`` the agreement with the hand label (``causal`` column of the
misses tsv, yes / no; unclear left out).
"""

from __future__ import annotations

import argparse
import csv
import functools
import json
import re
import subprocess
from pathlib import Path

from review_blame import git_blame
from whylens.retrieval.review_guarded import product_source

MOVES = False  # blame -M (moved lines keep their writer): the same agreement on tune, not used
NEAR = 1  # chosen on tune (requests, express) against the hand labels, frozen: docs/benchmarks.md Round 31 (recall32)
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], capture_output=True, text=True,
                          errors="replace").stdout


@functools.lru_cache(maxsize=50_000)
def fix_hunks(repo: str, fix: str) -> tuple[tuple[str, tuple[tuple[int, int], ...]], ...]:
    """The fix's hunks on product source: (path at the fix's parent, ((start, removed count), ...)).
    A count of 0 is a pure insertion after line ``start``. Files the fix creates have none."""
    out = _git(repo, "diff", "-U0", "-M", "--no-color", "--no-ext-diff", f"{fix}^", fix)
    files: dict[str, list[tuple[int, int]]] = {}
    old = ""
    for line in out.splitlines():
        if line.startswith("--- "):
            old = line[6:] if line.startswith("--- a/") else ""
        elif line.startswith("+++ ") or line.startswith("diff --git"):
            continue
        elif line.startswith("@@") and old and product_source(old):
            m = HUNK.match(line)
            if m:
                files.setdefault(old, []).append((int(m.group(1)),
                                                  1 if m.group(2) is None else int(m.group(2))))
    return tuple((p, tuple(h)) for p, h in files.items())


@functools.lru_cache(maxsize=50_000)
def owners(repo: str, rev: str, path: str, moves: bool = False) -> tuple[str, ...]:
    """``git blame -w`` of ``path`` at ``rev``: the commit of each line (index 0 = line 1); with
    ``moves``, lines moved within the file keep their first writer (``-M``)."""
    found = git_blame(repo, rev, path, None, None, "-w", *(["-M"] if moves else []))
    return tuple(found.get(n, "") for n in range(1, max(found, default=0) + 1))


def near_lines(start: int, count: int, near: int, length: int) -> range:
    """The 1-based lines a hunk removes (``count`` from ``start``), ``near`` more either side; a
    pure insertion (``count`` 0, after line ``start``) only has the lines either side."""
    if count:
        low, high = start - near, start + count - 1 + near
    elif near:
        low, high = start - near + 1, start + near
    else:
        return range(0)
    return range(max(1, low), min(length, high) + 1)


def blamed_lines(repo: str, change: str, fix: str, near: int, moves: bool = MOVES) -> int:
    """How many lines the fix removes, rewrites or sits within ``near`` lines of that ``git blame
    -w`` at its parent gives to ``change``."""
    found = 0
    for path, hunks in fix_hunks(repo, fix):
        who = owners(repo, f"{fix}^", path, moves)
        seen: set[int] = set()
        for start, count in hunks:
            seen.update(near_lines(start, count, near, len(who)))
        found += sum(1 for n in seen if who[n - 1] == change)
    return found


def causal(repo: str, change: str, fix: str, near: int = NEAR) -> bool:
    """The later fix removes or rewrites product lines ``change`` added, or lines within ``near``."""
    return blamed_lines(repo, change, fix, near) > 0


def keep_case(repo: str, row: dict, near: int = NEAR) -> bool:
    """A replay row (``set`` = case) under the causal definition: reverts stay, fixes must be causal."""
    return row["kind"] != "fixed" or causal(repo, row["head"], row["later"], near)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("replay")
    parser.add_argument("--near", type=int, action="append", help="N (repeatable); default NEAR")
    parser.add_argument("--labels", help="misses tsv with a hand ``causal`` column")
    parser.add_argument("--moves", action="store_true", help="blame with -M")
    parser.add_argument("--list", action="store_true", help="print every fixed case")
    args = parser.parse_args()
    data = json.loads(Path(args.replay).read_text(encoding="utf-8"))
    repo = data["repo"]
    hand = {}
    if args.labels:
        with open(args.labels, encoding="utf-8") as handle:
            hand = {r["target"]: r for r in csv.DictReader(handle, delimiter="\t")
                    if r.get("causal") in ("yes", "no")}
    fixed = [r for r in data["results"] if r["set"] == "case" and r["kind"] == "fixed"]
    for near in args.near or [NEAR]:
        kept = agree = judged = 0
        wrong = []
        for r in fixed:
            n = blamed_lines(repo, r["head"], r["later"], near, args.moves)
            kept += n > 0
            if args.list:
                print(f"  N={near} {r['head'][:10]} → {r['later'][:10]} blamed {n} "
                      f"{'causal' if n else 'dropped'} hand={hand.get(r['head'], {}).get('causal', '')}")
            if r["head"] in hand:
                judged += 1
                ok = (n > 0) == (hand[r["head"]]["causal"] == "yes")
                agree += ok
                if not ok:
                    wrong.append(f"{r['head'][:10]} hand={hand[r['head']]['causal']} blamed={n}")
        print(f"{data['name']} N={near}: {kept}/{len(fixed)} fixed cases causal; "
              f"agreement with hand labels {agree}/{judged}" + (f"; disagree: {', '.join(wrong)}" if wrong else ""))


if __name__ == "__main__":
    main()
