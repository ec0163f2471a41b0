"""Replay the review engine over a real repository's past, next to today's engine (the baseline).

    python bench/replay_review.py /work/.mirror/pallets+flask/repo --name flask \
        [--days 30] [--since 2013-01-01] [--ordinary 250] [--max-cases 150] [--reapply] \
        [--save bench/out/flask.json]
    python bench/score_review.py bench/out/flask.json    # metrics at the gate, labels, curve

Cases — past changes that went wrong:
- ``reverted``: a commit later reverted (the index's reverts table: "This reverts commit <sha>");
- ``fixed``: a commit followed within --days by a fix commit (subject says fix / bug / regression /
  broke / crash) that touched the same symbols and (``--cases causal``, the default since recall32)
  removes or rewrites product lines the commit added, or lines next to them
  (``review_causal``; the most recent such change before the fix). ``--cases symbol``: the rule
  before, the most recent change of a symbol the fix touched, whatever the fix repaired.
Each is reviewed as it was proposed (its parent → it) with the index as of the moment it was
reviewed: the commit's parent when it sits on the first-parent line, else the mainline commit its
pull request was merged onto (``merge^1``). Cases whose revert or fix is already in that index are
dropped (no leakage). Ordinary changes (first-parent commits and merged PRs none of whose commits
went wrong; a sample of --ordinary, evenly spaced) are reviewed the same way. Indexes are updated
incrementally, oldest first, in a temporary folder; nothing is written into the repository.

Both engines run on every change, the same way: the new one (``whylens.retrieval.review``, with
the base side, the change's messages and the past diffs read by git as ``whylens pr-comments``
does) and main's (the whole package at BASELINE_COMMIT or --baseline, from git, imported as
``wlbase``: its engine, its reader of past diffs and, unless --shared-index, an index its own
pipeline builds beside the new one's, since what an index holds decides what review can cite).
Both run with their gate lowered to --floor and no cap, so that every threshold can
be scored afterwards (score_review.py applies each engine's own gate and calibration: the
baseline's suggestions already carry its per-kind shifts).

``--reapply``: the re-applied revert set. For every revert in the head index that still stands,
the reverted change is applied again (a) on the revert itself (base = the revert, head = its
parent: exactly the revert's inverse) and (b) on the mainline commit after it, through a
temporary shared clone (a commit made there by ``git apply --3way --cached``); each is reviewed
with the index as of that state (the first mainline commit containing the revert). Caught = a
``reintroduces-revert`` suggestion at the gate citing that revert (strict), or citing the same
revert otherwise: a commit a revert made as a merge brought in, or the reverted commit (another
revert of it is then named; score_review prints both counts). Left out of the count, and
reported: layout-only or binary re-applications, and reverts already undone in that index (a
revert reverted inside the same pull request no longer stands).

``--blame``: also each change's line blame by the index and by git (``review_blame``, ``score_blame``).

Labels (bench/labels/review-NAME.tsv, ``label`` = useful / noise, by hand, for every suggestion at
the gate): ``useful`` when a reviewer of that change would want the comment — the cited revert /
fix / pitfall / constraint concerns what the change modifies (re-adding ``max_retries`` after its
first version was reverted; a refactor that drops the guard a fix added; flipping
``decode_content`` against "urllib3, don't decode content"); for co-change, when the untouched
partner plausibly needs the same change (two templates carrying the same links). ``noise`` when
it concerns something the change does not touch, the change is docs / formatting only, the fix's
logic survives the edit (moved, renamed, re-indented), the code is removed on purpose (a feature
or helper deleted), the partner needs nothing, or it repeats a comment already made on the same
change. ``fragile`` (either form): useful when the change modifies code of the symbol that one of the cited fixes
changed or whose failure they concern (the same call, condition or feature); noise when the change
there is cosmetic or a removal on purpose, or touches parts the cited fixes do not concern.

Runtime on 2 shared cores (load 5-8): a full index of the repository, then about one incremental
index update and two reviews per job; requests (--since 2011-01-01: 200 cases, 250 ordinary, 42
reverts re-applied twice) 10-14 min, express 6-8, flask 8-13, axios 4. With main's revert detection
and both engines in full (load 5-10): requests (--since 2011-01-01, 162 re-applied) 16 min, express
(--since 2011-01-01) 9, flask (--since 2011-01-01) 11, axios 11. Review4, three at once (load 9-11):
requests 26 min, express 15, sinatra (--since 2011-01-01 --ordinary 150 --max-cases 100) 22.
Review6, the baseline on its own index (every index update twice), five at once with the test
suite beside (load 7-20): requests 33 min, express 24, sinatra 29, flask 32, axios 31. Review8,
``--shared-index`` (an unchanged pipeline: one index for both engines), two or three at once
(load 5-13): requests 13 min, express 9, sinatra 12, flask 10, axios 9.
"""

