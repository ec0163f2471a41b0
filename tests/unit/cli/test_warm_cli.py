"""`python -m whylens.cli.warm`: the server's warm indexer child, as a real process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from whylens.cli.warm import READY, read_order
from whylens.lsp.warm import READY as SERVER_READY, warm_command
from whylens.progress import parse_line

from histories import build_session_history


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(warm_command(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def test_the_server_and_the_child_agree_on_the_ready_line_and_it_is_no_progress():
    assert SERVER_READY == READY.encode()
    assert parse_line(READY) is None


@pytest.mark.parametrize("line, problem", [
    (b'["index"]', "not an object"),
    (b'{"argv": []}', "non-empty list"),
    (b'{"argv": ["index", 3]}', "list of strings"),
    (b'{"argv": ["pr-comments", "--repo", "."]}', "runs only index"),
    (b'{"argv": ["index"], "cwd": 1}', "cwd"),
    (b'{"argv": ', "Expecting value"),
])
def test_bad_orders_are_refused(line, problem):
    with pytest.raises(ValueError, match=problem):
        read_order(line)


def test_an_order_is_the_command_line_and_folder():
    assert read_order(b'{"argv": ["index", "--repo", "/r"], "cwd": "/r"}\n') == (
        ["index", "--repo", "/r"], "/r")


def test_end_of_input_exits_quietly_after_ready(tmp_path):
    proc = start("--languages", "python,c")
    out, err = proc.communicate(b"", timeout=120)
    assert proc.returncode == 0, err
    assert out.decode().splitlines() == [READY]
    assert b"Traceback" not in err


def test_a_command_other_than_index_is_refused(tmp_path):
    proc = start()
    order = json.dumps({"argv": ["search", "why"], "cwd": str(tmp_path)}).encode() + b"\n"
    out, err = proc.communicate(order, timeout=120)
    assert proc.returncode == 2
    assert b"runs only index" in err
    assert out.decode().splitlines() == [READY]


def test_one_index_run_like_the_cli_then_exit(make_repo, tmp_path):
    repo = make_repo()
    build_session_history(repo)
    index_dir = tmp_path / "index"
    proc = start("--languages", "python")
    argv = ["index", "--repo", str(repo.root), "--index-dir", str(index_dir), "--progress", "json"]
    out, err = proc.communicate(json.dumps({"argv": argv, "cwd": str(repo.root)}).encode() + b"\n",
                                timeout=120)
    assert proc.returncode == 0, err
    lines = out.decode().splitlines()
    assert lines[0] == READY
    events = [parse_line(line) for line in lines[1:]]
    assert events and all(e is not None for e in events)
    summary = events[-1]
    assert getattr(summary, "mode", None) == "full" and summary.commits_indexed >= 3
    # the same command again in a new warm child: incremental, nothing new
    proc = start()
    out, err = proc.communicate(json.dumps({"argv": argv}).encode() + b"\n", timeout=120)
    assert proc.returncode == 0, err
    assert getattr(parse_line(out.decode().splitlines()[-1]), "mode", None) == "up-to-date"


def test_the_child_is_started_without_the_working_folder_on_its_path():
    command = warm_command(["c", "python"])
    assert command[:4] == [sys.executable, "-P", "-m", "whylens.cli.warm"]
    assert command[4:] == ["--languages", "c,python"]
    assert warm_command() == [sys.executable, "-P", "-m", "whylens.cli.warm"]
