"""What history at a change's base could have pointed at its later fix (review13, tune only).

    python bench/recall_leads.py /tmp/out/requests.json --index /work/idx/X/requests

For every change of a replay (``replay_review.py --blame``; cases and ordinary changes), the
product-source symbols it changes and, from a full index at HEAD (entries older than the
revision the change was reviewed at), the fixes of each symbol before it. A lead is a rule
over these; it hits a case when it holds on a symbol the later revert or fix touched, and it
costs the ordinary changes it holds on (comments per 100). Fixes are ``review_fragile.is_fix``.
The line form asks ``git blame`` at the base (the replay's blame rows) to name one of the
symbol's fixes on a changed line.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess

from whylens.cli.review import revision_reader
from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.index.store import IndexStore
from whylens.retrieval.review_fragile import is_fix
from whylens.retrieval.review_guarded import product_source
from whylens.retrieval.review_hunks import file_view

DAY = 86_400
LEADS = [(k, d, line) for d in (90, 180, 365, 10_000) for k in (1, 2, 3, 4) for line in (False, True)]


def times(repo: str) -> dict[str, int]:
    out = subprocess.run(["git", "--git-dir", repo, "log", "--all", "--format=%H %ct"],
                         capture_output=True, text=True).stdout
    return {sha: int(ts) for sha, ts in (line.split() for line in out.splitlines())}


def diff_lines(repo: str, a: str, b: str, sign: str) -> dict[str, set[str]]:
    """path → the whitespace-collapsed lines ``git diff -U0 a b`` adds (``+``) or removes (``-``)."""
    out = subprocess.run(["git", "--git-dir", repo, "diff", "-U0", "--no-color", a, b],
                         capture_output=True, text=True, errors="replace").stdout
    found: dict[str, set[str]] = collections.defaultdict(set)
    path = ""
    for line in out.splitlines():
        if line.startswith("+++ ") or line.startswith("--- "):
            if line.startswith("+++ ") or not path:
                path = line[6:] if line[4:6] in ("a/", "b/") else path
            continue
        if line.startswith(sign) and len(" ".join(line[1:].split())) > 3:
            found[path].add(" ".join(line[1:].split()))
    return found


def what_the_fix_changed(repo: str, row: dict) -> str:
    """Where the later revert or fix landed, as seen from the change: ``its lines`` (it removes
    or rewrites a line the change added), ``its symbols`` (a symbol the change touched, other
    lines), ``its files`` (other symbols of a file it touched), ``elsewhere``."""
    added = diff_lines(repo, row["base"], row["head"], "+")
    later = row["later"]
    removed = diff_lines(repo, f"{later}^", later, "-")
    if any(added[p] & removed.get(p, set()) for p in added):
        return "its lines"
    if {tuple(t) for t in row["targets"]} & {tuple(t) for t in row["later_symbols"]}:
        return "its symbols"
    if set(added) & set(row["later_files"]):
        return "its files"
    return "elsewhere"


def leads_of(git, reader, row: dict, when: int) -> dict[tuple, set]:
    """lead → the (path, symbol) of the change it holds on."""
    views = [v for v in (file_view(c, revision_reader(git, row["head"]), revision_reader(git, row["base"]))
                         for c in diff_changes(git, row["base"], row["head"])) if v is not None]
    blamed = collections.defaultdict(set)  # path → git blame commits of changed lines
    for path, _n, _index, plain, ignoring, *_ in row.get("blame", ()):
        blamed[path].update(c for c in (plain, ignoring) if c)
    out: dict[tuple, set] = collections.defaultdict(set)
    for view in views:
        if not product_source(view.path):
            continue
        for where in view.changed_symbols():
            if where.symbol is None or where.wide:
                continue
            name = where.symbol.name
            history = [e for p in view.paths for e in reader.symbol_history(name, p)]
            fixes = {e.commit: e.timestamp for e in history if is_fix(e.subject) and e.timestamp < when}
            on_line = blamed[view.change.old_path or view.path]
            for k, days, line in LEADS:
                recent = {c for c, ts in fixes.items() if when - ts <= days * DAY}
                if len(recent) >= k and (not line or recent & on_line):
                    out[k, days, line].add((view.path, name))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("replay")
    parser.add_argument("--index", required=True, help="a full index of the repository at HEAD")
    args = parser.parse_args()
    data = json.load(open(args.replay, encoding="utf-8"))
    when = times(data["repo"])
    cases = collections.Counter()
    ordinary = collections.Counter()
    landed: collections.Counter = collections.Counter()
    n_cases = n_ordinary = 0
    with open_repository(data["repo"]) as git, IndexStore(args.index).reader() as reader:
        for row in data["results"]:
            if row["set"] not in ("case", "ordinary"):
                continue
            found = leads_of(git, reader, row, when[row["at"]])
            if row["set"] == "case":
                n_cases += 1
                landed[row["kind"], what_the_fix_changed(data["repo"], row)] += 1
                later = {tuple(t) for t in row["later_symbols"]}
                for lead, where in found.items():
                    cases[lead] += bool(where & later)
            else:
                n_ordinary += 1
                for lead in found:
                    ordinary[lead] += 1
    print(f"== {data['name']}: {n_cases} cases, {n_ordinary} ordinary")
    print("the later revert / fix: " + ", ".join(f"{k} {w} {n}" for (k, w), n in sorted(landed.items())))
    print("fixes  days  line  | cases hit        | ordinary / 100")
    for lead in LEADS:
        k, days, line = lead
        print(f"  >={k}  {days:5}  {'yes' if line else ' no'}  | {cases[lead]:3}/{n_cases} = "
              f"{100 * cases[lead] / max(1, n_cases):4.1f}% | {100 * ordinary[lead] / max(1, n_ordinary):5.1f}")


if __name__ == "__main__":
    main()
