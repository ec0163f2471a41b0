"""``fragile`` on a real history: every recent change of a function was followed by a fix."""

from __future__ import annotations

from whylens.cli.review import change_message, history_patches, revision_reader
from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.review import GATE, review


def _parser(step: int) -> str:
    checks = "".join(f"    if text.startswith('#{i}'):\n        return None\n" for i in range(step))
    return ("def other(value):\n    return value\n\n\n"
            f"def parse(text):\n{checks}    parts = text.split(',')\n    kept = [p for p in parts if p]\n"
            "    kept = [p.lower() for p in kept]\n    kept = [p.replace('-', '_') for p in kept]\n"
            "    kept = [p.rstrip('.') for p in kept]\n    return [p.strip() for p in kept]\n")


def _history(repo, fixed_after: int) -> None:
    """``parse`` changed five times; the first ``fixed_after`` changes each got a fix a week later."""
    step = 0
    repo.commit("Add the parser\n", {"parse.py": _parser(step)}, days=40)
    for i in range(5):
        step += 1
        repo.commit(f"Teach parse comment form {i}\n", {"parse.py": _parser(step)}, days=40)
        if i < fixed_after:
            step += 1
            repo.commit(f"Fix crash in parse on comment form {i}\n", {"parse.py": _parser(step)}, days=7)


def _found(repo, index_dir) -> list:
    with IndexStore(index_dir).reader() as reader, open_repository(repo.root) as git:
        base = git.resolve("main")
        out = review(reader, repo.root, diff_changes(git, base, None),
                     lambda path: (repo.root / path).read_text(encoding="utf-8"),
                     read_base=revision_reader(git, base), patches=history_patches(git),
                     message=change_message(git, base, None))
    return [s for s in out if s.kind == "fragile"]


def _change(repo) -> None:
    repo.git("checkout", "-q", "-b", "feature")
    text = (repo.root / "parse.py").read_text(encoding="utf-8")
    repo.write("parse.py", text.replace("text.split(',')", "text.split(';')"))


def _reviewed(repo, index_dir) -> list:
    """Index the history, change ``parse``'s split on a branch, review it: the ``fragile`` ones."""
    run_index(repo.root, index_dir)
    _change(repo)
    return _found(repo, index_dir)


def test_a_function_whose_last_five_changes_were_each_fixed_is_fragile(make_repo, index_dir):
    repo = make_repo("fragile")
    _history(repo, fixed_after=5)
    found = _reviewed(repo, index_dir)
    assert [(s.symbol, s.path) for s in found] == [("parse", "parse.py")]
    assert found[0].confidence >= GATE and "Fix crash in parse on comment form 4" in found[0].body


def test_one_change_without_a_fix_is_not_fragile(make_repo, index_dir):
    repo = make_repo("steady")
    _history(repo, fixed_after=4)  # the newest change was never fixed
    assert _reviewed(repo, index_dir) == []


def test_one_fix_after_a_burst_of_changes_stays_under_the_gate(make_repo, index_dir):
    repo = make_repo("burst")
    repo.commit("Add the parser\n", {"parse.py": _parser(0)}, days=40)
    for i in range(1, 6):
        repo.commit(f"Teach parse comment form {i}\n", {"parse.py": _parser(i)}, days=3)
    repo.commit("Fix crash in parse on comment forms\n", {"parse.py": _parser(6)}, days=3)
    assert _reviewed(repo, index_dir) == []


def _fixed(repo, fixes: int) -> None:
    """``parse`` added, then fixed ``fixes`` times three weeks apart (no other change to it)."""
    repo.commit("Add the parser\n", {"parse.py": _parser(0)}, days=40)
    for i in range(1, fixes + 1):
        repo.commit(f"Fix crash in parse on comment form {i}\n", {"parse.py": _parser(i)}, days=21)


def test_a_function_fixed_four_times_lately_is_fix_prone(make_repo, index_dir):
    repo = make_repo("prone")
    _fixed(repo, 4)
    found = _reviewed(repo, index_dir)
    assert [(s.symbol, s.path) for s in found] == [("parse", "parse.py")]
    assert found[0].confidence >= GATE and "was fixed 4 times in the last 180 days" in found[0].body


def test_three_fixes_are_not_fix_prone(make_repo, index_dir):
    repo = make_repo("three")
    _fixed(repo, 3)
    assert _reviewed(repo, index_dir) == []


