"""Replay the review engine over a real repository's past (issue 7's benchmark).

    python bench/replay_review.py /work/.mirror/psf+requests/repo \
        [--days 30] [--since 2014-01-01] [--ordinary 250] \
        [--labels bench/labels/review-requests.tsv] [--dump candidates.tsv]

Cases — past changes that went wrong:
- ``reverted``: a commit later reverted ("This reverts commit <sha>");
- ``fixed``: a commit followed within --days by a fix commit (subject says fix / bug / regression
  / broke / crash) that touched the same symbols (the most recent such change before the fix).
For each case the engine runs on the original change (its parent → it) with the index as of the
moment it was reviewed: the commit's parent when it sits on the first-parent line, else the
mainline commit its pull request was merged onto (``merge^1``). Cases whose revert or fix is
already in that index are dropped (no leakage). Indexes are updated incrementally, oldest first.

- recall: the share of cases with a suggestion on a symbol the later revert / fix touched;
- ceiling: the share of cases where the index held anything about those symbols at all
  (a reverted earlier change, a unit, a record) — what any engine on this index could use;
- precision: ordinary changes (first-parent commits and merged PRs that were neither reverted nor
  fixed) are reviewed the same way; their suggestions are written to --dump and judged by hand
  in --labels (column ``label``: useful / noise). Precision = useful / labelled, printed per
  confidence threshold (run with ``--gate 0.5`` to see what lies under the engine's gate).
  Label rule: ``useful`` when a reviewer of that change would want the comment — the cited
  revert / pitfall / constraint concerns what the change modifies (re-adding ``max_retries``
  after its first version was reverted; adding a second ``urlparse`` where a Fact says "don't
  urlparse twice"); ``noise`` when it concerns something the change does not touch, the change
  is docs / formatting only, or it repeats a comment already made on the same change.
Nothing is written into the repository; indexes go to a temporary folder.

Measured on psf/requests (6,489 commits, HEAD 1f6589e), --days 30, --since 2011-01-01: 198 cases
(32 reverted, 166 fixed), 776 ordinary changes, ~14 min on 2 shared cores. At the engine's gate
(0.6): recall 2/198 = 1% (ceiling 66%: the index held something about the symbols), 14
suggestions on ordinary changes, 9/14 = 64% useful. Under the gate (0.5 ≤ c < 0.6) 14/81 = 17%
were useful, which is why it stays there. All 95 are labelled in bench/labels/review-requests.tsv.
"""

from __future__ import annotations

import argparse
import collections
import csv
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.review import GATE, review

FIX = re.compile(r"\b(fix(e[sd]|ing)?|bug|regression|broke|broken|crash\w*|hotfix)\b", re.I)
REVERT = re.compile(r"^Revert\b", re.I)
LABEL_FIELDS = ["target", "path", "line", "kind", "confidence", "evidence", "body", "label", "note"]


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], capture_output=True, check=True,
                          text=True, errors="replace").stdout


def load_commits(repo: str) -> dict[str, dict]:
    out = {}
    for line in git(repo, "log", "--format=%H%x00%P%x00%ct%x00%s", "HEAD").splitlines():
        sha, parents, ts, subject = line.split("\x00", 3)
        out[sha] = {"parents": parents.split(), "ts": int(ts), "subject": subject}
    return out


def review_revs(repo: str, commits: dict) -> tuple[list[str], dict[str, str]]:
    """First-parent line (oldest first), and commit → the revision its review index is at."""
    chain = git(repo, "rev-list", "--first-parent", "--reverse", "HEAD").split()
    at: dict[str, str] = {}
    for sha in chain:
        parents = commits[sha]["parents"]
        if len(parents) == 1:
            at[sha] = parents[0]
        elif len(parents) == 2:
            for inner in git(repo, "rev-list", "--no-merges", f"{parents[0]}..{parents[1]}").split():
                at.setdefault(inner, parents[0])
    return chain, at


def head_facts(index_dir: Path) -> tuple[dict[str, set], list[tuple[str, str]]]:
    """From a full index at HEAD (read-only sqlite): symbols each commit changed, revert pairs."""
    folder = IndexStore(index_dir).current_generation()
    conn = sqlite3.connect(f"file:{folder / 'sidecar.sqlite'}?mode=ro", uri=True)
    events: dict[str, set] = collections.defaultdict(set)
    for sha, path, symbol in conn.execute("SELECT sha, path, symbol FROM events WHERE tail = symbol"):
        events[sha].add((path, symbol))
    pairs = conn.execute("SELECT reverted, reverting FROM reverts").fetchall()
    conn.close()
    return events, pairs


