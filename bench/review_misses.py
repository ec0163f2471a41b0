"""What history before a missed case could have told (recall31, tune repositories only).

    python bench/review_misses.py /tmp/out/requests.json --out /tmp/requests-misses.tsv [--gate 0.55]

For every case of a replay (``replay_review.py``, best run with ``--floor 0``) with no hit at the
gate (a miss, as ``score_review.is_hit``), git alone (the bare mirror, read-only; only commits that
are ancestors of the change's parent, i.e. history the reviewer had) gives these evidence leads:

Only product source (``review_guarded.product_source``: not tests, docs, examples) counts for
the line leads.

- ``reapply_revert``: added lines (whitespace-collapsed, > 8 characters, not a bare bracket or
  keyword line) that an earlier revert removed from the same file (count);
- ``reapply_fixed``: added lines an earlier fix commit (subject as ``replay_review.FIX``) removed
  from the same file (count);
- ``rewrites_fix``: lines the change removes whose ``git blame -w`` at the parent names a fix
  commit (count; ``rewrites_fix_180``: that fix is at most 180 days old);
- ``cochange``: the later fix's files the change left untouched that history changed together
  with a file of the change: best support (commits touching both) and confidence (support /
  commits touching the change's file), e.g. ``lib/x.js 5/7``;
- ``fix_on_own``: the later revert's / fix's removed lines that ``git blame`` at its parent
  gives to the change itself (share): the bug sat in the lines the change wrote;
- ``below``: the best suggestion of the replay on a target symbol under the gate (kind@score),
  or the best suggestion of the change at all (``any:kind@score``).

The hand classification (``bench/labels/review-misses-NAME.tsv``) is made by reading the change
and its later revert or fix, with these leads as pointers; see docs/benchmarks.md, Round 30 (recall31).
"""

from __future__ import annotations

import argparse
import collections
import csv
import functools
import json
import re
import subprocess
from pathlib import Path

from review_blame import git_blame
from score_review import at_gate, is_hit
from whylens.retrieval.review_guarded import product_source

FIX = re.compile(r"\b(fix(e[sd]|ing)?|bug|regression|broke|broken|crash\w*|hotfix)\b", re.I)
REVERT = re.compile(r"^Revert\b|This reverts commit", re.I | re.M)
TRIVIAL = re.compile(r"^[\s{}()\[\];,]*$|^(else|try|finally|return|end|pass|break|\}\s*else\s*\{)[:;]?$")
DAY = 86_400


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], capture_output=True, text=True,
                          errors="replace").stdout


def norm(line: str) -> str | None:
    text = " ".join(line.split())
    if len(text) <= 8 or TRIVIAL.match(text):
        return None
    return text


@functools.lru_cache(maxsize=20_000)
def patch_lines(repo: str, a: str, b: str) -> tuple[dict, dict, dict]:
    """path → added lines (normalised set), removed lines (set), removed base line numbers."""
    out = git(repo, "diff", "-U0", "--no-color", "--no-renames", a, b)
    added, removed, numbers = (collections.defaultdict(set) for _ in range(3))
    path = old_path = ""
    line_no = 0
    for line in out.splitlines():
        if line.startswith("--- "):
            old_path = line[6:] if line.startswith("--- a/") else ""
            continue
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else old_path
            continue
        if line.startswith("@@"):
            m = re.match(r"@@ -(\d+)", line)
            line_no = int(m.group(1)) if m else 0
            continue
        if line.startswith("-"):
            numbers[old_path or path].add(line_no)
            line_no += 1
            text = norm(line[1:])
            if text:
                removed[old_path or path].add(text)
        elif line.startswith("+"):
            text = norm(line[1:])
            if text:
                added[path].add(text)
    return added, removed, numbers


def blame(repo: str, rev: str, path: str, lines: set[int]) -> list[str]:
    """The commit ``git blame -w`` names for each of the first 200 ``lines``, in line order."""
    if not lines:
        return []
    found = git_blame(repo, rev, path, None, None, "-w",
                      ranges=[(n, n) for n in sorted(lines)[:200]])
    return [found[n] for n in sorted(found)]


