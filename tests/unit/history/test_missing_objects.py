"""Objects the repository lacks: the walk reads on past them; a partial clone never fetches."""

from __future__ import annotations

import subprocess

import pytest

from whylens import gitcli
from whylens.errors import GitCommandError
from whylens.history import walk as walk_module
from whylens.history.blobs import BlobReader
from whylens.history.missing import Presence, lazy_fetches, names_missing_object
from whylens.history.repo import open_repository
from whylens.history.walk import WalkStats, walk
from whylens.pipeline.blame import tree_blobs

from histories import build_missing_blob_history, build_session_history, promisor_clone


def _changes(commit):
    return {c.path: (c.status, len(c.hunks)) for c in commit.changes}


def test_the_walk_reads_on_past_a_missing_blob(make_repo):
    repo = make_repo()
    shas, _ = build_missing_blob_history(repo)
    stats = WalkStats()
    with open_repository(repo.root) as r:
        commits = list(walk(r, stats=stats))
    assert [c.sha for c in commits] == [shas[k] for k in ("reset", "move", "cap", "add")]
    reset, move, cap, add = commits
    # "move" fails in rename detection, before git prints it: "reset", printed last, was whole
    assert not reset.missing_objects and _changes(reset) == {"src/retry.py": ("M", 1)}
    assert not cap.missing_objects and _changes(cap) == {"src/retry.py": ("M", 1)}
    # the commits git died on: their file lists, no hunks, exact renames only
    assert move.missing_objects and _changes(move) == {
        "assets/table.dat": ("D", 0), "assets/table.csv": ("A", 0), "src/retry.py": ("M", 0)}
    assert add.missing_objects and _changes(add) == {
        "assets/table.dat": ("A", 0), "src/retry.py": ("A", 0)}
    assert move.subject.startswith("Read the lookup table") and add.author == "Ada Lovelace"
    assert (stats.failures, stats.commits_degraded, stats.partial_clone) == (3, 2, False)


def test_after_a_few_failures_the_rest_of_the_walk_reads_no_blob(make_repo, monkeypatch):
    monkeypatch.setattr(walk_module, "MAX_FAILURES", 1)
    repo = make_repo()
    shas, _ = build_missing_blob_history(repo)
    stats = WalkStats()
    with open_repository(repo.root) as r:
        commits = {c.sha: c for c in walk(r, stats=stats)}
    assert list(commits) == [shas[k] for k in ("reset", "move", "cap", "add")]
    assert (stats.reads, stats.failures, stats.commits_degraded) == ("trees", 1, 0)
    # "reset" came before the failure and keeps its hunks; the rest is read without blobs
    # (the anchorer then compares the blobs that are there, and counts the missing ones)
    assert _changes(commits[shas["reset"]]) == {"src/retry.py": ("M", 1)}
    assert _changes(commits[shas["cap"]]) == {"src/retry.py": ("M", 0)}
    assert _changes(commits[shas["move"]]) == {
        "assets/table.dat": ("D", 0), "assets/table.csv": ("A", 0), "src/retry.py": ("M", 0)}


def test_a_missing_tree_leaves_the_commit_its_message(make_repo):
    repo = make_repo()
    first = repo.commit("Add a", {"a.txt": "alpha\n", "sub/b.txt": "beta\n"})
    second = repo.commit("Edit b", {"sub/b.txt": "beta\nmore\n"})
    third = repo.commit("Edit a", {"a.txt": "alpha\ngamma\n"})
    tree = repo.git("rev-parse", f"{second}:sub")
    (repo.root / ".git" / "objects" / tree[:2] / tree[2:]).unlink()
    with open_repository(repo.root) as r:
        commits = {c.sha: c for c in walk(r)}
    assert list(commits) == [third, second, first]
    assert not commits[third].missing_objects  # its diff reads the root trees only
    assert commits[second].missing_objects and commits[second].changes == ()
    assert commits[second].subject == "Edit b"
    assert [c.path for c in commits[first].changes] == ["a.txt", "sub/b.txt"]


def test_a_missing_commit_is_a_clear_error(make_repo):
    repo = make_repo("corrupt")
    repo.commit("Add a", {"a.txt": "alpha\n"})
    middle = repo.commit("Edit a", {"a.txt": "alpha\nbeta\n"})
    repo.commit("Edit a again", {"a.txt": "alpha\nbeta\ngamma\n"})
    (repo.root / ".git" / "objects" / middle[:2] / middle[2:]).unlink()
    with open_repository(repo.root) as r:
        with pytest.raises(GitCommandError) as err:
            list(walk(r))
    assert "`git log` failed" in str(err.value) and "parents" in str(err.value)


def test_only_errors_that_name_an_object_are_read_past():
    assert names_missing_object("fatal: unable to read 32f42e33119c2f6d4b05812e8bf8779f880ced2c")
    assert names_missing_object("fatal: could not fetch 00745da0f48dfd832ab6d94b4e71d6a444e2be3b"
                                " from promisor remote")
    assert not names_missing_object("fatal: Out of memory, malloc failed")
    assert not names_missing_object("fatal: bad revision 'HEAD~3'")


