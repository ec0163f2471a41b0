"""`why`: a symbol's story from real indexed histories."""

from __future__ import annotations

import pytest

from whylens.errors import InvalidInputError, UnknownTargetError
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
    # a known symbol with no knowledge is an honest answer; an unknown one is an error
    quiet = why(reader, "src/new.py", symbol="brand_new", repo_root=repo.root, now=NOW)
    assert not quiet.known and quiet.summary == "no recorded history"


@pytest.mark.parametrize("name,suggested", [
    ("Pool.gte", "Pool.get"), ("Pol.put", "Pool.put"), ("fetc", "fetch"), ("Pool.vanished", None),
])
def test_unknown_symbol_is_bad_input_with_close_names(pool_repo, name, suggested):
    repo, _shas, reader = pool_repo
    with pytest.raises(UnknownTargetError) as caught:
        why(reader, "src/pool.py", symbol=name, repo_root=repo.root, now=NOW)
    assert caught.value.exit_code == 2
    assert f"no symbol {name!r} in src/pool.py" in str(caught.value)
    assert len(caught.value.suggestions) <= 3
    if suggested:
        assert suggested in caught.value.suggestions


def test_missing_file_is_bad_input_with_close_paths(pool_repo):
    repo, _shas, reader = pool_repo
    with pytest.raises(UnknownTargetError) as caught:
        why(reader, "src/pol.py", line=3, repo_root=repo.root, now=NOW)
    assert "src/pool.py" in caught.value.suggestions and caught.value.exit_code == 2


def test_deleted_symbol_and_file_keep_their_story(pool_repo):
    repo, shas, reader = pool_repo
    repo.write("src/pool.py", "class Pool:\n    def get(self):\n        return 1\n")
    gone = why(reader, "src/pool.py", symbol="fetch", repo_root=repo.root, now=NOW)
    assert gone.known and gone.symbol.name == "fetch" and not gone.symbol.start_line
    (repo.root / "src" / "pool.py").unlink()
    whole = why(reader, "src/pool.py", repo_root=repo.root, now=NOW)
    assert whole.known and whole.symbol is None


def test_a_line_past_the_end_is_bad_input(pool_repo):
    repo, _shas, reader = pool_repo
    with pytest.raises(InvalidInputError, match="past the end of src/pool.py"):
        why(reader, "src/pool.py", line=500, repo_root=repo.root, now=NOW)


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


STRICT = POOL_V5.replace("        self.items.append(item)  # never blocks\n",
                         "        if item.closed:\n            raise ValueError('closed')\n"
                         "        self.items.append(item)  # never blocks\n")


def test_knowledge_from_a_reverted_change_is_history_not_current(make_repo, tmp_path):
    from whylens.index.store import IndexStore
    from whylens.pipeline import run_index
    from whylens.render.cards import hover_card
    from whylens.render.rationale import rationale

    repo = make_repo("reverted")
    repo.commit("Add the pool", {"src/pool.py": POOL_V5})
    strict = repo.commit("Make put strict\n\nPool.put must reject closed connections, because a "
                         "closed connection handed out again makes every later request fail.",
                         {"src/pool.py": STRICT})
    undo = repo.commit(f"Go back to the lenient pool\n\nrevert {strict[:8]}: raising in put "
                       "broke the shutdown path, which puts closed connections back on purpose.",
                       {"src/pool.py": POOL_V5})
    run_index(repo.root, tmp_path / "index")
    with IndexStore(tmp_path / "index").reader() as reader:
        story = why(reader, "src/pool.py", symbol="Pool.put", repo_root=repo.root, now=NOW)
    assert not any(u.commit == strict for u in story.units)  # never shown as current
    undone = [r for r in story.reversals if getattr(r.item, "commit", None) == strict
              or strict in getattr(r.item, "fixing_commits", ())]
    assert undone and all(r.how == "reverted" and r.by == undo for r in undone)
    text = rationale(story)
    assert "### Reverted or superseded" in text and f"reverted in `{undo[:7]}`" in text
    current = text.split("### Reverted")[0]
    assert "must reject closed connections" not in current
    card = hover_card(story) or ""
    assert "**Constraint:** Pool.put must reject" not in card


def test_undone_housekeeping_is_neither_current_nor_history(make_repo, tmp_path):
    from whylens.index.store import IndexStore
    from whylens.pipeline import run_index
    from whylens.render.rationale import rationale

    documented = POOL_V5.replace("    def put(self, item):\n", "    def put(self, item):\n"
                                 '        """Put an item back (timeout=None: never blocks)."""\n')
    repo = make_repo("reverted-docs")
    repo.commit("Add the pool", {"src/pool.py": POOL_V5})
    docs = repo.commit("Document the default timeout of put\n\nSpecified the default argument for "
                       "params that have a default in the docstring so that the default is easier "
                       "to see from the code.", {"src/pool.py": documented})
    repo.commit(f"Revert the docstring change\n\nThis reverts commit {docs}.",
                {"src/pool.py": POOL_V5})
    run_index(repo.root, tmp_path / "index")
    with IndexStore(tmp_path / "index").reader() as reader:
        story = why(reader, "src/pool.py", symbol="Pool.put", repo_root=repo.root, now=NOW)
    assert not any(u.commit == docs for u in story.units)
    assert not any(getattr(r.item, "commit", None) == docs
                   or docs in getattr(r.item, "fixing_commits", ()) for r in story.reversals)
    assert "### Reverted" not in rationale(story)  # the history table still lists both


def test_what_a_change_did_is_its_history_line_not_a_constraint(make_repo, tmp_path):
    from whylens.index.store import IndexStore
    from whylens.pipeline import run_index
    from whylens.render.rationale import rationale

    v1 = "def fetch(pool, name):\n    return pool.get(name)\n"
    v2 = ("def fetch(pool, name, timeout=None):\n"
          "    return pool.get(name, timeout=timeout)\n")
    repo = make_repo("told")
    repo.commit("Add the pool", {"src/pool.py": v1})
    told = repo.commit("Let fetch take a timeout (#7)\n\nEach name passed to fetch can now be a "
                       "tuple of a host and a port number.", {"src/pool.py": v2})
    run_index(repo.root, tmp_path / "index")
    with IndexStore(tmp_path / "index").reader() as reader:
        story = why(reader, "src/pool.py", symbol="fetch", repo_root=repo.root, now=NOW)
    assert [u.commit for u in story.notes] == [told] and not story.units
    text = rationale(story)
    assert "### Constraints" not in text
    row = next(line for line in text.split("### History")[1].splitlines()
               if "Let fetch take a timeout" in line)
    assert "— Each name passed to fetch can now be a tuple" in row
