"""open_repository / Repository: work trees, sub-folders, bare and shallow clones, bad input."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from whylens.errors import (
    EmptyRepositoryError,
    GitMissingError,
    NotARepositoryError,
    UnknownRevisionError,
)
from whylens.history.repo import open_repository


@pytest.fixture
def three(make_repo):
    repo = make_repo("three")
    repo.commit("Add a", {"a.txt": "a\n", "src/pkg/mod.py": "x = 1\n"})
    repo.commit("Change a", {"a.txt": "a\nb\n"})
    repo.commit("Change a again", {"a.txt": "a\nb\nc\n"})
    return repo


def test_work_tree_facts(three):
    with open_repository(three.root) as repo:
        assert repo.root == three.root.resolve()
        assert repo.git_dir == (three.root / ".git").resolve()
        assert not repo.is_bare and not repo.is_shallow and not repo.is_empty
        assert repo.resolve("HEAD") == three.shas[-1]
        assert repo.resolve("main~2") == three.shas[0]
        assert repo.resolve(three.shas[1][:10]) == three.shas[1]
        assert repo.count("HEAD") == 3
        assert repo.count("HEAD", exclude=[three.shas[0]]) == 2
        assert repo.is_ancestor(three.shas[0], three.shas[2])
        assert not repo.is_ancestor(three.shas[2], three.shas[0])
        assert not repo.is_ancestor("f" * 40, three.shas[0])
        assert repo.remote_url() is None


def test_opens_from_a_sub_folder_or_a_file(three):
    with open_repository(three.root / "src" / "pkg") as repo:
        assert repo.root == three.root.resolve()
        assert repo.resolve() == three.shas[-1]
    with open_repository(three.root / "src" / "pkg" / "mod.py") as repo:
        assert repo.root == three.root.resolve()


def test_bare_clone(three, clone_repo):
    bare = clone_repo(three.root, "bare.git", "--bare")
    with open_repository(bare) as repo:
        assert repo.is_bare
        assert repo.root == bare.resolve() == repo.git_dir
        assert repo.resolve("HEAD") == three.shas[-1]
        assert repo.remote_url() == f"file://{three.root}"
        assert repo.count("HEAD") == 3


def test_shallow_clone_reports_it(three, clone_repo):
    shallow = clone_repo(three.root, "shallow", "--depth", "2")
    with open_repository(shallow) as repo:
        assert repo.is_shallow
        assert repo.count("HEAD") == 2


def test_detached_head(three):
    three.git("checkout", "-q", "--detach", three.shas[1])
    with open_repository(three.root) as repo:
        assert repo.resolve("HEAD") == three.shas[1]
        assert repo.resolve("main") == three.shas[2]


@pytest.mark.parametrize("rev", ["no-such-branch", "HEAD~9", "f" * 40, "--all", "", "a\nb"])
def test_unknown_revision(three, rev):
    with open_repository(three.root) as repo, pytest.raises(UnknownRevisionError) as err:
        repo.resolve(rev)
    assert "unknown revision" in str(err.value)


def test_empty_repository(make_repo):
    empty = make_repo("empty")
    with open_repository(empty.root) as repo:
        assert repo.is_empty
        with pytest.raises(EmptyRepositoryError) as err:
            repo.resolve("HEAD")
        assert "no commits yet" in str(err.value)
        assert repo.ignore_revs() == set()
        assert repo.gitattributes() == []


def test_not_a_repository(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(NotARepositoryError) as err:
        open_repository(plain)
    assert str(plain) in str(err.value) and "--repo" in str(err.value)
    with pytest.raises(NotARepositoryError):
        open_repository(tmp_path / "does-not-exist")


def test_git_missing_from_path(three, tmp_path):
    """A fresh interpreter with an empty PATH: importing works, opening says git is missing."""
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    script = (
        "from whylens.history.repo import open_repository\n"
        "from whylens.errors import GitMissingError\n"
        "try:\n"
        f"    open_repository({str(three.root)!r})\n"
        "except GitMissingError as exc:\n"
        "    print('missing:', exc)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "GIT_PYTHON_GIT_EXECUTABLE"}
    env["PATH"] = str(empty_bin)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("missing: git was not found on PATH")


def test_git_missing_in_process(three, tmp_path, monkeypatch):
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    with pytest.raises(GitMissingError):
        open_repository(three.root)


def test_ignore_revs_at_head_also_in_bare(make_repo, clone_repo):
    src = make_repo("ignored")
    first = src.commit("Reformat everything", {"a.py": "x=1\n"})
    second = src.commit("Reformat again", {"a.py": "x = 1\n"})
    src.commit("List formatting commits", {".git-blame-ignore-revs":
               f"# black\n{first}\n\n{second[:12]}  # abbreviated\nnot-a-sha\n"})
    with open_repository(src.root) as repo:
        assert repo.ignore_revs() == {first, second}
        assert repo.ignore_revs(first) == set()  # the file did not exist yet
    with open_repository(clone_repo(src.root, "ignored.git", "--bare")) as repo:
        assert repo.ignore_revs() == {first, second}


def test_gitattributes_parsed_with_nested_files(make_repo):
    src = make_repo("attrs")
    src.commit("Attributes", {
        ".gitattributes": "# comment\n*.min.js linguist-generated\n/vendor/** -diff\n"
                          "*.png binary\n*.txt text eol=lf\n",
        "web/.gitattributes": "*.js linguist-vendored=true\nbuild/ !text\n",
        "a.txt": "a\n",
    })
    with open_repository(src.root) as repo:
        attrs = repo.gitattributes("HEAD")
    assert attrs == [
        ("*.min.js", {"linguist-generated": True}),
        ("vendor/**", {"diff": False}),
        ("*.png", {"binary": True, "diff": False, "merge": False, "text": False}),
        ("*.txt", {"text": True, "eol": "lf"}),
        ("web/**/*.js", {"linguist-vendored": "true"}),
        ("web/**/build/", {"text": None}),
    ]


def test_remote_url_of_a_clone(three, clone_repo):
    with open_repository(clone_repo(three.root, "work")) as repo:
        assert repo.remote_url() == f"file://{three.root}"
        assert repo.remote_url("upstream") is None


def test_git_runs_read_only_commands_only(three):
    with open_repository(three.root) as repo:
        assert repo.git("log", "-1", "--format=%s") == "Change a again\n"
        assert repo.git("config", "--get", "core.bare").strip() == "false"
        for args in (("commit", "-m", "x"), ("config", "user.name", "x"), ("gc",),
                     ("-c", "core.pager=x", "log"), ("update-ref", "HEAD", three.shas[0]),
                     ("symbolic-ref", "HEAD", "refs/heads/x"), ("diff", "HEAD"), ("status",),
                     ("describe", "--dirty")):
            with pytest.raises(ValueError):
                repo.git(*args)


def test_inherited_git_dir_does_not_redirect(three, make_repo, monkeypatch):
    other = make_repo("other")
    other.commit("Other", {"o.txt": "o\n"})
    monkeypatch.setenv("GIT_DIR", str(other.root / ".git"))
    with open_repository(three.root) as repo:
        assert repo.resolve("HEAD") == three.shas[-1]


def test_linked_worktree(three, tmp_path):
    three.git("branch", "side", three.shas[1])
    linked = tmp_path / "linked"
    three.git("worktree", "add", "-q", str(linked), "side")
    with open_repository(linked) as repo:
        assert repo.root == linked.resolve()
        assert repo.resolve("HEAD") == three.shas[1]
        assert repo.resolve("main") == three.shas[2]
        assert not repo.is_bare


def test_git_refuses_writes_dressed_as_reads(make_repo):
    from whylens.history.repo import open_repository

    repo = make_repo()
    repo.commit("one", {"a.txt": "a\n"})
    config = (repo.root / ".git" / "config").read_bytes()
    with open_repository(repo.root) as r:
        for args in (("config", "--local", "whylens.pwned", "yes"),
                     ("config", "-z", "whylens.pwned", "yes"),
                     ("config", "--get", "--unset", "core.bare"),
                     ("log", f"--output={repo.root / 'PWNED'}")):
            with pytest.raises(ValueError):
                r.git(*args)
        assert r.git("config", "--get", "core.bare").strip() == "false"
    assert (repo.root / ".git" / "config").read_bytes() == config
    assert not (repo.root / "PWNED").exists()
