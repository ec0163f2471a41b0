"""The changelog entry a commit adds is the developer's own explanation: its commit document
holds it (searched, and quotable as the snippet), while the edit of an old entry, a
release-sized addition and a non-UTF-8 changelog add nothing (and break nothing)."""

from __future__ import annotations

import pytest

from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.search import search

TITLE = """Changes
=======

"""
OLD = """Version 2.1.0
-------------

-   Add the ``json`` provider. :issue:`4400`
"""
ENTRY = """Version 2.2.0
-------------

Unreleased

-   ``before_first_request`` is deprecated. Run setup code when creating
    the application instead. :issue:`4605`

"""


def build(repo, index_dir) -> dict[str, str]:
    """The history, indexed in ``index_dir``; returns its commits by role."""
    shas = {}
    shas["start"] = repo.commit("Start the changelog", {
        "CHANGES.rst": TITLE + OLD, "src/app.py": "def before_first_request(f):\n    return f\n"})
    shas["entry"] = repo.commit("deprecate before_first_request", {
        "CHANGES.rst": TITLE + ENTRY + OLD,
        "src/app.py": "import warnings\n\n\ndef before_first_request(f):\n"
                      "    warnings.warn('deprecated')\n    return f\n"})
    shas["edit"] = repo.commit("reword an old entry", {
        "CHANGES.rst": (TITLE + ENTRY + OLD).replace("Add the ``json`` provider.",
                                             "Add the pluggable marshalling provider."),
        "src/app.py": "import warnings\n\n\ndef before_first_request(func):\n"
                      "    warnings.warn('deprecated')\n    return func\n"})
    release = "".join(f"-   Tolerate zeppelin payload number {i}.\n" for i in range(25))
    shas["release"] = repo.commit("merge the maintenance branch", {
        "docs/changelog.md": release, "src/app.py": "import warnings\n\n\n"
        "def before_first_request(func):\n    warnings.warn('deprecated', stacklevel=2)\n"
        "    return func\n"})
    shas["latin"] = repo.commit("note the encoding quirk", {
        "NEWS": "* Caf\xe9 headers are now decoded as latin-1 quirkily.\n".encode("latin-1"),
        "src/codec.py": "def decode(b):\n    return b.decode('latin-1')\n"})
    run_index(repo.root, index_dir)
    return shas


@pytest.fixture
def indexed(make_repo, index_dir):
    return build(make_repo(), index_dir)


def test_the_entry_a_commit_adds_is_searched_and_shown(indexed, index_dir):
    with IndexStore(index_dir).reader() as reader:
        hits = search(reader, "run setup code when creating the application", k=3, gate=0.0).hits
        assert hits and hits[0].commit == indexed["entry"]
        assert "Run setup code when creating the application instead." in hits[0].snippet
        (prose,) = reader._db.execute("SELECT prose FROM commit_docs WHERE sha = ?",
                                      (indexed["entry"],)).fetchone()
        # rst role and code spans as words, wrapped lines joined, headings out
        assert prose.split("\n") == [
            "before_first_request is deprecated.",
            "Run setup code when creating the application instead. #4605"]


def test_an_edited_entry_a_release_and_undecodable_text_add_nothing_of_theirs(indexed,
                                                                             index_dir):
    with IndexStore(index_dir).reader() as reader:
        prose = dict(reader._db.execute("SELECT sha, prose FROM commit_docs").fetchall())
        assert prose[indexed["edit"]] == ""  # the edit of an old entry: not this commit's
        assert prose[indexed["release"]] == ""  # 25 added lines: a release, not an entry
        assert "zeppelin" not in " ".join(prose.values())
        assert "pluggable" not in " ".join(prose.values())
        assert prose[indexed["start"]] == "Add the json provider. #4400"  # a new file is added
        assert "headers are now decoded as latin-1 quirkily" in prose[indexed["latin"]]


def test_an_rst_role_that_lost_its_opening_backquote_is_cleaned_too():
    from whylens.index.changelog import entry
    from whylens.models import FileChange

    patch = (b"@@ -6,0 +7,2 @@ Unreleased\n"
             b"+-   ``flask --help`` loads the app first so all commands\n"
             b"+    are shown. :issue:5673` See :func:flask.run, at 10:30:45.\n")
    text = entry([FileChange(path="CHANGES.rst", status="M", patch=patch)])
    assert text == ("flask --help loads the app first so all commands are shown. #5673 "
                    "See flask.run, at 10:30:45.")