from __future__ import annotations

import argparse
import atexit
import collections
import contextlib
import importlib
import io
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
import types
from datetime import datetime, timezone
from pathlib import Path

from whylens.cli.review import (branch_commits, change_message, history_patches, indexed_reader,
                                revision_reader)
from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.review import GATE, review
from whylens.retrieval.review_hunks import file_view, file_wide, git_lines

from review_blame import blame_rows
from review_causal import causal
import survival_trace

ROOT = Path(__file__).resolve().parents[1]
BASELINE_COMMIT = "916f569"  # main before review8 (issue 15, eighth round): the same-run baseline
FIX = re.compile(r"\b(fix(e[sd]|ing)?|bug|regression|broke|broken|crash\w*|hotfix)\b", re.I)
REVERT = re.compile(r"^Revert\b", re.I)


def git(repo: str, *args: str, check: bool = True, env: dict | None = None, input: str | None = None) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], capture_output=True, check=check,
                          text=True, errors="replace", env=env, input=input).stdout


def load_baseline(commit: str = BASELINE_COMMIT):
    """Main at ``commit`` (None when it cannot be loaded): the whole package at that commit, from
    git, imported under another name (``wlbase``), so that every module it is made of is the
    baseline's own: its review engine (``.review``), its git reader of past diffs
    (``.history_patches``) and its pipeline (``.run_index``, ``.IndexStore``), which indexes the
    replayed history into an index of its own unless the replay runs with ``--shared-index``."""
    try:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "server/whylens"],
                                 capture_output=True, check=True).stdout
        folder = Path(tempfile.mkdtemp(prefix="whylens-baseline-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        package = folder / "wlbase"
        (folder / "server" / "whylens").rename(package)
        for source in package.rglob("*.py"):
            text = source.read_text(encoding="utf-8")
            source.write_text(re.sub(r"^(\s*)(from|import)\s+whylens\b", r"\1\2 wlbase", text, flags=re.M),
                              encoding="utf-8")
        sys.path.insert(0, str(folder))
        return types.SimpleNamespace(
            review=importlib.import_module("wlbase.retrieval.review"),
            history_patches=importlib.import_module("wlbase.cli.review").history_patches,
            run_index=importlib.import_module("wlbase.pipeline").run_index,
            IndexStore=importlib.import_module("wlbase.index.store").IndexStore)
    except (subprocess.CalledProcessError, ImportError, SyntaxError, OSError, tarfile.TarError) as exc:
        print(f"baseline engine unavailable: {exc}", file=sys.stderr)
        return None


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


def head_facts(index_dir: Path):
    """From a full index at HEAD (read-only sqlite): symbols and files each commit changed,
    and the revert pairs."""
    folder = IndexStore(index_dir).current_generation()
    conn = sqlite3.connect(f"file:{folder / 'sidecar.sqlite'}?mode=ro", uri=True)
    events: dict[str, set] = collections.defaultdict(set)
    for sha, path, symbol in conn.execute("SELECT sha, path, symbol FROM events WHERE tail = symbol"):
        events[sha].add((path, symbol))
    files: dict[str, set] = collections.defaultdict(set)
    for sha, path in conn.execute("SELECT sha, path FROM commit_files"):
        files[sha].add(path)
    pairs = conn.execute("SELECT reverted, reverting FROM reverts").fetchall()
    conn.close()
    return events, files, pairs


def find_cases(commits, events, pairs, days: int, since: int, repo: str | None = None) -> list[dict]:
    """Reverted and fixed changes. With ``repo`` (``--cases causal``, recall32), a fix makes a case
    of the most recent such change whose added lines it rewrites (``review_causal.causal``), not
    of the most recent change of a symbol it touched (``--cases symbol``, the rule before)."""
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
        near = set()
        for key in events.get(fix, ()):
            for x in by_symbol[key]:
                dt = meta["ts"] - commits[x]["ts"]
                if x != fix and 0 < dt <= days * 86_400 and len(commits[x]["parents"]) == 1 \
                        and not FIX.search(commits[x]["subject"]) and commits[x]["ts"] >= since:
                    near.add(x)
        ranked = sorted(near, key=lambda x: commits[x]["ts"], reverse=True)
        best = next((x for x in ranked if repo is None or causal(repo, x, fix)), None)
        if best and best not in cases:
            cases[best] = {"sha": best, "kind": "fixed", "later": fix,
                           "targets": events[best] & events[fix]}
    return list(cases.values())


def is_ancestor(repo: str, a: str, b: str) -> bool:
    return subprocess.run(["git", "--git-dir", repo, "merge-base", "--is-ancestor", a, b],
                          capture_output=True).returncode == 0


def as_dict(s, wide: set[tuple[str, str]]) -> dict:
    """``wide``: whether the suggestion's symbol is a file-wide anchor at head (``file_wide``),
    so that score_review / tune_review can tell ``constraint@wide`` from other constraints."""
    return {"path": s.path, "line": s.line, "side": s.side, "kind": s.kind, "body": s.body,
            "confidence": s.confidence, "evidence": list(s.evidence), "symbol": s.symbol,
            "wide": (s.path, s.symbol) in wide}


def run_engines(git_repo, reader, base_reader, base: str, head: str, floor: float,
                baseline, blame_in: str | None = None) -> tuple[list, list, int, list]:
    """Both engines on ``base..head``: the new one on ``reader``, the baseline on ``base_reader``
    (its own index, or the same one) with its own reader of past diffs."""
    changes = diff_changes(git_repo, base, head)
    read_head, read_base = revision_reader(git_repo, head), revision_reader(git_repo, base)
    patches, message = history_patches(git_repo), change_message(git_repo, base, head)
    read_indexed = indexed_reader(git_repo, reader, base)
    new = review(reader, git_repo.root, changes, read_head, gate=floor, cap=1000,
                 read_base=read_base, patches=patches, message=message, read_indexed=read_indexed,
                 own=branch_commits(git_repo, base, head))
    old = baseline.review.review(base_reader, git_repo.root, changes, read_head, gate=floor, cap=1000,
                                 read_base=read_base, patches=baseline.history_patches(git_repo),
                                 message=message) if baseline else []
    views = [v for v in (file_view(c, read_head, read_base) for c in changes) if v is not None]
    code = sum(1 for v in views if v.hunks)
    wide = {(v.path, sym.name) for v in views for sym in v.symbols
            if file_wide(sym, len(git_lines(v.head_text)))}
    blamed = blame_rows(blame_in, reader, views, base, read_indexed) if blame_in else []
    return [as_dict(s, wide) for s in new], [as_dict(s, wide) for s in old], code, blamed


def mainline_after(repo: str, sha: str, chain: list[str], position: dict) -> tuple[str | None, str | None]:
    """The first first-parent commit that contains ``sha``, and the one after it."""
    for candidate in git(repo, "rev-list", "--first-parent", "--reverse", f"{sha}^..HEAD").split():
        if candidate in position and is_ancestor(repo, sha, candidate):
            i = position[candidate]
            return candidate, chain[i + 1] if i + 1 < len(chain) else None
    return None, None


def reapply_on(clone: Path, revert: str, onto: str) -> str | None:
    """A commit in ``clone``: ``onto`` plus the inverse of ``revert`` (None when it won't apply)."""
    env = {**os.environ, "GIT_INDEX_FILE": str(clone / "reapply-index"),
           "GIT_AUTHOR_NAME": "replay", "GIT_AUTHOR_EMAIL": "replay@example.com",
           "GIT_COMMITTER_NAME": "replay", "GIT_COMMITTER_EMAIL": "replay@example.com"}
    repo = str(clone / ".git")
    git(repo, "read-tree", onto, env=env)
    patch = git(repo, "diff", "--binary", "--no-color", "--no-ext-diff", revert, f"{revert}^1")
    applied = subprocess.run(["git", "--git-dir", repo, "apply", "--cached", "--3way"], input=patch,
                             capture_output=True, text=True, env=env, cwd=clone)
    if applied.returncode != 0:
        return None
    tree = git(repo, "write-tree", env=env).strip()
    return git(repo, "commit-tree", tree, "-p", onto, "-m", f"Reapply the change {revert} reverted",
               env=env).strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--name", help="short name (labels: bench/labels/review-NAME.tsv)")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--cases", choices=("causal", "symbol"), default="causal",
                        help="fixed cases: the fix rewrites the change's lines (causal, recall32) or "
                             "touches one of its symbols (symbol, the rule before)")
    parser.add_argument("--since", default="2013-01-01", help="cases and ordinary changes from")
    parser.add_argument("--ordinary", type=int, default=250, help="ordinary changes to review")
    parser.add_argument("--max-cases", type=int, default=200, help="at most N cases (evenly spaced)")
    parser.add_argument("--floor", type=float, default=0.3, help="lowest confidence kept")
    parser.add_argument("--reapply", action="store_true", help="also the re-applied revert set")
    parser.add_argument("--no-cases", action="store_true", help="only the re-applied revert set")
    parser.add_argument("--save", required=True, help="write the results here (JSON)")
    parser.add_argument("--blame", action="store_true",
                        help="record the index's line blame and git blame of each change's lines")
    parser.add_argument("--baseline", default=BASELINE_COMMIT,
                        help="the baseline engine's commit (none: the new engine only)")
    parser.add_argument("--survival-trace", action="store_true",
                        help="never silence rewrites-fix on a kept fix; record the shares (tuning)")
    parser.add_argument("--shared-index", action="store_true",
                        help="the baseline engine reads the new pipeline's index (faster; before "
                             "review6 always so) instead of one its own pipeline builds")
    args = parser.parse_args()
    repo, name = args.repo, args.name or Path(args.repo).parent.name.split("+")[-1]
    since = int(datetime.fromisoformat(args.since).replace(tzinfo=timezone.utc).timestamp())
    started, cpu_started = time.perf_counter(), time.process_time()
    baseline = load_baseline(args.baseline) if args.baseline != "none" else None
    traced = survival_trace.install() if args.survival_trace else None

    with tempfile.TemporaryDirectory(prefix="whylens-replay-") as tmp:
        head_index = Path(tmp) / "head"
        run_index(repo, head_index)
        commits = load_commits(repo)
        events, files, pairs = head_facts(head_index)
        chain, review_at = review_revs(repo, commits)
        position = {sha: i for i, sha in enumerate(chain)}
        jobs: list[tuple] = []
        cases: list[dict] = []
        ordinary: list[str] = []
        if not args.no_cases:
            cases = [c for c in find_cases(commits, events, pairs, args.days, since,
                                           repo if args.cases == "causal" else None) if c["sha"] in review_at]
            cases.sort(key=lambda c: commits[c["sha"]]["ts"])
            if len(cases) > args.max_cases:
                step = len(cases) / args.max_cases
                cases = [cases[int(i * step)] for i in range(args.max_cases)]
            case_shas = {c["sha"] for c in cases} | {c["later"] for c in cases}
            candidates = []
            for sha in chain:
                meta = commits[sha]
                if meta["ts"] < since or not meta["parents"] or REVERT.match(meta["subject"]):
                    continue  # a fix is an ordinary change too; only reverts are left out
                inner = {s for s, at in review_at.items() if at == meta["parents"][0]} \
                    if len(meta["parents"]) == 2 else {sha}
                if inner & case_shas or not any(events.get(s) for s in inner):
                    continue
                candidates.append(sha)
            step = max(1, len(candidates) // max(1, args.ordinary))
            ordinary = candidates[::step][: args.ordinary]
            jobs += [("case", c["sha"], review_at[c["sha"]], commits[c["sha"]]["parents"][0], c["sha"], c)
                     for c in cases]
            jobs += [("ordinary", sha, commits[sha]["parents"][0], commits[sha]["parents"][0], sha, None)
                     for sha in ordinary]
        if args.reapply:
            for reverted, reverting in pairs:
                if reverting not in commits or reverted not in commits or not commits[reverting]["parents"]:
                    continue  # a squashed pull request's inner revert: nothing in history to re-apply
                mainline, after = mainline_after(repo, reverting, chain, position)
                if mainline is None:
                    continue
                undone_by = [b for a, b in pairs if a == reverting]  # the revert was reverted too
                parents = commits[reverting]["parents"]
                # a revert made as a merge: the commits it brought in are that revert too
                brought = git(repo, "rev-list", f"{parents[0]}..{reverting}").split()[1:] \
                    if len(parents) > 1 else []
                pair = {"reverted": reverted, "revert": reverting, "undone_by": undone_by,
                        "subject": commits[reverting]["subject"], "brought_in": brought}
                jobs.append(("reapply-revert", reverting, mainline, reverting,
                             commits[reverting]["parents"][0], pair))
                if after:
                    jobs.append(("reapply-child", reverting, after, after, None, pair))
        jobs.sort(key=lambda job: position.get(job[2], -1))

        index_dir = Path(tmp) / "replay"
        clone = Path(tmp) / "clone"
        if args.reapply:
            subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", repo, str(clone)], check=True)
        own_index = baseline is not None and not args.shared_index
        base_index_dir = Path(tmp) / "replay-baseline" if own_index else index_dir
        results, modes = [], collections.Counter()
        for what, sha, at, base, head, meta in jobs:
            modes[run_index(repo, index_dir, rev=at).mode] += 1
            if own_index:
                baseline.run_index(repo, base_index_dir, rev=at)
            if what == "case" and is_ancestor(repo, meta["later"], at):
                modes["dropped (leak)"] += 1
                continue
            where = repo
            if what == "reapply-child":
                head = reapply_on(clone, meta["revert"], base)
                if head is None:
                    results.append({"set": what, "target": sha, "pair": meta, "applied": False})
                    continue
                where = str(clone)
            t0 = time.perf_counter()
            if traced is not None:
                traced.clear()
            with contextlib.ExitStack() as stack:
                git_repo = stack.enter_context(open_repository(where))
                reader = stack.enter_context(IndexStore(index_dir).reader())
                base_reader = stack.enter_context(baseline.IndexStore(base_index_dir).reader()) \
                    if own_index else reader
                blame_in = where if args.blame and what != "reapply-child" else None
                new, old, texts, blamed = run_engines(git_repo, reader, base_reader, base, head,
                                                      args.floor, baseline, blame_in)
            row = {"set": what, "target": sha, "at": at, "base": base, "head": head, "new": new,
                   "old": old, "code_changes": texts, "seconds": round(time.perf_counter() - t0, 3)}
            if blamed:
                row["blame"] = blamed
            if traced is not None:
                row["survival"] = list(traced)
            if what == "case":
                later = meta["later"]
                row |= {"kind": meta["kind"], "later": later,
                        "targets": sorted([list(t) for t in meta["targets"]]),
                        "later_files": sorted(files.get(later, ())),
                        "later_symbols": sorted([list(t) for t in events.get(later, ())])}
            elif meta is not None:
                # reviewed with an index in which the revert was already undone (in the same pull
                # request): bringing the change back is then no longer against a standing revert
                undone = any(is_ancestor(repo, u, at) for u in meta.get("undone_by", ()))
                row |= {"pair": meta, "applied": True, "revert_undone": undone}
            results.append(row)

    out = {"repo": repo, "name": name, "head": git(repo, "rev-parse", "HEAD").strip(),
           "args": vars(args), "gate": GATE, "baseline": args.baseline,
           "baseline_gate": getattr(baseline.review, "GATE", None) if baseline else None,
           "baseline_index": "own" if own_index else "shared",
           "n_ordinary": len(ordinary), "n_cases": len(cases), "index_runs": dict(modes),
           "seconds": round(time.perf_counter() - started), "cpu_seconds": round(time.process_time() - cpu_started),
           "results": results}
    Path(args.save).parent.mkdir(parents=True, exist_ok=True)
    Path(args.save).write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(f"replay on {name}: {len(cases)} cases, {len(ordinary)} ordinary changes, "
          f"{sum(1 for j in jobs if j[0].startswith('reapply'))} re-applied reverts; "
          f"{out['seconds']} s wall, {out['cpu_seconds']} s CPU (this process); saved {args.save}")


if __name__ == "__main__":
    # SIGTERM (a killed replay) unwinds as an exit, so the temporary clones and indexes go too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