def find_cases(commits, events, pairs, days: int, since: int) -> list[dict]:
    cases: dict[str, dict] = {}
    for reverted, reverting in pairs:
        if reverted in commits and events.get(reverted) and commits[reverted]["ts"] >= since:
            later = events.get(reverting) or events[reverted]
            cases[reverted] = {"sha": reverted, "kind": "reverted", "later": reverting,
                               "targets": (events[reverted] & later) or events[reverted]}
    by_symbol: dict[tuple, list[str]] = collections.defaultdict(list)
    for sha in sorted(commits, key=lambda s: commits[s]["ts"]):
        for key in events.get(sha, ()):
            by_symbol[key].append(sha)
    for fix, meta in commits.items():
        if len(meta["parents"]) != 1 or not FIX.search(meta["subject"]) or REVERT.match(meta["subject"]):
            continue
        best = None
        for key in events.get(fix, ()):
            for x in by_symbol[key]:
                dt = meta["ts"] - commits[x]["ts"]
                if x != fix and 0 < dt <= days * 86_400 and len(commits[x]["parents"]) == 1 \
                        and not FIX.search(commits[x]["subject"]) and commits[x]["ts"] >= since:
                    if best is None or commits[x]["ts"] > commits[best]["ts"]:
                        best = x
        if best and best not in cases:
            cases[best] = {"sha": best, "kind": "fixed", "later": fix,
                           "targets": events[best] & events[fix]}
    return list(cases.values())


def is_ancestor(repo: str, a: str, b: str) -> bool:
    return subprocess.run(["git", "--git-dir", repo, "merge-base", "--is-ancestor", a, b],
                          capture_output=True).returncode == 0


def knows_anything(reader, targets) -> bool:
    for path, symbol in targets:
        if reader.units_for_symbol(symbol, path=path) or reader.records_for_symbol(symbol, path=path):
            return True
        for entry in reader.symbol_history(symbol, path=path):
            if reader.reverts_of(entry.commit):
                return True
    return False


