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
