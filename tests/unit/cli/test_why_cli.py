"""`whylens why` and `whylens explain-error` through the real CLI entry point."""

from __future__ import annotations

import io
import json
import sys

import pytest

from whylens.cli import main
from whylens.cli.why import split_target
from whylens.errors import InvalidInputError
from whylens.pipeline import run_index

from retrieval.pool_history import build_pool_history


@pytest.fixture
def indexed(make_repo, index_dir):
    repo = make_repo("cli")
    shas = build_pool_history(repo)
    repo.git("remote", "add", "origin", "git@github.com:acme/pool.git")
    run_index(repo.root, index_dir)
    return repo, shas, ["--repo", str(repo.root), "--index-dir", str(index_dir)]


def test_why_json(indexed, capsys):
    repo, shas, common = indexed
    assert main(["why", "src/pool.py:6", *common, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["symbol"]["name"] == "Pool.put" and data["known"]
    assert data["history"][0]["commit"] == shas["never_block"]
    assert data["history"][0]["url"] == f"https://github.com/acme/pool/commit/{shas['never_block']}"
    assert data["summary"].startswith("changed 4× by 2 authors")


def test_why_markdown_with_symbol_and_cwd_relative_path(indexed, capsys, monkeypatch):
    repo, shas, common = indexed
    monkeypatch.chdir(repo.root / "src")
    assert main(["why", "pool.py", "--symbol", "fetch", *common]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## `fetch`")
    assert "https://github.com/acme/pool/commit/" in out


def test_why_unknown_is_honest_and_bad_input_exits_2(indexed, capsys):
    repo, _shas, common = indexed
    repo.write("new.py", "def f():\n    pass\n")
    assert main(["why", "new.py:1", *common]) == 0
    assert "no recorded history" in capsys.readouterr().out
    assert main(["why", "../../etc/passwd:1", *common]) == 2
    assert "outside the repository" in capsys.readouterr().err
    assert main(["why", "src/pool.py:3", "--symbol", "fetch", *common]) == 2


def test_why_unknown_symbol_or_file_exits_2_with_close_names(indexed, capsys):
    repo, _shas, common = indexed
    repo.write("new.py", "def fresh():\n    pass\n")
    assert main(["why", "new.py", "--symbol", "fresh", *common]) == 0  # known, nothing recorded
    assert "no recorded history" in capsys.readouterr().out
    assert main(["why", "src/pool.py", "--symbol", "Pool.gte", *common]) == 2
    err = capsys.readouterr().err
    assert "no symbol 'Pool.gte' in src/pool.py" in err and "Pool.get" in err
    assert main(["why", "src/pol.py:3", *common]) == 2
    err = capsys.readouterr().err
    assert "no file 'src/pol.py'" in err and "src/pool.py" in err
    assert main(["why", "src/pool.py:999", *common]) == 2
    assert "past the end of src/pool.py" in capsys.readouterr().err


def test_why_markdown_stays_in_budget_and_all_shows_everything(indexed, capsys):
    repo, _shas, common = indexed
    assert main(["why", "src/pool.py", "--symbol", "Pool.put", *common]) == 0
    short = capsys.readouterr().out
    assert main(["why", "src/pool.py", "--symbol", "Pool.put", "--all", *common]) == 0
    everything = capsys.readouterr().out
    assert len(short) <= 4100 and len(everything) >= len(short)
    assert "not shown" not in everything


def test_why_without_index_is_a_clear_error(make_repo, tmp_path, capsys):
    repo = make_repo("bare")
    build_pool_history(repo)
    code = main(["why", "src/pool.py:1", "--repo", str(repo.root), "--index-dir",
                 str(tmp_path / "none")])
    assert code == 1 and "whylens index" in capsys.readouterr().err


def test_split_target():
    assert split_target("a/b.py:12") == ("a/b.py", 12)
    assert split_target("a/b.py") == ("a/b.py", None)
    assert split_target("C:/x/b.py") == ("C:/x/b.py", None)
    with pytest.raises(InvalidInputError):
        split_target("a.py:0")


TRACE = '''Traceback (most recent call last):
  File "/srv/app/src/pool.py", line 11, in fetch
    conn = pool.get()
PoolExhaustedError: every connection is checked out
'''


def test_explain_error_from_stdin(indexed, capsys, monkeypatch):
    _repo, shas, common = indexed
    monkeypatch.setattr(sys, "stdin", io.StringIO(TRACE))
    assert main(["explain-error", *common, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pitfalls"] and data["pitfalls"][0]["commit"] == shas["deadlock"]
    assert data["pitfalls"][0]["message"].startswith("Known pitfall: ")
    assert data["pitfalls"][0]["url"] == f"https://github.com/acme/pool/commit/{shas['deadlock']}"

    monkeypatch.setattr(sys, "stdin", io.StringIO("everything is fine"))
    assert main(["explain-error", *common]) == 0
    assert "No known pitfall" in capsys.readouterr().out

    monkeypatch.setattr(sys, "stdin", io.StringIO("   "))
    assert main(["explain-error", *common]) == 2
