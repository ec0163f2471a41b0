"""``rewrites-fix`` stays silent when the change keeps every token the fix added (round 33,
``review_survival``), on a real history with git reading the past."""

from __future__ import annotations

from whylens.cli.review import change_message, history_patches, revision_reader
from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.review import review

CLIENT = '''\
import json


def load(text, strict=False):
    data = json.loads(text)
    return data
'''
GUARD = '''\
    if data is None or not isinstance(data, dict):
        raise ValueError("empty document: %r" % text[:40])
'''
CLIENT_FIXED = CLIENT.replace("    return data\n", GUARD + "    return data\n")


def _rewrites(repo, index_dir) -> list:
    """Review main → the work tree at gate 0: the ``rewrites-fix`` suggestions."""
    with IndexStore(index_dir).reader() as reader, open_repository(repo.root) as git:
        base = git.resolve("main")
        out = review(
            reader, repo.root, diff_changes(git, base, None),
            lambda path: (repo.root / path).read_text(encoding="utf-8") if (repo.root / path).exists() else None,
            read_base=revision_reader(git, base), patches=history_patches(git),
            message=change_message(git, base, None), gate=0.0)
    return [s for s in out if s.kind == "rewrites-fix"]


def _fixed(make_repo, index_dir):
    repo = make_repo("survival")
    repo.commit("Add the loader\n", {"src/client.py": CLIENT})
    fix = repo.commit("Fix crash on empty documents in load\n\nA null body crashed much later, in the caller.\n",
                      {"src/client.py": CLIENT_FIXED})
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature")
    return repo, fix


def test_an_edit_that_keeps_the_fixs_tokens_is_silent(make_repo, index_dir):
    repo, _fix = _fixed(make_repo, index_dir)
    # the guard re-wrapped over three lines, its message built first, and a line added beside it
    kept = CLIENT.replace("    return data\n", '''\
    message = "empty document: %r" % text[:40]
    if (data is None
            or not isinstance(data, dict)):
        raise ValueError(message)
    log_loaded(strict)
    return data
''')
    repo.write("src/client.py", kept)
    assert _rewrites(repo, index_dir) == []


def test_an_edit_that_drops_the_fixs_tokens_warns_and_names_them(make_repo, index_dir):
    repo, fix = _fixed(make_repo, index_dir)
    dropped = CLIENT.replace("    return data\n", '''\
    if data is None:
        raise ValueError("empty")
    return data
''')
    repo.write("src/client.py", dropped)
    found = _rewrites(repo, index_dir)
    assert [s.evidence for s in found] == [(fix,)]
    assert "`isinstance`" in found[0].body and "`dict`" in found[0].body and "gone" in found[0].body


def test_the_gone_tokens_are_code_spans_whatever_they_hold():
    """A token of the history (a template literal's backtick, a pipe) cannot open a fence or a
    table in the comment."""
    from whylens.retrieval.review_survival import Survival, gone_text

    text = gone_text(Survival(kept=0, total=3, gone=("`", "verify", "a|b")))
    assert text == "`` ` ``, `verify`, `a|b`"
