"""Small things users hit: a Latin-1 file name keeps git's bytes (and `why` finds it), a newline
in a file name cannot break a heading, an unborn HEAD names its branch."""

from __future__ import annotations

import os

import pytest

from whylens.cli import main
from whylens.errors import EmptyRepositoryError
from whylens.history.repo import open_repository
from whylens.pipeline import run_index

FUNC = "def parse(raw):\n    return raw.strip()\n"


def _commit_bytes_name(repo, name: bytes, content: str, message: str) -> None:
    with open(os.path.join(os.fsencode(repo.root), name), "w") as handle:
        handle.write(content)
    repo.commit(message)


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="file names are bytes on Linux")
def test_latin1_names_stay_distinct_and_why_finds_them(make_repo, index_dir, capsys):
    repo = make_repo("latin")
    _commit_bytes_name(repo, b"caf\xe9.py", FUNC, "Add the parser")
    _commit_bytes_name(repo, b"caf\xe8.py", FUNC, "Add a second parser")
    _commit_bytes_name(repo, b"caf\xe9.py", FUNC.replace("strip()", "strip().lower()"),
                       "Fix parse: lower-case the header names\n\nparse returned mixed-case "
                       "names, so lookups failed. Fixed by lower-casing them.")
    run_index(repo.root, index_dir)
    target = os.path.join(str(repo.root), os.fsdecode(b"caf\xe9.py"))  # as argv decodes it
    assert main(["why", target, "--symbol", "parse", "--repo", str(repo.root),
                 "--index-dir", str(index_dir), "--json"]) == 0
    out = capsys.readouterr().out
    assert "lower-case the header names" in out and "Add the parser" in out
    assert "Add a second parser" not in out  # café and cafè are two files, not one "caf�"


def test_a_newline_in_a_file_name_stays_inside_its_heading(make_repo, index_dir, capsys):
    repo = make_repo("newline")
    repo.commit("Add the parser\n\nFixed by stripping the raw header.", {"a\n# b.py": FUNC})
    run_index(repo.root, index_dir)
    assert main(["why", str(repo.root / "a\n# b.py"), "--repo", str(repo.root),
                 "--index-dir", str(index_dir)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## `a # b.py`") and "\n# b.py" not in out


def test_an_unborn_head_names_its_branch(make_repo):
    repo = make_repo("unborn")
    with open_repository(repo.root) as opened, pytest.raises(EmptyRepositoryError, match="'main'"):
        opened.resolve("HEAD")
    repo.commit("first", {"a.py": FUNC})
    repo.git("checkout", "-q", "--orphan", "lonely")
    with open_repository(repo.root) as opened:
        with pytest.raises(EmptyRepositoryError, match="'lonely'.*other branches"):
            opened.resolve("HEAD")
