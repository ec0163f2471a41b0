"""The indexer's wire contract: what `whylens index --progress json` prints is what the language
server reads back (whylens.progress), line by line."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from whylens.cli import main
from whylens.progress import Eta, IndexEvent, IndexStats, parse_line, phase_message


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


# ---- time left ----------------------------------------------------------------------------------

TIMELINES = Path(__file__).resolve().parents[2] / "bench" / "timelines"


def _steady(eta: Eta, rate: float, start: float, until: float, total: int, done: int = 0,
            step: float = 0.5) -> tuple[float | None, int]:
    """Feed ``eta`` a run mining ``rate`` commits a second from ``start`` to ``until``."""
    left, now = None, start
    while now <= until:
        left = eta.update("mine", min(done, total), total, now)
        done += int(rate * step)
        now += step
    return left, min(done, total)


def test_a_slow_first_commit_does_not_make_the_estimate_absurd():
    eta = Eta()
    assert eta.update("mine", 0, 0, 0.0) is None  # nothing counted yet
    assert eta.update("mine", 1, 10_000, 2.6) is None  # the newest commit: outlines parsed
    left, done = _steady(eta, 100, 3.0, 20.0, 10_000, done=1)
    real = (10_000 - done) / 100 + Eta.TAIL_SHARE * 100
    assert left is not None and 0.7 < left / real < 1.3


def test_the_estimate_includes_the_write_after_mining_and_counts_it_down():
    eta = Eta()
    eta.update("mine", 1, 1_000, 0.0)
    left, _ = _steady(eta, 50, 0.5, 20.5, 1_000, done=1)
    assert left is not None and left > 0  # mining done: the records and the write remain
    first = eta.update("records", 0, 1, 21.0)
    later = eta.update("commit", 0, 1, 23.0)
    assert first is not None and later is not None and later < first
    assert eta.update("commit", 0, 1, 21.0 + first + 1) is None  # overdue: no false promise
    assert eta.update("done", 1_000, 1_000, 60.0) is None


def test_the_pace_follows_a_history_that_gets_dearer():
    eta = Eta()
    _, done = _steady(eta, 200, 0.0, 30.0, 20_000)
    left, done = _steady(eta, 50, 30.5, 90.0, 20_000, done=done)
    real = (20_000 - done) / 50
    assert left is not None and left > 0.7 * real  # the old fast pace is forgotten


def test_a_handed_over_pace_answers_at_once():
    eta = Eta(40.0)  # the previous segment's pace
    left = eta.update("mine", 4_000, 8_000, 0.0)
    assert left is not None and abs(left - (4_000 / 40 + Eta.TAIL_SHARE * 200)) < 1e-6


def test_on_a_recorded_run_every_estimate_shown_is_within_a_factor_of_two():
    """requests' full index as it really progressed (bench/eta_timeline.py record): the pace of
    its slow first commit made the round-26 estimate 347x the time really left."""
    rows = [json.loads(line) for line in (TIMELINES / "requests.jsonl").open()]
    end = next(r["t"] for r in rows if r.get("end"))
    eta, shown = Eta(), 0
    for row in rows:
        if row.get("end"):
            continue
        left = eta.update(row["phase"], row["done"], row["total"], row["t"])
        if left is not None and row["t"] < end - 5:
            shown += 1
            assert 0.5 <= left / (end - row["t"]) <= 2.0, row
    assert shown >= 10


def test_progress_lines_say_what_the_run_does(make_repo, index_dir, capsys):
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": "def acquire():\n    return 1\n"})
    assert main(["index", "--repo", str(repo.root), "--index-dir", str(index_dir),
                 "--progress", "lines"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("mining ") and err[0].endswith("/1 commits (0%)"), err
    assert err[-2:] == ["building decision records", "writing the index"], err
    assert phase_message(IndexEvent("mine", 0, 0)) == "reading history"
    # commits mined (and flushed: the first hovers answer) before the count is known
    assert phase_message(IndexEvent("mine", 16, 0)) == "mining 16 commits"
    assert phase_message(IndexEvent("mine", 1, 0)) == "mining 1 commit"
    assert phase_message(IndexEvent("records", 0, 1)) == "building decision records"


def test_a_long_backfill_promises_at_most_a_minute_for_its_final_write():
    """A segmented backfill writes its index segment by segment: on the 101,966-commit history
    the records and the final write took 40 s of a 2,830 s run."""
    eta = Eta(10.0)
    left = eta.update("mine", 50_000, 100_000, 0.0)
    assert left is not None and abs(left - (5_000 + Eta.TAIL_MAX)) < 1e-6
