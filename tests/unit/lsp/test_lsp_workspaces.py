"""Repositories of workspace folders, index folders, and the HEAD fingerprint."""

from __future__ import annotations


from whylens.locate import RepoLocation, default_index_dir
from whylens.lsp.workspaces import RepoWorkspace, Workspaces, head_signature, index_dir_for


def test_head_signature_changes_with_a_commit_and_a_branch_switch(make_repo):
    repo = make_repo()
    repo.commit("first", {"a.py": "x = 1\n"})
    git_dir = repo.root / ".git"
    before = head_signature(git_dir)
    assert head_signature(git_dir) == before  # stable while nothing happens
    repo.commit("second", {"a.py": "x = 2\n"})
    after = head_signature(git_dir)
    assert after != before
    repo.git("checkout", "-q", "-b", "topic")
    assert head_signature(git_dir) != after
    repo.git("pack-refs", "--all")  # refs moved into packed-refs: still a change, no crash
    assert head_signature(git_dir) != after


def test_index_dir_choices(tmp_path):
    root = tmp_path / "proj"
    where = RepoLocation(root, root / ".git", False, default_index_dir(root))
    keyed = index_dir_for(where, str(tmp_path / "ix"))
    assert keyed.parent == tmp_path / "ix" and keyed.name == default_index_dir(root).name
    assert index_dir_for(where, None) == default_index_dir(root)
    # Never inside the repository (read-only), never relative to wherever the server runs.
    assert index_dir_for(where, "ix") == default_index_dir(root)
    assert index_dir_for(where, str(root / ".cache")) == default_index_dir(root)


def test_one_user_level_folder_never_shares_an_index_between_repositories(tmp_path):
    """Two single-folder windows with the same user setting: two index folders."""
    a, b = tmp_path / "a" / "app", tmp_path / "b" / "app"  # same name, different repositories
    found = {index_dir_for(RepoLocation(r, r / ".git", False, default_index_dir(r)),
                           str(tmp_path / "ix")) for r in (a, b)}
    assert len(found) == 2 and all(f.parent == tmp_path / "ix" for f in found)


def test_for_path_picks_the_innermost_and_refuses_outside(tmp_path):
    outer = RepoWorkspace("file:///o", tmp_path / "o", tmp_path / "o/.git", tmp_path / "i1")
    inner = RepoWorkspace("file:///o/sub", tmp_path / "o/sub", tmp_path / "o/sub/.git", tmp_path / "i2")
    registry = Workspaces()
    registry.add(outer)
    registry.add(inner)
    assert registry.for_path(tmp_path / "o/sub/x.py") == (inner, "x.py")
    assert registry.for_path(tmp_path / "o/y/z.py") == (outer, "y/z.py")
    assert registry.for_path(tmp_path / "elsewhere.py") is None
    assert registry.for_path(tmp_path / "o/../elsewhere.py") is None


def test_reopen_without_an_index_leaves_no_reader(tmp_path):
    ws = RepoWorkspace("file:///o", tmp_path, tmp_path / ".git", tmp_path / "missing-index")
    assert ws.reopen() is False
    assert ws.reader is None and ws.counts() == (0, 0)
