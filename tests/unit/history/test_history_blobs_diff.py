"""BlobReader over one cat-file process; diff_changes against revisions and the work tree."""

from __future__ import annotations

import os
import threading

import pytest

from whylens.errors import InvalidInputError
from whylens.history.blobs import BlobReader
from whylens.history.diff import default_branch, diff_changes, merge_base
from whylens.history.repo import open_repository
from whylens.history.walk import walk
from whylens.models import FileChange, Hunk


@pytest.fixture
def small(make_repo):
    repo = make_repo("small")
    repo.commit("Add files", {"a.py": "one\ntwo\nthree\n", "img.bin": b"\x00\x01\x02" * 10})
    repo.commit("Edit a", {"a.py": "one\n2\nthree\nfour\n"})
    return repo


def test_blob_reader_reads_blobs_and_none_for_missing(small):
    with open_repository(small.root) as repo:
        commits = list(walk(repo))
        new_a = commits[0].changes[0].new_blob
        old_a = commits[0].changes[0].old_blob
        binary = next(c.new_blob for c in commits[1].changes if c.path == "img.bin")
        with BlobReader(repo) as blobs:
            assert blobs.read(new_a) == b"one\n2\nthree\nfour\n"
            assert blobs.read(old_a) == b"one\ntwo\nthree\n"
            assert blobs.read(binary) == b"\x00\x01\x02" * 10
            assert blobs.size(new_a) == len(b"one\n2\nthree\nfour\n")
            assert blobs.read("0" * 40) is None
            assert blobs.read("deadbeef" * 5) is None
            assert blobs.size("deadbeef" * 5) is None
            assert blobs.read(None) is None and blobs.read("") is None
            assert blobs.read("x\ny") is None
            assert blobs.read(commits[0].sha) is None  # a commit, not a blob
            assert blobs.read(new_a, max_size=4) is None
            assert blobs.read(new_a, max_size=100) == b"one\n2\nthree\nfour\n"
            for _ in range(200):  # one process serves many reads, in order
                assert blobs.read(old_a) == b"one\ntwo\nthree\n"
                assert blobs.read(new_a) == b"one\n2\nthree\nfour\n"


def test_blob_reader_keeps_the_blobs_it_read_last(small):
    """Kept blobs are answered without asking cat-file again (here: after it is gone); blobs
    over a quarter of the budget are not kept, and the oldest leave first."""
    with open_repository(small.root) as repo:
        commits = list(walk(repo))
        new_a, old_a = commits[0].changes[0].new_blob, commits[0].changes[0].old_blob
        binary = next(c.new_blob for c in commits[1].changes if c.path == "img.bin")
        with BlobReader(repo, cache_bytes=80) as blobs:
            assert blobs.read(old_a) == b"one\ntwo\nthree\n"  # 14 bytes: kept
            assert blobs.read(binary) == b"\x00\x01\x02" * 10  # 30 bytes: over 80 / 4
            assert blobs.read(new_a) == b"one\n2\nthree\nfour\n"  # 18 bytes: kept
            blobs.close()  # no cat-file any more: what is kept is answered all the same
            assert blobs.read(old_a) == b"one\ntwo\nthree\n"
            assert blobs.read(new_a, max_size=4) is None
            assert blobs.read(new_a) == b"one\n2\nthree\nfour\n"
            assert blobs.read(binary) == b"\x00\x01\x02" * 10  # read again (a new cat-file)
        with BlobReader(repo, cache_bytes=100) as blobs:
            for _ in range(6):  # 18 + 14 bytes each time: the budget keeps the last ones
                blobs.read(new_a)
                blobs.read(old_a)
            assert blobs._kept_bytes <= 100 and list(blobs._kept) == [new_a, old_a]


def test_blob_reader_in_bare_clone(small, clone_repo):
    bare = clone_repo(small.root, "small.git", "--bare")
    with open_repository(bare) as repo, BlobReader(repo) as blobs:
        head = next(walk(repo))
        assert blobs.read(head.changes[0].new_blob) == b"one\n2\nthree\nfour\n"


def test_diff_between_revisions(small):
    with open_repository(small.root) as repo:
        changes = diff_changes(repo, small.shas[0], small.shas[1])
    assert [(c.path, c.status, c.hunks) for c in changes] == [
        ("a.py", "M", (Hunk(2, 1, 2, 1), Hunk(3, 0, 4, 1))),
    ]


