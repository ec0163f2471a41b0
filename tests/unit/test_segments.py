"""A backfill run in segments (``pipeline.segments``) writes the index an unsegmented run writes:
every sidecar table and every Whoosh document, term and statistic (``bench/index_digest.py``),
with the anchorer's and the blame's state carried by the anchor worker or in process, the
decision records' window cut mid-round, and ``whylens index`` replacing itself between segments."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import whylens.anchor_worker as anchor_worker
import whylens.pipeline as pipeline_module
from whylens.pipeline import records as records_module
from whylens.pipeline import run_index
from whylens.pipeline.segments import CHECKPOINT, EVERY_ENV, SegmentPolicy

ROOT = Path(__file__).resolve().parents[2]


def _digest_module():
    spec = importlib.util.spec_from_file_location("index_digest", ROOT / "bench" / "index_digest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def digest(index_dir: Path) -> dict[str, list[str]]:
    """What the index holds; the anchorer's parse-cache counter left out of the meta (a new
    segment starts with an empty cache, so fewer re-parses are incremental; same outlines)."""
    module = _digest_module()
    folder = module.current(index_dir)
    parts = {**module.sidecar_parts(folder), **module.whoosh_parts(folder)}
    meta = []
    for row in parts.pop("sqlite:meta"):
        if "anchor_stats" in row:
            key, value = eval(row)  # repr of a (key, json) row
            stats = json.loads(value)
            stats.pop("incremental")
            row = repr((key, json.dumps(stats, sort_keys=True)))
        meta.append(row)
    parts["sqlite:meta"] = meta
    parts.pop("whoosh:segments")  # how many depends on when the writer flushed
    return parts


def build_history(repo) -> None:
    """Edits, renames, deletions, a merged branch, reverts and fixes across two files."""
    for i in range(36):
        body = (f"def outer_{i % 4}(x):\n    def helper(y):\n        return y + {i}\n"
                f"    return helper(x)\n\n\ndef shared(z):\n    return z * {i % 7}\n")
        files: dict[str, str | None] = {f"src/m{i % 4}.py": body}
        if i == 12:
            repo.mv("src/m1.py", "src/moved.py")
        if i == 20:
            files["src/m3.py"] = None
        repo.commit(f"Fix overflow in outer_{i % 4} (#{i + 1})\n\nouter_{i % 4} raised "
                    f"OverflowError {i} on huge x. Clamp x before helper runs.\n\n"
                    f"Fixes #{100 + i}\n", files, days=i)
        if i == 24:
            repo.git("checkout", "-q", "-b", "side")
            repo.commit("Add a side helper (#90)\n\nside() answers the retry loop.",
                        {"src/side.py": "def side(a):\n    return a\n"}, days=i)
            repo.commit("Make side() return twice a", {"src/side.py":
                        "def side(a):\n    return 2 * a\n"}, days=i)
            repo.git("checkout", "-q", "main")
            who = {f"GIT_{role}_{key}": value for role in ("AUTHOR", "COMMITTER")
                   for key, value in (("NAME", "Ada"), ("EMAIL", "ada@example.com"),
                                      ("DATE", f"{repo.clock} +0000"))}
            repo.git("merge", "-q", "--no-ff", "-m", "Merge branch side", "side", env=who)


@pytest.fixture
def flush_often(monkeypatch):
    """Every run flushes after each commit, so every index goes through the final merge (an
    index written at once keeps Whoosh's exact length total; a merged one sums its documents'
    byte-coded lengths: a difference of flush timing, not of what is indexed)."""
    monkeypatch.setattr(pipeline_module, "FIRST_FLUSH_SECONDS", 0.0)
    monkeypatch.setattr(pipeline_module, "MAX_FLUSH_SECONDS", 0.0)


def segmented(repo, target: Path, every: int, **kwargs) -> int:
    """Index in segments of ``every`` commits, one call each; returns how many calls."""
    policy = SegmentPolicy(max_mb=None, every=every, min_commits=1)
    token, calls = None, 0
    while True:
        calls += 1
        summary = run_index(repo.root, target, segments=policy, resume_segment=token, **kwargs)
        token = summary.next_segment
        if token is None:
            assert summary.segments == calls
            return calls


@pytest.mark.parametrize("worker_min", [1, 10**9], ids=["worker", "in-process"])
def test_a_segmented_backfill_writes_the_index_an_unsegmented_one_writes(
        make_repo, tmp_path, monkeypatch, flush_often, worker_min):
    monkeypatch.setattr(records_module, "WINDOW_COMMITS", 4)  # record rounds cut mid-window
    monkeypatch.setattr(anchor_worker, "CHUNK_ENTRIES", 1)  # in process: a chunk per state
    repo = make_repo("segments")
    build_history(repo)
    whole = run_index(repo.root, tmp_path / "whole", anchor_worker_min_commits=worker_min)
    calls = segmented(repo, tmp_path / "cut", 5, anchor_worker_min_commits=worker_min)
    assert calls >= 7
    assert digest(tmp_path / "cut") == digest(tmp_path / "whole")
    assert not list((tmp_path / "cut").glob(f"*/{CHECKPOINT}"))
    again = run_index(repo.root, tmp_path / "cut")
    assert again.mode == "up-to-date" and whole.commits_indexed == 39


def test_a_checkpoint_is_only_for_its_own_next_process(make_repo, tmp_path, flush_often):
    """A run that was not handed the token (the segment was killed, then `whylens index` ran
    again) drops the checkpoint and resumes as a killed run does (itself in segments, then):
    same index."""
    repo = make_repo("stale")
    build_history(repo)
    run_index(repo.root, tmp_path / "whole")
    policy = SegmentPolicy(max_mb=None, every=10, min_commits=1)
    for target in (tmp_path / "cut", tmp_path / "cut-again"):
        first = run_index(repo.root, target, segments=policy)
        assert first.next_segment and list(target.glob(f"*/{CHECKPOINT}"))
    resumed = run_index(repo.root, tmp_path / "cut")
    assert resumed.mode == "resumed" and resumed.next_segment is None
    assert not list((tmp_path / "cut").glob(f"*/{CHECKPOINT}"))
    assert segmented(repo, tmp_path / "cut-again", 7) == 6
    again = digest(tmp_path / "cut-again")
    assert {**again, "whoosh:stats": []} == {**digest(tmp_path / "cut"), "whoosh:stats": []}
    # a resumed writer updates documents in place: Whoosh's length total then counts as a
    # killed run's resume does (what the kill drills compare is the rest)
    cut, whole = digest(tmp_path / "cut"), digest(tmp_path / "whole")
    assert {**cut, "whoosh:stats": []} == {**whole, "whoosh:stats": []}


@pytest.mark.slow
def test_whylens_index_goes_on_in_a_fresh_process_with_continuous_progress(make_repo, tmp_path,
                                                                          flush_often):
    repo = make_repo("exec")
    build_history(repo)
    run_index(repo.root, tmp_path / "whole")
    env = {**os.environ, EVERY_ENV: "8", "WHYLENS_ANCHOR_WORKER_MIN_COMMITS": "1"}
    proc = subprocess.run([sys.executable, "-m", "whylens", "index", "--repo", str(repo.root),
                           "--index-dir", str(tmp_path / "cut"), "--progress", "json"],
                          env=env, check=True, capture_output=True, text=True, timeout=300)
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    summary = lines[-1]
    assert summary["event"] == "done" and summary["mode"] == "full"
    assert summary["segments"] == 5 and summary["commits_indexed"] == 39
    mined = [e["done"] for e in lines[:-1] if e.get("phase") == "mine"]
    assert mined == sorted(mined) and mined[-1] == 39
    assert digest(tmp_path / "cut") == digest(tmp_path / "whole")


def test_a_segments_successor_flushes_only_at_its_cut(make_repo, tmp_path, monkeypatch):
    """The first segment flushes early and often (a first index answers within seconds); the
    next ones go on with a readable index and flush at their cut only (each new process made
    seven Whoosh segments in its first minute, which MERGE_SMALL then rewrote)."""
    from whylens.index.writer import IndexWriter

    monkeypatch.setattr(pipeline_module, "FIRST_FLUSH_SECONDS", 0.0)  # after every commit
    monkeypatch.setattr(pipeline_module, "MAX_FLUSH_SECONDS", 3_600.0)
    flushes = []
    stock = IndexWriter.flush
    monkeypatch.setattr(IndexWriter, "flush", lambda self: flushes.append(1) or stock(self))
    repo = make_repo("successors")
    build_history(repo)
    calls = segmented(repo, tmp_path / "cut", 5)
    assert calls >= 7
    # the first segment: one flush a commit; each later one: its cut (the last: none)
    assert len(flushes) <= 5 + (calls - 1), len(flushes)
