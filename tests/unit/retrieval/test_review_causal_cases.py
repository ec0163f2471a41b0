"""The replay's causal case definition (bench/review_causal.py, recall32): a later fix makes a
"fixed" case only when it rewrites lines the change added (or the line next to them); a fix of
an older bug of the same function within 30 days does not. Real repositories built in code."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"


def _module(name: str):
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


V1 = '''\
def parse(text, sep=","):
    """Split ``text`` on ``sep``."""
    if text is None:
        return []
    items = text.split(sep)
    items = [i.strip() for i in items]
    return [i for i in items if i]


def render(items):
    return ", ".join(items)
'''
# the change: a limit option, written by it (lines 1 and 7)
V2 = V1.replace('def parse(text, sep=","):', 'def parse(text, sep=",", limit=None):').replace(
    "    return [i for i in items if i]",
    "    items = items[:limit] if limit else items\n    return [i for i in items if i]")
# a fix of the change's own line: limit=0 must mean "none"
V3_OWN = V2.replace("items[:limit] if limit else items", "items[:limit] if limit is not None else items")
# a fix of an older bug of the same function: an empty text gave [""] before the change
V3_OLD = V2.replace("    if text is None:", "    if not text:")


def _history(make_repo, fix_text: str, fix_subject: str):
    repo = make_repo()
    repo.commit("Add parse", {"src/parse.py": V1})
    change = repo.commit("Add a limit to parse", {"src/parse.py": V2})
    repo.commit("Docs", {"README.md": "parse\n"})
    fix = repo.commit(fix_subject, {"src/parse.py": fix_text, "tests/test_parse.py": "def test(): pass\n"})
    return str(repo.root / ".git"), change, fix


def test_a_fix_of_the_changes_own_line_is_a_case(make_repo):
    causal = _module("review_causal")
    git_dir, change, fix = _history(make_repo, V3_OWN, "Fix parse with limit=0")
    assert causal.blamed_lines(git_dir, change, fix, near=0) == 1
    assert causal.causal(git_dir, change, fix)
    assert causal.keep_case(git_dir, {"kind": "fixed", "head": change, "later": fix})


def test_a_fix_of_an_older_bug_of_the_same_function_is_not(make_repo):
    causal = _module("review_causal")
    git_dir, change, fix = _history(make_repo, V3_OLD, "Fix parse of an empty text")
    assert not causal.causal(git_dir, change, fix)
    assert not causal.keep_case(git_dir, {"kind": "fixed", "head": change, "later": fix})
    assert causal.keep_case(git_dir, {"kind": "reverted", "head": change, "later": fix})  # reverts stay


def test_an_insertion_next_to_the_changes_line_counts_only_with_near(make_repo):
    causal = _module("review_causal")
    fixed = V2.replace("    items = items[:limit] if limit else items\n",
                       "    items = items[:limit] if limit else items\n    items = list(items)\n")
    git_dir, change, fix = _history(make_repo, fixed, "Fix parse of generators")
    assert causal.blamed_lines(git_dir, change, fix, near=0) == 0
    assert causal.blamed_lines(git_dir, change, fix, near=1) == 1
    assert causal.causal(git_dir, change, fix)  # NEAR = 1


def test_the_replay_picks_the_change_the_fix_repairs(make_repo):
    """Two changes of ``parse`` within 30 days, the fix repairing the older one's line: the old
    rule (``--cases symbol``) blames the most recent change, the causal one the older."""
    replay = _module("replay_review")
    repo = make_repo()
    repo.commit("Add parse", {"src/parse.py": V1})
    change = repo.commit("Add a limit to parse", {"src/parse.py": V2})
    later_text = V2.replace("def render(items):", "def render(items, sep=', '):").replace(
        'return ", ".join(items)', "return sep.join(items)").replace(
        "    items = text.split(sep)\n", "    # split on sep\n    items = text.split(sep)\n")
    recent = repo.commit("Comment parse, a sep for render", {"src/parse.py": later_text})
    fix = repo.commit("Fix parse with limit=0", {"src/parse.py": later_text.replace(
        "items[:limit] if limit else items", "items[:limit] if limit is not None else items")})
    git_dir = str(repo.root / ".git")
    commits = replay.load_commits(git_dir)
    key = ("src/parse.py", "parse")
    events = {change: {key}, recent: {key, ("src/parse.py", "render")}, fix: {key}}
    old = replay.find_cases(commits, events, [], 30, 0)
    new = replay.find_cases(commits, events, [], 30, 0, git_dir)
    assert [(c["sha"], c["later"]) for c in old] == [(recent, fix)]
    assert [(c["sha"], c["later"]) for c in new] == [(change, fix)]
