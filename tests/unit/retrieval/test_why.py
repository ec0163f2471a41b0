"""`why`: a symbol's story from real indexed histories."""

from __future__ import annotations

import pytest

from whylens.errors import InvalidInputError
from whylens.retrieval.why import why

from retrieval.pool_history import POOL_V5

NOW = 1_700_000_000 + 40 * 86_400  # about a month after the fixture's last commit


def test_story_of_the_symbol_at_a_line(pool_repo):
    repo, shas, reader = pool_repo
    story = why(reader, "src/pool.py", line=6, repo_root=repo.root, now=NOW)  # in Pool.put
    assert story.symbol.name == "Pool.put" and story.symbol.kind == "method"
    commits = [e.commit for e in story.history]
    assert commits == [shas["never_block"], shas["revert"], shas["strict"], shas["add"]]
    assert [e.timestamp for e in story.history] == sorted((e.timestamp for e in story.history),
                                                          reverse=True)
    assert story.history[0].subject == "Count connections returned to the pool"
    assert any(u.type == "fact" and "never block" in u.content for u in story.units)
    assert story.summary.startswith("changed 4× by 2 authors, last ")
    assert "ago" in story.summary
    assert story.known


def test_units_grouped_by_type_and_pitfall_count(pool_repo):
    repo, shas, reader = pool_repo
    story = why(reader, "src/pool.py", line=10, repo_root=repo.root, now=NOW)  # in fetch
    assert story.symbol.name == "fetch"
    types = [u.type for u in story.units]
    assert "pattern" in types
    order = {"pattern": 0, "fact": 1, "skill": 2}
    assert types == sorted(types, key=order.get)
    assert "1 pitfall known" in story.summary or "pitfalls known" in story.summary
    assert shas["deadlock"] in [e.commit for e in story.history]


def test_unsaved_buffer_resolves_by_name_not_line(pool_repo):
    repo, shas, reader = pool_repo
    edited = "import os\n\n\n" + POOL_V5  # three lines inserted above; not saved
    story = why(reader, "src/pool.py", line=6 + 3, text=edited, repo_root=repo.root, now=NOW)
    assert story.symbol.name == "Pool.put"
    assert story.history[0].commit == shas["never_block"]


def test_line_outside_any_symbol_falls_back_to_file_history(pool_repo):
    repo, shas, reader = pool_repo
    story = why(reader, "src/pool.py", line=8, repo_root=repo.root, now=NOW)  # blank line
    assert story.symbol is None
    assert [e.kind for e in story.history] == ["file"] * len(story.history)
    assert story.history[0].commit == shas["never_block"]
    readme = why(reader, "README.md", line=1, repo_root=repo.root, now=NOW)
    assert readme.symbol is None and [e.commit for e in readme.history] == [shas["add"]]


def test_named_symbol_and_absolute_path(pool_repo):
    repo, shas, reader = pool_repo
    story = why(reader, str(repo.root / "src" / "pool.py"), symbol="fetch", repo_root=repo.root,
                now=NOW)
    assert story.path == "src/pool.py" and story.symbol.name == "fetch"
    assert story.symbol.start_line == 10


def test_no_history_is_an_honest_answer(pool_repo):
    repo, shas, reader = pool_repo
    repo.write("src/new.py", "def brand_new():\n    return 1\n")
    story = why(reader, "src/new.py", line=2, repo_root=repo.root, now=NOW)
    assert story.symbol.name == "brand_new"
    assert not story.known and story.summary == "no recorded history"
    gone = why(reader, "src/pool.py", symbol="Pool.vanished", repo_root=repo.root, now=NOW)
    assert not gone.known and gone.symbol.name == "Pool.vanished"


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd", "src/../../x.py", ""])
def test_paths_outside_the_repository_are_refused(pool_repo, path):
    repo, _shas, reader = pool_repo
    with pytest.raises(InvalidInputError):
        why(reader, path, line=1, repo_root=repo.root)


@pytest.mark.parametrize("content", [b"\xff\xfe\x00binary\x00" * 100, b"", "def f(:\n  ?? \U0001F600\n"])
def test_binary_empty_and_broken_files_never_crash(pool_repo, content):
    repo, _shas, reader = pool_repo
    repo.write("src/odd.py", content)
    story = why(reader, "src/odd.py", line=1, repo_root=repo.root, now=NOW)
    assert not story.known


def test_bad_line_is_invalid_input(pool_repo):
    repo, _shas, reader = pool_repo
    with pytest.raises(InvalidInputError):
        why(reader, "src/pool.py", line=0, repo_root=repo.root)
