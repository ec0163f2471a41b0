"""A known pitfall whose fix a standing revert undid says so: "fixed in X, then reverted in Y:
not fixed in the code today" (explain-error, diagnostics, MCP share ``pitfall_message``), and a
commit's pitfall is told by its words, not by a line of issue references."""

from __future__ import annotations

from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.render.diagnostics import pitfall_message
from whylens.retrieval.pitfalls import explain_error

BEFORE = "def load_config(data):\n    return data['name']\n"
FIXED = "def load_config(data):\n    if not data:\n        return None\n    return data['name']\n"
FIX = ("Fix KeyError in load_config for an empty config file\n\ncloses #12\n\nAn empty config file "
       "made load_config raise KeyError: 'name', because it indexed the parsed dict directly.")
TRACE = '''Traceback (most recent call last):
  File "/home/dev/app/config.py", line 2, in load_config
    return data['name']
KeyError: 'name'
'''


def build(repo, revert: bool) -> tuple[str, str | None]:
    repo.commit("Add load_config", {"config.py": BEFORE})
    fix = repo.commit(FIX, {"config.py": FIXED})
    undo = repo.commit(f'Revert "Fix KeyError in load_config for an empty config file"\n\nThis '
                       f"reverts commit {fix}.", {"config.py": BEFORE}) if revert else None
    return fix, undo


def messages(repo, index) -> list[str]:
    run_index(repo.root, index)
    with IndexStore(index).reader() as reader:
        return [pitfall_message(p) for p in explain_error(reader, TRACE)]


def test_the_pitfall_of_a_reverted_fix_says_it_was_reverted(make_repo, tmp_path):
    repo = make_repo("reverted-fix")
    fix, undo = build(repo, revert=True)
    told = [m for m in messages(repo, tmp_path / "index") if fix[:7] in m]
    assert told and all(f"then reverted in {undo[:7]}: not fixed in the code today" in m
                        for m in told)
    assert not any("fixed before in " + fix[:7] in m for m in told)


def test_a_standing_fix_is_fixed_before_and_named_by_its_words(make_repo, tmp_path):
    repo = make_repo("standing-fix")
    fix, _ = build(repo, revert=False)
    told = [m for m in messages(repo, tmp_path / "index") if fix[:7] in m]
    assert told and all("fixed before in" in m and "reverted" not in m for m in told)


def test_a_commit_told_only_by_issue_references_is_named_by_its_subject(make_repo, tmp_path):
    """A commit document whose prose is "closes #12" is called by its subject."""
    from whylens.index.commitdocs import doc_id
    from whylens.models import Pitfall

    repo = make_repo("references")
    repo.commit("Add load_config", {"config.py": BEFORE})
    fix = repo.commit("Fix KeyError in load_config for an empty config file\n\ncloses #12",
                      {"config.py": FIXED})
    run_index(repo.root, tmp_path / "index")
    with IndexStore(tmp_path / "index").reader() as reader:
        doc = reader.load_items([doc_id(fix)])[doc_id(fix)]
    assert doc.content == "closes #12"  # what the message was built from before
    assert pitfall_message(Pitfall(item=doc, score=1.0, reason="")) == (
        f"Known pitfall: Fix KeyError in load_config for an empty config file — fixed before in "
        f"{fix[:7]}")