def test_presence_lists_the_objects_present(make_repo):
    repo = make_repo()
    shas, lost = build_missing_blob_history(repo)
    with open_repository(repo.root) as r:
        present = Presence.of(r)
        kept = r.git("rev-parse", f"{shas['cap']}:src/retry.py").strip()
    assert shas["add"] in present and kept in present and lost not in present
    assert "not-a-sha" not in present and len(present) > 10


@pytest.fixture
def partial(make_repo, tmp_path, monkeypatch):
    """A blobless clone of a four-commit history, a git trace of every process, and a user
    configuration that would let git fetch over file:// (protocol.file.allow=always)."""
    source = make_repo("source")
    shas = build_session_history(source)
    clone, bare = promisor_clone(source.root, tmp_path)
    user_config = tmp_path / "user.gitconfig"
    user_config.write_text('[protocol "file"]\n\tallow = always\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(user_config))
    trace = tmp_path / "git-trace.txt"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    packs = sorted(p.name for p in (clone / ".git" / "objects" / "pack").iterdir())
    return clone, shas, trace, packs


def _fetched(clone, trace, packs) -> list[str]:
    """Signs of a fetch: git starting one (the trace), or objects that came (new packs)."""
    now = sorted(p.name for p in (clone / ".git" / "objects" / "pack").iterdir())
    started = [line for line in trace.read_text().splitlines() if "fetch" in line] \
        if trace.exists() else []
    return started + ([f"packs {packs} -> {now}"] if now != packs else [])


def test_a_partial_clone_is_read_without_fetching(partial):
    clone, shas, trace, packs = partial
    stats = WalkStats()
    with open_repository(clone) as r:
        assert lazy_fetches(r)
        commits = list(walk(r, stats=stats))
        old = r.git("rev-parse", f"{shas['add']}:src/session.py").strip()
        head = r.git("rev-parse", f"{shas['timeout']}:src/session.py").strip()
        with BlobReader(r) as blobs:
            assert blobs.read(old) is None and blobs.size(old) is None  # missing: not fetched
            assert blobs.read(head) is not None  # the checked-out version is there
        assert r.read_file(shas["add"], "src/session.py") is None
        assert set(tree_blobs(r, shas["add"])) == {"README.md"}  # the blobs HEAD shares
    assert [c.sha for c in commits] == [shas[k] for k in ("timeout", "format", "deadlock", "add")]
    assert all(c.changes and not c.missing_objects for c in commits)
    assert stats.partial_clone and stats.failures == 0 and stats.reads == "trees"
    assert _fetched(clone, trace, packs) == []


def test_a_fetch_an_older_git_starts_cannot_connect(partial):
    """git before 2.39.4 (and 2.40-2.44 before their security releases) ignores
    GIT_NO_LAZY_FETCH and starts a fetch for a missing object: what our environment gives it
    must keep that fetch from connecting, even with the user's protocol.file.allow=always."""
    clone, shas, trace, packs = partial
    with open_repository(clone) as r:
        old = r.git("rev-parse", f"{shas['add']}:src/session.py").strip()

    def cat_file(env_changes: dict[str, str | None]) -> subprocess.CompletedProcess:
        env = gitcli.environment({"GIT_DIR": str(clone / ".git")})
        env.pop("GIT_NO_LAZY_FETCH")  # what an older git makes of our environment
        for key, value in env_changes.items():
            env.pop(key) if value is None else env.update({key: value})
        return subprocess.run(gitcli.command("git", "cat-file", "-p", old), env=env,
                              capture_output=True, check=False)

    blocked = cat_file({})
    assert blocked.returncode != 0 and b"not allowed" in blocked.stderr
    started = _fetched(clone, trace, packs)
    assert started and all("fetch origin" in line for line in started)  # started, got nothing
    # the control: without GIT_ALLOW_PROTOCOL, protocol.allow=never alone loses to the user's
    # protocol.file.allow=always, and the blob is fetched
    fetched = cat_file({"GIT_ALLOW_PROTOCOL": None})
    assert fetched.returncode == 0 and b"class Session" in fetched.stdout
    assert any(line.startswith("packs") for line in _fetched(clone, trace, packs))


def test_which_gits_die_instead_of_fetching():
    from whylens.history.missing import honours_no_lazy_fetch

    assert honours_no_lazy_fetch((2, 39, 5)) and honours_no_lazy_fetch((2, 47, 0))
    assert honours_no_lazy_fetch((2, 45, 1)) and honours_no_lazy_fetch((2, 43, 4))
    assert not honours_no_lazy_fetch((2, 39, 3)) and not honours_no_lazy_fetch((2, 45, 0))
    assert not honours_no_lazy_fetch((2, 34, 1)) and not honours_no_lazy_fetch((0,))
