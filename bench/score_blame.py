"""Agreement of the index's line blame with git blame on a replay's changed lines (review12).

    python bench/score_blame.py /tmp/out/requests.json [...]   # replays saved with --blame

For every replayed change (cases and ordinary changes), the base lines its code hunks modify:
which commit last touched each by the index (``IndexReader.line_blame``, what ``fragile``
reads) and by ``git blame`` at the base, plain and ``-w``. Per line: the index agrees, names
another commit (older than git's: it passed over a layout-only commit; newer: the index is of
a later mainline revision than a pull request's base), or knows none. Per change: whether the
index names the same set of commits, and whether a real fix (``review_fragile.is_fix``) that
git blame names is missing from the index's set (the line condition ``fragile`` asks for).
Since review13 the index's blame is of the line where the base line sits at the index's
revision (``retrieval.review_lines``); ``--unmapped``: of the same line number, as before.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess

from whylens.retrieval.review_fragile import is_fix
from whylens.symbols.languages import language_for_path
from whylens.symbols.skip import path_skip_reason


def blamed(path: str) -> bool:
    """A file the index blames (``pipeline.blame.blamed_files``, by path)."""
    return language_for_path(path) is not None and path_skip_reason(path) is None


def commit_meta(repo: str) -> dict[str, tuple[int, str]]:
    out = subprocess.run(["git", "--git-dir", repo, "log", "--all", "--format=%H%x00%ct%x00%s"],
                         capture_output=True, text=True, errors="replace").stdout
    meta = {}
    for line in out.splitlines():
        sha, ts, subject = line.split("\x00", 2)
        meta[sha] = (int(ts), subject)
    return meta


def score(path: str, unmapped: bool = False) -> None:
    data = json.load(open(path, encoding="utf-8"))
    meta = commit_meta(data["repo"])
    lines = collections.Counter()
    changes = collections.Counter()
    for row in data["results"]:
        blame = row.get("blame")
        if not blame:
            continue
        same_rev = row["at"] == row["base"]
        tag = "base" if same_rev else "pr"
        index_set, git_set = set(), set()
        for where, _n, index, plain, ignoring, *rest in blame:
            if unmapped and rest:
                index = rest[0]
            if not blamed(where):
                continue
            lines["lines", tag] += 1
            git_sha = ignoring or plain
            if index is None:
                lines["unknown", tag] += 1
            elif index == plain:
                lines["= plain", tag] += 1
            elif index == ignoring:
                lines["= -w only", tag] += 1
            elif git_sha in meta and index in meta and meta[index][0] < meta[git_sha][0]:
                lines["older", tag] += 1
            else:
                lines["newer/other", tag] += 1
            if index:
                index_set.add(index)
            if git_sha:
                git_set.add(git_sha)
        if not git_set and not index_set:
            continue
        changes["changes", tag] += 1
        changes["same commits", tag] += index_set == git_set
        git_fixes = {c for c in git_set if c in meta and is_fix(meta[c][1])}
        index_fixes = {c for c in index_set if c in meta and is_fix(meta[c][1])}
        if git_fixes:
            changes["git names a fix", tag] += 1
            changes["index names it too", tag] += bool(git_fixes & index_fixes)
        if index_fixes - git_fixes:
            changes["index names a fix git does not", tag] += 1
    print(f"== {data['name']} ({path})")
    for tag in ("base", "pr"):
        n = lines["lines", tag]
        if not n:
            continue
        print(f"  {tag}: {changes['changes', tag]} changes, {n} lines: " + ", ".join(
            f"{k} {lines[k, tag]} ({100 * lines[k, tag] / n:.0f}%)"
            for k in ("= plain", "= -w only", "older", "newer/other", "unknown")))
        print(f"    same commit set {changes['same commits', tag]}/{changes['changes', tag]}; "
              f"git names a fix in {changes['git names a fix', tag]}, the index too in "
              f"{changes['index names it too', tag]}; the index names a fix git does not in "
              f"{changes['index names a fix git does not', tag]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("replays", nargs="+")
    parser.add_argument("--unmapped", action="store_true",
                        help="the index's blame of the same line number (before review13)")
    args = parser.parse_args()
    for path in args.replays:
        score(path, args.unmapped)


if __name__ == "__main__":
    main()