def test_a_fix_prone_function_changed_away_from_its_fixes_lines_is_not_flagged(make_repo, index_dir):
    """The fixes guarded the lines at the top of ``parse``; a change four lines further down
    touches nothing they changed."""
    repo = make_repo("far")
    _fixed(repo, 4)
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature")
    text = (repo.root / "parse.py").read_text(encoding="utf-8")
    repo.write("parse.py", text.replace("p.rstrip('.')", "p.rstrip('!')"))
    assert _found(repo, index_dir) == []


def test_a_fragile_function_changed_away_from_its_fixes_lines_is_not_flagged(make_repo, index_dir):
    """Every change of ``parse`` was followed by a fix, and the fixes all edited its top lines;
    a change further down touches nothing they repaired (review10: the burst form asks the
    line blame too)."""
    repo = make_repo("burst-far")
    _history(repo, fixed_after=5)
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature")
    text = (repo.root / "parse.py").read_text(encoding="utf-8")
    repo.write("parse.py", text.replace("p.rstrip('.')", "p.rstrip('!')"))
    assert _found(repo, index_dir) == []


def _pull_request_on_a_moved_mainline(repo, index_dir) -> str:
    """``parse`` fixed four times; a branch from there changes its split line; meanwhile the
    mainline puts 30 lines above ``parse`` and is indexed. Returns the branch point."""
    _fixed(repo, 4)
    branch_point = repo.git("rev-parse", "HEAD").strip()
    helper = "".join(f"HELPER_{i} = {i}\n" for i in range(30))
    text = (repo.root / "parse.py").read_text(encoding="utf-8")
    repo.commit("Add helper constants\n", {"parse.py": helper + "\n\n" + text}, days=1)
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature", branch_point)
    repo.commit("Split on semicolons\n", {"parse.py": text.replace("text.split(',')", "text.split(';')")})
    return branch_point


def test_a_pull_request_reviewed_with_a_later_mainline_index_reads_the_blame_of_its_lines(
        make_repo, index_dir, capsys):
    """The index's line blame is of the mainline's lines: the branch's base line of the split
    sits 32 lines lower there (review13: looked up where it sits, not by its number)."""
    import json

    from whylens.cli import main

    repo = make_repo("moved")
    base = _pull_request_on_a_moved_mainline(repo, index_dir)
    assert main(["pr-comments", "--repo", str(repo.root), "--index-dir", str(index_dir),
                 "--base", base, "--head", "feature", "--format", "json"]) == 0
    found = [s for s in json.loads(capsys.readouterr().out)["suggestions"] if s["kind"] == "fragile"]
    assert [(s["symbol"], s["path"]) for s in found] == [("parse", "parse.py")]
    assert "was fixed 4 times in the last 180 days" in found[0]["body"]


def test_a_base_line_the_indexed_revision_rewrote_reads_the_blame_of_what_replaced_it(
        make_repo, index_dir):
    """The mainline put 30 lines above ``parse`` and rewrote the split line the branch changes:
    the commit that rewrote it is what the branch's change of that line runs into (not the
    commit of whatever line has its number there now)."""
    from whylens.cli.review import indexed_reader
    from whylens.retrieval.review_fragile import near_commits
    from whylens.retrieval.review_hunks import file_view

    repo = make_repo("rewritten")
    _fixed(repo, 4)
    base = repo.git("rev-parse", "HEAD").strip()
    text = (repo.root / "parse.py").read_text(encoding="utf-8")
    helper = "".join(f"HELPER_{i} = {i}\n" for i in range(30))
    repo.commit("Add helper constants\n", {"parse.py": helper + text})
    repo.commit("Split on tabs\n", {"parse.py": helper + text.replace("text.split(',')", "text.split('\\t')")})
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature", base)
    repo.commit("Split on semicolons\n", {"parse.py": text.replace("text.split(',')", "text.split(';')")})
    with IndexStore(index_dir).reader() as reader, open_repository(repo.root) as git:
        head, tabs = git.resolve("feature"), git.resolve("main")
        [view] = [file_view(c, revision_reader(git, head), revision_reader(git, base))
                  for c in diff_changes(git, base, head)]
        mapped = near_commits(reader, view, indexed_reader(git, reader, base))
        by_number = near_commits(reader, view)  # line numbers of the base read at the mainline's
    assert tabs in mapped and tabs not in by_number
    fixes = {sha for sha in mapped if reader_subject(repo, sha).startswith("Fix crash")}
    assert fixes  # the neighbouring lines, moved down 30 there, still name the fix that added them


def reader_subject(repo, sha: str) -> str:
    return repo.git("log", "-1", "--format=%s", sha).strip()