def run_review(git_repo, reader, base: str, head: str, gate: float):
    changes = diff_changes(git_repo, base, head)

    def read(path: str) -> str | None:
        data = git_repo.read_file(head, path)
        return None if data is None or len(data) > 1_000_000 else data.decode("utf-8", "replace")

    return review(reader, git_repo.root, changes, read, gate=gate)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--since", default="2013-01-01", help="cases and ordinary changes from")
    parser.add_argument("--ordinary", type=int, default=250, help="ordinary changes to review")
    parser.add_argument("--labels", default="bench/labels/review-requests.tsv")
    parser.add_argument("--dump", help="write the ordinary changes' suggestions here (TSV)")
    parser.add_argument("--gate", type=float, default=GATE,
                        help=f"run the engine with this gate (default the engine's, {GATE}); "
                             "lower it to label what lies under the gate and draw the curve")
    args = parser.parse_args()
    repo = args.repo
    since = int(datetime.fromisoformat(args.since).replace(tzinfo=timezone.utc).timestamp())
    started = time.perf_counter()

    with tempfile.TemporaryDirectory(prefix="whylens-replay-") as tmp:
        head_index = Path(tmp) / "head"
        run_index(repo, head_index)
        commits = load_commits(repo)
        events, pairs = head_facts(head_index)
        chain, review_at = review_revs(repo, commits)
        cases = [c for c in find_cases(commits, events, pairs, args.days, since) if c["sha"] in review_at]
        case_shas = {c["sha"] for c in cases} | {c["later"] for c in cases}
        position = {sha: i for i, sha in enumerate(chain)}

        # Ordinary changes: first-parent commits / merged PRs, none of whose commits went wrong.
        candidates = []
        for sha in chain:
            meta = commits[sha]
            if meta["ts"] < since or not meta["parents"] or REVERT.match(meta["subject"]):
                continue  # a fix is an ordinary change too; only reverts are left out
            inner = ({s for s, at in review_at.items() if at == meta["parents"][0]}
                     if len(meta["parents"]) == 2 else {sha})
            if inner & case_shas or not any(events.get(s) for s in inner):
                continue
            candidates.append(sha)
        step = max(1, len(candidates) // max(1, args.ordinary))
        ordinary = candidates[::step][: args.ordinary]

        jobs = [("case", c["sha"], review_at[c["sha"]], c) for c in cases]
        jobs += [("ordinary", sha, commits[sha]["parents"][0], None) for sha in ordinary]
        jobs.sort(key=lambda job: position.get(job[2], -1))

        index_dir = Path(tmp) / "replay"
        results, dumped, modes = [], [], collections.Counter()
        with open_repository(repo) as git_repo:
            for _what, sha, at, case in jobs:
                modes[run_index(repo, index_dir, rev=at).mode] += 1
                if case and is_ancestor(repo, case["later"], at):
                    modes["dropped (leak)"] += 1
                    continue
                with IndexStore(index_dir).reader() as reader:
                    base = commits[sha]["parents"][0]
                    suggestions = run_review(git_repo, reader, base, sha, args.gate)
                    if case:
                        names = {symbol for _p, symbol in case["targets"]}
                        hit = [s for s in suggestions if s.symbol in names]
                        results.append((case, suggestions, hit, knows_anything(reader, case["targets"])))
                    else:
                        dumped += [(sha, s) for s in suggestions]

    report(results, dumped, len(ordinary), modes, args, time.perf_counter() - started)


def report(results, dumped, n_ordinary, modes, args, seconds) -> None:
    print(f"replay on {args.repo}: {len(results)} cases, {n_ordinary} ordinary changes, "
          f"{seconds:.0f} s (index runs: {dict(modes)})")
    for kind in ("reverted", "fixed", None):
        rows = [r for r in results if kind is None or r[0]["kind"] == kind]
        if not rows:
            continue
        hits = sum(1 for r in rows if r[2])
        ceiling = sum(1 for r in rows if r[3])
        any_s = sum(1 for r in rows if r[1])
        label = kind or "all"
        print(f"  {label:9} n={len(rows):3}  recall {hits}/{len(rows)} = {hits / len(rows):.0%}   "
              f"ceiling (index knew anything) {ceiling}/{len(rows)} = {ceiling / len(rows):.0%}   "
              f"any suggestion {any_s / len(rows):.0%}")
    kinds = collections.Counter(s.kind for r in results for s in r[2])
    print(f"  kinds of the hits: {dict(kinds)}")
    with_s = len({sha for sha, _ in dumped})
    print(f"  ordinary changes: {len(dumped)} suggestions on {with_s}/{n_ordinary} changes "
          f"(any-suggestion rate {with_s / max(1, n_ordinary):.0%})")
    if args.dump:
        with open(args.dump, "w", newline="", encoding="utf-8") as handle:
            out = csv.writer(handle, delimiter="\t")
            out.writerow(LABEL_FIELDS)
            for sha, s in dumped:
                out.writerow([sha, s.path, s.line, s.kind, s.confidence, " ".join(s.evidence),
                              " ".join(s.body.split())[:300], "", ""])
        print(f"  wrote {len(dumped)} suggestions to {args.dump} (label them: useful / noise)")
    labels = Path(args.labels)
    if labels.is_file():
        with labels.open(encoding="utf-8") as handle:
            rows = [r for r in csv.DictReader(handle, delimiter="\t") if r.get("label")]
        current = {(sha, s.path, str(s.line), s.kind) for sha, s in dumped}
        judged = [r for r in rows if (r["target"], r["path"], r["line"], r["kind"]) in current]
        useful = sum(1 for r in judged if r["label"].strip() == "useful")
        if judged:
            print(f"  precision (hand labels in {labels}): {useful}/{len(judged)} = "
                  f"{useful / len(judged):.0%} useful; {len(current) - len(judged)} unlabelled")
        by_kind = collections.Counter((r["kind"], r["label"]) for r in judged)
        if by_kind:
            print(f"  labels by kind: {dict(by_kind)}")
        conf = {(sha, s.path, str(s.line), s.kind): s.confidence for sha, s in dumped}
        for threshold in sorted({args.gate, 0.5, 0.55, GATE, 0.7, 0.8} - {None}):
            above = [r for r in judged if conf[(r["target"], r["path"], r["line"], r["kind"])] >= threshold]
            good = sum(1 for r in above if r["label"].strip() == "useful")
            n_all = sum(1 for c in conf.values() if c >= threshold)
            mark = "  <- the engine's gate" if threshold == GATE else ""
            if above:
                print(f"    confidence ≥ {threshold:.2f}: {good}/{len(above)} useful = "
                      f"{good / len(above):.0%} ({n_all} suggestions, "
                      f"{n_all / max(1, n_ordinary):.2f} per change){mark}")
    else:
        print(f"  no labels at {labels}: precision not computed")


if __name__ == "__main__":
    sys.exit(main())