class History:
    def __init__(self, repo: str):
        self.repo = repo
        self.meta: dict[str, tuple[int, str, str]] = {}
        for record in git(repo, "log", "--no-merges", "--format=%H%x00%ct%x00%s%x00%b%x03", "HEAD").split("\x03"):
            parts = record.strip("\n").split("\x00")
            if len(parts) == 4:
                self.meta[parts[0]] = (int(parts[1]), parts[2], parts[3])
        self.files: dict[str, list[str]] = collections.defaultdict(list)
        sha = ""
        for line in git(repo, "log", "--no-merges", "--no-renames", "--name-only", "--format=%x01%H",
                        "HEAD").splitlines():
            if line.startswith("\x01"):
                sha = line[1:]
            elif line.strip() and sha:
                self.files[sha].append(line.strip())
        self.by_file: dict[str, list[str]] = collections.defaultdict(list)
        for sha, paths in self.files.items():
            for p in paths:
                self.by_file[p].append(sha)

    def before(self, sha: str, parent: str, paths) -> list[str]:
        """Commits touching ``paths`` that are ancestors of ``parent`` (history at review)."""
        ts = self.meta.get(sha, (0,))[0]
        cands = {c for p in paths for c in self.by_file.get(p, ()) if self.meta[c][0] <= ts}
        if not cands:
            return []
        reach = set(git(self.repo, "rev-list", "--no-merges", parent, "--", *paths).split())
        return [c for c in cands if c in reach]


def study(data: dict, hist: History, gate: float) -> list[dict]:
    repo = data["repo"]
    rows = []
    for r in (x for x in data["results"] if x["set"] == "case"):
        shown = at_gate(r["new"], gate, {})
        if any(is_hit(r, s) for s in shown):
            continue
        base, head, later = r["base"], r["head"], r["later"]
        added, removed, numbers = patch_lines(repo, base, head)
        paths = sorted(set(added) | set(numbers))
        added = {p: v for p, v in added.items() if product_source(p)}  # leads on product code only
        numbers = {p: v for p, v in numbers.items() if product_source(p)}
        earlier = hist.before(head, base, paths)
        rev_n = fixr_n = 0
        for c in earlier:
            ts, subject, body = hist.meta[c]
            is_rev, is_fix = bool(REVERT.search(subject + "\n" + body)), bool(FIX.search(subject))
            if not (is_rev or is_fix):
                continue
            _a, gone, _n = patch_lines(repo, c + "^", c)
            for p, lines in added.items():
                n = len(lines & gone.get(p, set()))
                if is_rev:
                    rev_n += n
                elif is_fix:
                    fixr_n += n
        fix_lines = fix_180 = 0
        now = hist.meta.get(head, (0,))[0]
        for p, lines in numbers.items():
            for c in blame(repo, base, p, lines):
                meta = hist.meta.get(c)
                if meta and FIX.search(meta[1]):
                    fix_lines += 1
                    fix_180 += now - meta[0] <= 180 * DAY
        later_files = set(r["later_files"]) - set(paths)
        best = ("", 0, 0.0)
        for f in later_files:
            for p in paths:
                with_p = [c for c in hist.by_file.get(p, ()) if hist.meta[c][0] < now]
                if len(with_p) < 3:
                    continue
                both = sum(1 for c in with_p if f in hist.files[c])
                conf = both / len(with_p)
                if both >= 2 and conf > best[2]:
                    best = (f, both, conf, len(with_p))
        cochange = f"{best[0]} {best[1]}/{best[3]}" if best[0] else ""
        _la, _lr, later_numbers = patch_lines(repo, later + "^", later)
        own = total = 0
        for p, lines in later_numbers.items():
            owners = blame(repo, later + "^", p, lines)
            total += len(owners)
            own += sum(1 for c in owners if c == head)
        on_target = [s for s in r["new"] if is_hit(r, s)]
        if on_target:
            b = max(on_target, key=lambda s: s["confidence"])
            below = f"{b['kind']}@{b['confidence']:.2f}"
        elif r["new"]:
            b = max(r["new"], key=lambda s: s["confidence"])
            below = f"any:{b['kind']}@{b['confidence']:.2f}"
        else:
            below = ""
        rows.append({"target": head, "kind": r["kind"], "later": later,
                     "subject": hist.meta.get(head, (0, ""))[1][:90],
                     "later_subject": git(repo, "log", "-1", "--format=%s", later).strip()[:90],
                     "files": len(paths), "reapply_revert": rev_n, "reapply_fixed": fixr_n,
                     "rewrites_fix": fix_lines, "rewrites_fix_180": fix_180, "cochange": cochange,
                     "fix_on_own": f"{own}/{total}", "below": below})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("replay")
    parser.add_argument("--out", required=True)
    parser.add_argument("--gate", type=float, default=0.55)
    args = parser.parse_args()
    data = json.loads(Path(args.replay).read_text(encoding="utf-8"))
    hist = History(data["repo"])
    rows = study(data, hist, args.gate)
    with open(args.out, "w", newline="", encoding="utf-8") as handle:
        out = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["target"], delimiter="\t")
        out.writeheader()
        out.writerows(rows)
    print(f"{data['name']}: {len(rows)} missed cases of "
          f"{sum(1 for r in data['results'] if r['set'] == 'case')} → {args.out}")


if __name__ == "__main__":
    main()
