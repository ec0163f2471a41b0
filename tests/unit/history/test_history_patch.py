"""A unified diff as text → the same changes git computes, whether applied yet or not."""

from __future__ import annotations

import pytest

from whylens.errors import InvalidInputError
from whylens.history.diff import diff_changes
from whylens.history.patch import base_text, head_text, parse_patch
from whylens.history.repo import open_repository

BEFORE = "".join(f"line {n}\n" for n in range(1, 41))
AFTER = (BEFORE.replace("line 3\n", "line three\n")
         .replace("line 20\n", "line 20\nline 20b\nline 20c\n")
         .replace("line 33\nline 34\n", "")
         + "line 41\n")


@pytest.fixture
def edited(make_repo):
    """A repository whose working tree changes a.txt in four places and adds b.txt."""
    repo = make_repo()
    repo.commit("Add a", {"a.txt": BEFORE, "keep.txt": "same\n"})
    repo.write("a.txt", AFTER)
    repo.write("b.txt", "new one\nnew two\n")
    repo.git("add", "-N", "b.txt")  # so `git diff` shows it; the index entry is intent-only
    return repo


def _by_path(changes):
    return {c.path: c for c in changes}


def test_applied_patch_matches_git_zero_context_hunks(edited):
    patch = edited.git("diff")  # three lines of context, as people paste them
    with open_repository(edited.root) as repo:
        expected = _by_path(diff_changes(repo, "HEAD"))
    for file_patch in parse_patch(patch + "\n"):
        current = (edited.root / file_patch.change.path).read_text()
        text, change = head_text(file_patch, current)
        assert text == current  # the working tree already holds the change
        assert change.hunks == expected[change.path].hunks, change.path
        assert change.status == expected[change.path].status


def test_unapplied_patch_is_applied_to_the_working_tree(edited):
    patch = edited.git("diff")
    with open_repository(edited.root) as repo:
        expected = _by_path(diff_changes(repo, "HEAD"))
    edited.git("checkout", "--", "a.txt")  # back to BEFORE: the patch is not applied now
    (edited.root / "b.txt").unlink()
    results = {}
    for file_patch in parse_patch(patch):
        path = edited.root / file_patch.change.path
        results[file_patch.change.path] = head_text(
            file_patch, path.read_text() if path.exists() else None)
    assert results["a.txt"][0] == AFTER and results["b.txt"][0] == "new one\nnew two\n"
    assert results["a.txt"][1].hunks == expected["a.txt"].hunks
    assert results["b.txt"][1].hunks == expected["b.txt"].hunks


def test_the_base_is_the_text_before_the_patch_applied_or_not(edited):
    patch = edited.git("diff")
    for file_patch in parse_patch(patch):
        path = edited.root / file_patch.change.path
        current = path.read_text() if path.exists() else None
        if file_patch.change.path == "a.txt":
            assert base_text(file_patch, current) == BEFORE  # applied: taken back out
        else:
            assert base_text(file_patch, current) is None  # an added file has no base
    edited.git("checkout", "--", "a.txt")
    (a_patch,) = [p for p in parse_patch(patch) if p.change.path == "a.txt"]
    assert base_text(a_patch, BEFORE) == BEFORE  # not applied yet: the working tree
    assert base_text(a_patch, "something else entirely\n") is None  # never guessed
    deletion = parse_patch(edited.git("diff", "HEAD", "--", "keep.txt") or
                           "--- a/keep.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-same\n")[0]
    assert base_text(deletion, None) == "same\n"  # a deletion already made: its removed lines


def test_hunks_that_moved_are_found_nearby(edited):
    patch = edited.git("diff", "--", "a.txt")
    edited.git("checkout", "--", "a.txt")
    shifted = "header 1\nheader 2\n" + BEFORE
    (file_patch,) = parse_patch(patch)
    text, change = head_text(file_patch, shifted)
    assert text == "header 1\nheader 2\n" + AFTER
    assert change.hunks[0].new_start == 5  # "line three" is line 3 + the two new lines


def test_a_patch_for_other_content_is_not_guessed(edited):
    (file_patch,) = parse_patch(edited.git("diff", "--", "a.txt"))
    text, change = head_text(file_patch, "something else entirely\n")
    assert text is None and change.path == "a.txt"


def test_plain_diff_u_renames_deletions_and_binaries():
    patch = (
        "--- old/x.py\t2024-01-01\n+++ new/x.py\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n"
        "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n"
        "@@ -1,2 +0,0 @@\n-x\n-y\n"
        "diff --git a/old.py b/new.py\nsimilarity index 100%\nrename from old.py\nrename to new.py\n"
        "diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n"
        "diff --git a/t.txt b/t.txt\n--- a/t.txt\n+++ b/t.txt\n@@ -1,2 +1,2 @@\n-- not a header\n"
        "+--- still a body line\n \\ No newline at end of file\n"
    )
    files = {p.change.path: p.change for p in parse_patch(patch)}
    assert files["new/x.py"].old_path == "old/x.py" and files["new/x.py"].status == "R"
    assert files["gone.py"].status == "D" and files["new.py"].old_path == "old.py"
    assert files["img.png"].binary and len(files["t.txt"].hunks) == 1


@pytest.mark.parametrize("bad", [
    "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n",  # cut in the middle of a hunk
    "--- a/x\n+++ b/x\n@@ nonsense @@\n",
    "@@ -1 +1 @@\n-a\n+b\n",  # a hunk before any file header
    "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n?b\n",
])
def test_malformed_patches_are_refused(bad):
    with pytest.raises(InvalidInputError):
        parse_patch(bad)
