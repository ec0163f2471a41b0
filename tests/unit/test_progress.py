"""The indexer's wire contract: what `whylens index --progress json` prints is what the language
server reads back (whylens.progress), line by line."""

from __future__ import annotations

from collections import Counter

from whylens.cli import main
from whylens.progress import IndexEvent, IndexStats, parse_line


def test_a_real_run_prints_only_lines_the_server_understands(make_repo, index_dir, capsys):
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": "def acquire():\n    return 1\n"})
    repo.commit("Fix a deadlock when the pool is exhausted", {"pool.py": "def acquire():\n    return 2\n"})
    assert main(["index", "--repo", str(repo.root), "--index-dir", str(index_dir),
                 "--progress", "json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    parsed = [parse_line(line) for line in lines]
    assert all(p is not None for p in parsed), lines
    *events, stats = parsed
    assert events and all(isinstance(e, IndexEvent) for e in events)
    assert [e.phase for e in events][-1] == "done"
    assert isinstance(stats, IndexStats) and stats.mode == "full" and stats.commits_indexed == 2
    assert stats.describe() == "indexed 2 new commits"


def test_round_trip_and_what_is_not_an_event():
    event = IndexEvent("mine", 5, 20)
    assert parse_line(event.to_json()) == event and event.percent == 25
    assert IndexEvent("mine", 20, 20).percent == 99 and IndexEvent("records", 0, 0).percent is None
    stats = IndexStats("/idx", "a" * 40, "incremental", commits_total=3, commits_indexed=3,
                       filtered=Counter({"bot": 1}), units=2, seconds=1.23456)
    back = parse_line(stats.to_json().encode())
    assert back == IndexStats.from_dict(stats.as_dict()) and back.seconds == 1.235
    assert IndexStats("/idx", "a" * 40, "up-to-date").describe() == "index up to date"
    for junk in (b"", b"warning: something", b"[1, 2]", b'{"event": "progress"}', b'{"x": 1}'):
        assert parse_line(junk) is None
