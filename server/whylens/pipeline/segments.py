"""A long backfill in segments, each in a fresh process, so its peak memory is one segment's.

A long run's memory is mostly fragmentation, not live data (the indexer held ~340 MB of RSS for
100-165 MB of Python objects on a 100k-commit history), and only a process's end gives it back.
So when the indexer's process tree passes ``SegmentPolicy.max_mb`` (after ``min_commits``), the
run stops taking commits from the walk, lets the anchor worker finish those it has, flushes the
index and writes a ``Checkpoint``: where the walk is, what the anchorer and the line blame carry
from commit to commit (the worker's state: it writes that file itself, and the next segment's
worker reads it, so it never crosses a pipe or this process), the decision records' window,
the writer's counters and the summary so far. ``whylens index`` then replaces itself (exec: the
same process id, its output and its progress go on) with one that resumes from the checkpoint:
the walk starts past the commits done (``history.walk``'s ``skip``: listed with ``git
rev-list``, read with ``git log --no-walk``), nothing is anchored twice, and the index is the
one an unsegmented run writes.

Only a first backfill is segmented (its generation is readable from the first flush; a rebuild
over an older index, an incremental run and a run re-applying a tracker export are not).
A checkpoint is used only by the process it was written for (``token``); a run killed later
resumes as a killed run does, and the checkpoint is dropped.
"""

from __future__ import annotations

import os
import pickle
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whylens.history.walk import WalkStats
from whylens.progress import IndexStats

CHECKPOINT = "segment.pickle"  # in the generation's folder
ANCHOR_STATE = "segment-anchoring.pickle"  # beside it: written and read by the anchor worker
MAX_MB_ENV = "WHYLENS_SEGMENT_MB"  # the tree's RSS that ends a segment; 0: never
EVERY_ENV = "WHYLENS_SEGMENT_COMMITS"  # tests and benchmarks: end one every N commits
DEFAULT_MAX_MB = 400  # the tree's peak is this plus what one check interval adds
MIN_COMMITS = 2_000  # a segment walks at least this many (a new process costs ~2 s of CPU)
CHECK_EVERY = 100  # commits between two looks at the tree's memory


@dataclass
class SegmentPolicy:
    """When a segment ends: its tree's RSS (MB) passed ``max_mb``, or ``every`` commits."""

    max_mb: int | None = DEFAULT_MAX_MB
    every: int | None = None
    min_commits: int = MIN_COMMITS

    @classmethod
    def from_env(cls) -> SegmentPolicy | None:
        """$WHYLENS_SEGMENT_COMMITS (N commits a segment), else $WHYLENS_SEGMENT_MB (0: off),
        else the default cap; None where the memory cannot be read (no /proc)."""
        every = os.environ.get(EVERY_ENV, "").strip()
        if every.isdigit() and int(every) > 0:
            return cls(max_mb=None, every=int(every), min_commits=1)
        raw = os.environ.get(MAX_MB_ENV, "").strip()
        max_mb = int(raw) if raw.isdigit() else DEFAULT_MAX_MB
        if max_mb <= 0 or not Path("/proc/self/status").is_file():
            return None
        return cls(max_mb=max_mb)

    def due(self, walked: int) -> bool:
        """Whether the segment ends after ``walked`` commits of it."""
        if walked < self.min_commits:
            return False
        if self.every is not None:
            return walked >= self.every
        return walked % CHECK_EVERY == 0 and self.max_mb is not None and \
            tree_rss_mb(os.getpid()) >= self.max_mb


@dataclass
class Checkpoint:
    """Everything the next segment goes on from (see the module docstring)."""

    token: str
    head: str
    pipeline_version: str
    mode: str  # the run's own (full, resumed): the next segments keep it
    skip: int  # commits of the walk done
    total: int
    summary: IndexStats
    walk_stats: WalkStats
    anchoring: str  # the file of the anchorer's and the blame's state (saved by the worker)
    windows: dict[str, Any]
    writer: dict[str, Any]
    seconds: float  # the earlier segments' time


def new_token() -> str:
    return secrets.token_hex(8)


def save(folder: Path, checkpoint: Checkpoint) -> None:
    """Write it next to the index it belongs to (atomically: a torn file is never read)."""
    target = folder / CHECKPOINT
    part = target.with_suffix(".part")
    with open(part, "wb") as out:
        pickle.dump(checkpoint, out, protocol=5)
    os.replace(part, target)


def take(folder: Path | None, token: str | None, head: str,
         pipeline_version: str) -> Checkpoint | None:
    """The checkpoint written for ``token`` at ``head``, removed from disk; any other one is
    only removed (None)."""
    if folder is None:
        return None
    path = folder / CHECKPOINT
    if not path.is_file():
        (folder / ANCHOR_STATE).unlink(missing_ok=True)
        return None
    found: Checkpoint | None = None
    if token:
        try:
            with open(path, "rb") as source:
                found = pickle.load(source)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, TypeError):
            found = None
    path.unlink(missing_ok=True)
    if not isinstance(found, Checkpoint) or found.token != token or found.head != head \
            or found.pipeline_version != pipeline_version \
            or not (folder / found.anchoring).is_file():
        (folder / ANCHOR_STATE).unlink(missing_ok=True)
        return None
    return found


def tree_rss_mb(pid: int) -> int:
    """Resident memory of ``pid`` and every process below it (git, the anchor worker), in MB."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/status", "rb") as status:
                for line in status:
                    if line.startswith(b"VmRSS:"):
                        total += int(line.split()[1])
                        break
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", "rb") as children:
                    todo.extend(int(child) for child in children.read().split())
        except (OSError, ValueError):
            continue  # it ended meanwhile
    return total // 1024