def test_diff_against_working_tree_with_unsaved_edits(small, snapshot_of):
    (small.root / "a.py").write_text("zero\none\n2\nthree\nfour\n")
    (small.root / "new.py").write_text("fresh\nfile\n")
    (small.root / "blob.dat").write_bytes(b"\x00binary")
    (small.root / ".gitignore").write_text("*.log\n")
    (small.root / "skip.log").write_text("ignored\n")
    os.utime(small.root / "img.bin", ns=(1, 1))  # stat-dirty but unchanged
    before = snapshot_of(small.root)
    with open_repository(small.root) as repo:
        changes = diff_changes(repo, "HEAD")
        since_first = diff_changes(repo, small.shas[0])
    assert snapshot_of(small.root) == before  # the index was not refreshed on disk
    by = {c.path: c for c in changes}
    assert set(by) == {"a.py", "new.py", "blob.dat", ".gitignore"}
    assert by["a.py"].status == "M" and by["a.py"].hunks == (Hunk(0, 0, 1, 1),)
    assert by["a.py"].new_blob is None  # work-tree content has no blob yet
    assert by["new.py"] == FileChange(path="new.py", status="A", hunks=(Hunk(0, 0, 1, 2),))
    assert by["blob.dat"].binary and by["blob.dat"].hunks == ()
    a_since_first = next(c for c in since_first if c.path == "a.py")
    assert a_since_first.hunks == (Hunk(0, 0, 1, 1), Hunk(2, 1, 3, 1), Hunk(3, 0, 5, 1))


def test_untracked_symlinks_are_never_followed(small, tmp_path):
    """A symlink to a FIFO would block the line count forever; one out of the repository would
    be read there. Both count as binary, unread."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    outside = tmp_path / "outside.py"
    outside.write_text("secret\n")
    (small.root / "to_fifo").symlink_to(fifo)
    (small.root / "to_outside.py").symlink_to(outside)
    found: list = []

    def run():
        with open_repository(small.root) as repo:
            found.extend(diff_changes(repo, "HEAD"))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "diff_changes blocked on a symlink to a FIFO"
    by = {c.path: c for c in found}
    assert by["to_fifo"].binary and by["to_outside.py"].binary
    assert by["to_outside.py"].hunks == ()


def test_diff_working_tree_of_bare_repo_is_bad_input(small, clone_repo):
    with open_repository(clone_repo(small.root, "b.git", "--bare")) as repo:
        with pytest.raises(InvalidInputError):
            diff_changes(repo, "HEAD~1")
        assert len(diff_changes(repo, "HEAD~1", "HEAD")) == 1


def test_merge_base_and_default_branch(small, make_repo, clone_repo):
    small.git("checkout", "-q", "-b", "topic")
    topic = small.commit("Topic", {"t.py": "t\n"})
    small.git("checkout", "-q", "main")
    main = small.commit("Main", {"m.py": "m\n"})
    with open_repository(small.root) as repo:
        assert merge_base(repo, topic, main) == small.shas[1]
        assert default_branch(repo) == "main"
    with open_repository(clone_repo(small.root, "clone")) as repo:
        assert default_branch(repo) == "origin/main"
    legacy = make_repo("legacy")
    legacy.git("checkout", "-q", "-b", "master")
    legacy.commit("Init", {"x": "x\n"})
    with open_repository(legacy.root) as repo:
        assert default_branch(repo) == "master"
    orphan = make_repo("orphan")
    orphan.git("checkout", "-q", "-b", "trunk")
    orphan.commit("Init", {"x": "x\n"})
    with open_repository(orphan.root) as repo:
        assert default_branch(repo) is None
        assert merge_base(repo, "HEAD", "HEAD") == orphan.shas[0]


def test_merge_files_starts_git_again_and_answers_the_same(make_repo, monkeypatch):
    """git's diff-tree keeps every object it parsed: after RESTART_AFTER merges a new one
    answers, the same way."""
    from whylens.history import merges as merges_module

    repo = make_repo("merges")
    repo.commit("base", {"m.py": "base\n"})
    who = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}
    for n in range(5):
        repo.git("checkout", "-q", "-b", f"topic{n}")
        repo.commit(f"topic {n}", {f"t{n}.py": f"topic {n}\n"})
        repo.git("checkout", "-q", "main")
        repo.commit(f"main {n}", {"m.py": f"main {n}\n"})
        repo.git("merge", "-q", "--no-ff", "-m", f"Merge topic{n}", f"topic{n}", env=who)
    with open_repository(repo.root) as opened:
        found = [c for c in walk(opened) if len(c.parents) > 1]
        assert len(found) == 5
        with merges_module.MergeFiles(opened) as once:
            expected = [once.changed(c.sha, c.parents) for c in found]
        monkeypatch.setattr(merges_module, "RESTART_AFTER", 2)
        pids = set()
        with merges_module.MergeFiles(opened) as restarting:
            answers = []
            for c in found:
                answers.append(restarting.changed(c.sha, c.parents))
                pids.add(restarting._proc.proc.pid)
    assert answers == expected and all(answer[1] for answer in answers)
    assert len(pids) == 3  # 5 merges, a new process every 2
