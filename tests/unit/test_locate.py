"""The one locator: root, git dir and index folder, the same for the CLI, the server and the
pipeline (they once found the root three ways)."""

from __future__ import annotations

import subprocess

import pytest

from whylens.errors import NotARepositoryError
from whylens.history.repo import open_repository
from whylens.locate import default_index_dir, locate


@pytest.fixture
def repo(make_repo):
    repo = make_repo("proj")
    repo.commit("first", {"pkg/a.py": "x = 1\n"})
    return repo


def test_a_work_tree_from_its_root_a_subfolder_and_a_file(repo):
    for start in (repo.root, repo.root / "pkg", repo.root / "pkg" / "a.py"):
        where = locate(start)
        assert where.root == repo.root.resolve()
        assert where.git_dir == (repo.root / ".git").resolve()
        assert not where.is_bare
        assert where.index_dir == default_index_dir(repo.root)


def test_inside_the_git_folder_means_its_work_tree(repo):
    where = locate(repo.root / ".git" / "refs")
    assert where.root == repo.root.resolve() and not where.is_bare


def test_a_bare_repository_is_its_own_root(repo, tmp_path):
    bare = tmp_path / "mirror.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.root), str(bare)], check=True)
    where = locate(bare / "refs")
    assert where.root == where.git_dir == bare.resolve() and where.is_bare
    assert where.index_dir.name.startswith("mirror-")  # ".git" is dropped from the folder name


def test_an_explicit_index_folder_wins(repo, tmp_path):
    assert locate(repo.root, tmp_path / "ix").index_dir == tmp_path / "ix"


def test_not_a_repository(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(NotARepositoryError):
        locate(tmp_path / "plain")
    with pytest.raises(NotARepositoryError):
        locate(tmp_path / "missing")


def test_an_inherited_git_dir_does_not_redirect_it(repo, make_repo, monkeypatch):
    other = make_repo("other")
    other.commit("x", {"b.py": "y = 1\n"})
    monkeypatch.setenv("GIT_DIR", str(other.root / ".git"))
    assert locate(repo.root / "pkg").root == repo.root.resolve()


def test_the_pipeline_and_the_readers_agree(repo):
    """``open_repository`` (the pipeline) answers with the locator's root and git dir."""
    with open_repository(repo.root / "pkg") as opened:
        where = locate(repo.root / "pkg")
        assert (opened.root, opened.git_dir, opened.is_bare) == (where.root, where.git_dir, False)
