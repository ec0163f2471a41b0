"""Killing a writer (SIGKILL) at any moment leaves a readable index, and the next run completes.

A real subprocess writes batches through IndexWriter the way the pipeline does (units first,
then the batch's commits, then flush) and is killed at several points: before its first flush,
right after a flush, and a few milliseconds into the next one (inside Whoosh's or sqlite's
commit). After each kill the index must open, every commit it lists must be searchable, and a
resumed run (skipping commits already indexed) must finish with every unit exactly once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from whylens.errors import IndexMissingError
from whylens.index.store import IndexStore

BATCHES, PER_BATCH = 30, 40

WRITER_SCRIPT = r"""
import hashlib, sys
from whylens.index.store import IndexStore
from whylens.models import Commit, Unit

import os, signal
from whylens.index.writer import IndexWriter
if os.environ.get("DIE_AFTER_WHOOSH_COMMIT"):  # the worst moment: Whoosh committed, sqlite not
    flushes_left = [int(os.environ["DIE_AFTER_WHOOSH_COMMIT"])]
    original = IndexWriter._write_whoosh
    def dying(self):
        original(self)
        flushes_left[0] -= 1
        if flushes_left[0] < 0:
            os.kill(os.getpid(), signal.SIGKILL)
    IndexWriter._write_whoosh = dying

path, rebuild = sys.argv[1], sys.argv[2] == "1"
batches, per_batch = int(sys.argv[3]), int(sys.argv[4])
store = IndexStore(path)
done = set()
if store.exists() and not rebuild:
    with store.reader() as reader:
        done = {n for n in range(batches * per_batch)
                if reader.has_commit(hashlib.sha1(b"c%d" % n).hexdigest())}
writer = store.writer(rebuild=rebuild)
print("open", flush=True)
for b in range(batches):
    commits, units = [], []
    for n in range(b * per_batch, (b + 1) * per_batch):
        if n in done:
            continue
        sha = hashlib.sha1(b"c%d" % n).hexdigest()
        date = "2024-01-01T00:00:00+00:00"
        commits.append(Commit(sha=sha, parents=(), author="Ada", email="a@x", timestamp=1704067200,
                              date=date, subject="commit %d" % n))
        lot = "lot_" + chr(97 + b // 26) + chr(97 + b % 26)  # one exact term per batch
        units.append(Unit(id="u%d" % n, type="fact", title="unit %d %s" % (n, lot),
                          content="word%d must hold for %s and topic%d" % (n, lot, n % 7),
                          weight=0.7, context="", commit=sha, author="Ada", date=date))
    writer.add_units(units)
    writer.add_commits(commits)
    writer.flush()
    print("flushed %d" % b, flush=True)
writer.set_meta(last_sha="done")
writer.commit()
print("done", flush=True)
"""


def run_writer(path, rebuild=False, kill_after=None, delay=0.0, env=None):
    """Run the writer; kill it ``delay`` s after it prints ``kill_after`` (None: let it finish)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER_SCRIPT, str(path), "1" if rebuild else "0", str(BATCHES),
         str(PER_BATCH)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **(env or {})},
    )
    lines = []
    for line in proc.stdout:
        lines.append(line.strip())
        if kill_after is not None and line.strip() == kill_after:
            time.sleep(delay)
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait(timeout=60)
    err = proc.stderr.read()
    if kill_after is None and not env:
        assert proc.returncode == 0, err
    return lines


def lot(b: int) -> str:
    return "lot_" + chr(97 + b // 26) + chr(97 + b % 26)


def check_consistent(path):
    """Every commit the index lists is searchable; returns how many units it holds."""
    store = IndexStore(path)
    with store.reader() as reader:
        listed = reader.stats()["commits"]
        found = 0
        for b in range(BATCHES):
            hits = reader.search(lot(b), k=PER_BATCH * 2)
            ids = [item.id for item, _ in hits]
            assert len(ids) == len(set(ids)), f"duplicates in batch {b}"
            found += len(ids)
            for item, _ in hits:
                assert reader.has_commit(item.commit)
        assert found == listed == reader.stats()["units_total"]
        return found


@pytest.mark.slow
def test_killed_writer_leaves_a_readable_index_and_the_next_run_completes(tmp_path):
    path = tmp_path / "index"
    run_writer(path, kill_after="open", delay=0.0)  # killed before its first flush
    with pytest.raises(IndexMissingError):
        IndexStore(path).reader()
    counts = []
    for kill_after, delay in (("flushed 0", 0.0), ("flushed 4", 0.004), ("flushed 9", 0.012),
                              ("flushed 15", 0.025), ("flushed 22", 0.002)):
        lines = run_writer(path, kill_after=kill_after, delay=delay)
        if "done" in lines:
            break
        counts.append(check_consistent(path))
    assert counts == sorted(counts) and counts[0] > 0  # progress is never lost
    run_writer(path)  # the next run completes
    assert check_consistent(path) == BATCHES * PER_BATCH


@pytest.mark.slow
def test_killed_rebuild_keeps_the_previous_index(tmp_path):
    path = tmp_path / "index"
    run_writer(path)
    for kill_after, delay in (("open", 0.0), ("flushed 3", 0.006), ("flushed 12", 0.0)):
        run_writer(path, rebuild=True, kill_after=kill_after, delay=delay)
        assert check_consistent(path) == BATCHES * PER_BATCH
    run_writer(path, rebuild=True)
    assert check_consistent(path) == BATCHES * PER_BATCH
    assert len([p for p in path.iterdir() if p.name.startswith("gen-")]) == 1


@pytest.mark.slow
def test_killed_between_whoosh_and_sqlite_commits(tmp_path):
    path = tmp_path / "index"
    for flushes in ("2", "7"):  # die right after the Whoosh commit of a flush
        lines = run_writer(path, env={"DIE_AFTER_WHOOSH_COMMIT": flushes})
        assert "done" not in lines
        check_consistent(path)  # Whoosh holds documents sqlite does not list: never shown
    run_writer(path)  # the resumed run re-adds them by id: no duplicates
    assert check_consistent(path) == BATCHES * PER_BATCH


@pytest.mark.slow
def test_readers_open_and_search_while_a_writer_flushes(tmp_path):
    path = tmp_path / "index"
    run_writer(path)  # an index exists; the next writer merges and rewrites segments
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER_SCRIPT, str(path), "1", str(BATCHES), str(PER_BATCH)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    opened = 0
    while proc.poll() is None:
        with IndexStore(path).reader() as reader:  # never locked out, never "corrupt"
            assert len(reader.search(lot(0), k=PER_BATCH * 2)) == PER_BATCH
            opened += 1
    assert proc.returncode == 0, proc.stderr.read()
    assert opened > 0
    assert check_consistent(path) == BATCHES * PER_BATCH
