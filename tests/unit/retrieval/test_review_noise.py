"""What the diff-level review leaves out as noise, on real histories with git reading the past:
build manifests' fixes, a fix's import lines, issue pointers as a reason, prose-only re-adds."""

from __future__ import annotations

from whylens.cli.review import change_message, history_patches, revision_reader
from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.review import review

CLIENT = '''\
import json


def load(text):
    data = json.loads(text)
    return data
'''
CLIENT_FIXED = '''\
import json
from decimal import Decimal


def load(text):
    data = json.loads(text, parse_float=Decimal)
    if data is None:
        raise ValueError("empty document")
    return data
'''


def _found(repo, index_dir, kind: str, committed: bool = False) -> list:
    """Review main → the work tree (or, ``committed``, → HEAD with its messages) at gate 0."""
    with IndexStore(index_dir).reader() as reader, open_repository(repo.root) as git:
        base = git.resolve("main")
        head = git.resolve("HEAD") if committed else None
        out = review(
            reader, repo.root, diff_changes(git, base, head),
            lambda path: (repo.root / path).read_text(encoding="utf-8") if (repo.root / path).exists() else None,
            read_base=revision_reader(git, base), patches=history_patches(git),
            message=change_message(git, base, head), gate=0.0)
    return [s for s in out if s.kind == kind]


def _fixed_client(make_repo, index_dir, name: str, reason: str):
    repo = make_repo(name)
    repo.commit("Add the loader\n", {"src/client.py": CLIENT, "setup.py": "from setuptools import setup\n"})
    fix = repo.commit(f"Fix lost precision and empty documents in load\n\n{reason}\n", {"src/client.py": CLIENT_FIXED})
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature")
    return repo, fix


def test_a_rewrite_that_only_moves_a_fixs_import_is_silent_one_that_drops_its_logic_is_not(make_repo, index_dir):
    repo, fix = _fixed_client(make_repo, index_dir, "imports", "Floats lost digits; a null body crashed later.")
    moved = CLIENT_FIXED.replace("from decimal import Decimal\n", "import decimal\nDecimal = decimal.Decimal\n")
    repo.write("src/client.py", moved)
    assert _found(repo, index_dir, "rewrites-fix") == []
    guard = '    if data is None:\n        raise ValueError("empty document")\n'
    repo.write("src/client.py", CLIENT_FIXED.replace(guard, ""))
    assert [s.evidence for s in _found(repo, index_dir, "rewrites-fix")] == [(fix,)]


def test_issue_pointers_are_no_reason(make_repo, tmp_path):
    drop = ('    if data is None:\n        raise ValueError("empty document")\n', "")
    said = {}
    for name, reason in (("pointers", "See acme/loader#86 Closes #156 Closes #145"),
                         ("prose", "Floats lost digits and a null body crashed much later.")):
        where = tmp_path / f"index-{name}"
        repo, _fix = _fixed_client(make_repo, where, name, reason)
        repo.write("src/client.py", CLIENT_FIXED.replace(*drop))
        said[name] = _found(repo, where, "rewrites-fix")[0].confidence
    assert round(said["prose"] - said["pointers"], 3) == 0.1


def test_a_fix_of_a_build_manifest_is_not_guarded(make_repo, index_dir):
    repo = make_repo("manifest")
    setup = "from setuptools import setup\n\nsetup(name='client', packages=['client'])\n"
    fixed = ("from setuptools import setup, find_packages\n\n"
             "setup(name='client', packages=find_packages(exclude=['tests']))\n")
    repo.commit("Add setup.py\n", {"setup.py": setup, "src/client.py": CLIENT})
    repo.commit("Fix setup.py packages after the oauth removal\n", {"setup.py": fixed})
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("setup.py", fixed.replace("find_packages(exclude=['tests'])", "find_namespace_packages(where='src')"))
    assert _found(repo, index_dir, "rewrites-fix") == []


def test_re_adding_only_the_authors_line_of_a_reverted_feature_is_not_the_revert(make_repo, index_dir):
    repo = make_repo("authors")
    authors = "Authors\n=======\n\n- Ada Lovelace\n"
    repo.commit("Add the loader\n", {"src/client.py": CLIENT, "AUTHORS.rst": authors})
    feature = repo.commit("Add precise floats (by Grace)\n", {
        "src/client.py": CLIENT_FIXED, "AUTHORS.rst": authors + "- Grace Hopper (precise floats)\n"})
    revert = repo.commit(f'Revert "Add precise floats (by Grace)"\n\nThis reverts commit {feature}.\n\n'
                         "Decimals broke every caller that adds floats.\n",
                         {"src/client.py": CLIENT, "AUTHORS.rst": authors})
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("AUTHORS.rst", authors + "- Grace Hopper (precise floats)\n")
    assert _found(repo, index_dir, "reintroduces-revert") == []
    repo.write("src/client.py", CLIENT_FIXED)  # the whole revert undone: caught as ever
    assert {s.evidence for s in _found(repo, index_dir, "reintroduces-revert")} == {(feature, revert)}


def test_a_name_added_to_a_fixs_bracketed_import_list_is_silent(make_repo, index_dir):
    repo = make_repo("import-list")
    head = "from .errors import (\n    ParseError,\n)\n\n\n"
    body = "def load(text):\n    if not text:\n        raise ParseError('empty')\n    return text.split(',')\n"
    repo.commit("Add the loader\n", {"src/loader.py": head + body})
    fixed = head.replace("    ParseError,\n", "    ParseError, EmptyError,\n")
    fix = repo.commit("Fix the crash on empty input: raise EmptyError\n",
                      {"src/loader.py": fixed + body.replace("ParseError('empty')", "EmptyError('empty')")})
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature")
    text = (repo.root / "src/loader.py").read_text(encoding="utf-8")
    longer = text.replace("    ParseError, EmptyError,\n", "    ParseError, EmptyError, LoadWarning,\n")
    repo.write("src/loader.py", longer)
    assert _found(repo, index_dir, "rewrites-fix") == []
    repo.write("src/loader.py", text.replace("        raise EmptyError('empty')\n", "        return []\n"))
    assert [s.evidence for s in _found(repo, index_dir, "rewrites-fix")] == [(fix,)]


def _committed(repo, index_dir, kind: str, message: str, text: str) -> list:
    """Commit ``text`` as src/client.py on the branch with ``message``, review main..HEAD."""
    repo.commit(message, {"src/client.py": text})
    return _found(repo, index_dir, kind, committed=True)


def test_emptying_a_file_is_deleting_it(make_repo, index_dir):
    """requests' "remove requests.async" left the module as an empty file: its fixes go with it."""
    repo, _fix = _fixed_client(make_repo, index_dir, "emptied", "Floats lost digits; a null body crashed later.")
    assert _committed(repo, index_dir, "rewrites-fix", "Retire the client\n", "") == []


def test_a_fix_taken_out_by_a_change_that_says_it_removes_that_feature_scores_lower(make_repo, index_dir):
    """express's "remove app.locals.use": the fix of ``app.locals.use`` goes with the feature."""
    guard = '    if data is None:\n        raise ValueError("empty document")\n'
    scores = []
    for name, message in (("kept", "Simplify load\n"), ("removed", "Remove empty documents handling\n")):
        repo, fix = _fixed_client(make_repo, index_dir / name, name,
                                  "Floats lost digits; a null body crashed later.")
        found = _committed(repo, index_dir / name, "rewrites-fix", message, CLIENT_FIXED.replace(guard, ""))
        assert [s.evidence for s in found] == [(fix,)]
        scores.append(found[0].confidence)
    assert round(scores[0] - scores[1], 3) == 0.15
