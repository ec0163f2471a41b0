"""One index run as its callers see it: progress events and the run's stats.

The pipeline calls a ``Progress`` callback and returns ``IndexStats``. ``whylens index --progress
json`` prints one JSON object per line — ``IndexEvent.to_json()`` while it runs, then
``IndexStats.to_json()`` — and the language server, which runs that command as a child process,
reads the lines back with ``parse_line``. Both ends use this module, so the wire cannot drift.
"""

from __future__ import annotations

import json
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# The phases of a run, in order: "mine" while commits stream (done/total count commits), then
# "records" (decision records), "commit" (the index is written) and "done".
PHASES = ("mine", "records", "commit", "done")

# progress(phase, done, total), phase one of PHASES
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class IndexEvent:
    """A progress line: ``{"event": "progress", "phase", "done", "total"}``."""

    phase: str
    done: int
    total: int

    def to_json(self) -> str:
        return json.dumps({"event": "progress", "phase": self.phase, "done": self.done,
                           "total": self.total})

    @property
    def percent(self) -> int | None:
        """Share done (capped at 99 until the run ends), None when the total is unknown."""
        return min(99, int(self.done * 100 / self.total)) if self.total else None


_PHASE_WORDS = {"records": "building decision records", "commit": "writing the index"}


def phase_message(event: IndexEvent) -> str:
    """What a run is doing, for a person: "mining 3408/101966 commits", "writing the index"."""
    if event.phase == "mine":
        if event.total:
            return f"mining {event.done}/{event.total} commits"
        # the count (``git rev-list --count``) can take seconds on a big history: the early
        # flushes (first hovers) come before it, and "reading history" then said nothing of them
        if not event.done:
            return "reading history"
        return f"mining {event.done} commit{'' if event.done == 1 else 's'}"
    return _PHASE_WORDS.get(event.phase, event.phase or "indexing")


@dataclass
class IndexStats:
    """What one run did; filled in by the pipeline as it goes, printed by `whylens index`."""

    index_dir: str
    head: str
    mode: str  # full | incremental | resumed | up-to-date
    commits_total: int = 0  # reachable from rev and not yet indexed
    commits_indexed: int = 0
    filtered: Counter[str] = field(default_factory=Counter)
    units: int = 0
    events: int = 0
    records: int = 0
    files_skipped: Counter[str] = field(default_factory=Counter)
    commits_file_level: int = 0  # commits over the anchorer's file cap: file history only
    blame_runs: int = 0  # line-blame rows written
    seconds: float = 0.0
    shallow: bool = False
    # commits whose objects the repository lacks (a partial clone, a pruned mirror): their files
    # whose contents are missing are in file history only (never fetched)
    commits_missing_objects: int = 0
    partial_clone: bool = False
    segments: int = 1  # processes a segmented backfill took (``pipeline.segments``)
    # a segment of a segmented backfill ended (``pipeline.segments``): the token its next
    # process resumes with (not part of the printed summary)
    next_segment: str | None = field(default=None, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "index_dir": self.index_dir, "head": self.head, "mode": self.mode,
            "commits_total": self.commits_total, "commits_indexed": self.commits_indexed,
            "filtered": dict(self.filtered), "units": self.units, "events": self.events,
            "records": self.records, "files_skipped": dict(self.files_skipped),
            "commits_file_level": self.commits_file_level, "blame_runs": self.blame_runs,
            "seconds": round(self.seconds, 3), "shallow": self.shallow,
            "commits_missing_objects": self.commits_missing_objects,
            "partial_clone": self.partial_clone, "segments": self.segments,
        }

    def to_json(self) -> str:
        """The last line of ``--progress json``: ``{"event": "done", **as_dict()}``."""
        return json.dumps({"event": "done", **self.as_dict()})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IndexStats:
        return cls(
            index_dir=str(data["index_dir"]), head=str(data["head"]), mode=str(data["mode"]),
            commits_total=int(data["commits_total"]), commits_indexed=int(data["commits_indexed"]),
            filtered=Counter(data["filtered"]), units=int(data["units"]),
            events=int(data["events"]), records=int(data["records"]),
            files_skipped=Counter(data["files_skipped"]),
            commits_file_level=int(data.get("commits_file_level", 0)),
            blame_runs=int(data.get("blame_runs", 0)), seconds=float(data["seconds"]),
            shallow=bool(data["shallow"]),
            commits_missing_objects=int(data.get("commits_missing_objects", 0)),
            partial_clone=bool(data.get("partial_clone", False)),
            segments=int(data.get("segments", 1)),
        )

    def missing_objects_note(self) -> str | None:
        """The one sentence a run that met missing objects is reported with (CLI, editor)."""
        if not self.commits_missing_objects:
            return None
        lacking = ("this partial clone lacks them; WhyLens never fetches" if self.partial_clone
                   else "the repository lacks them")
        return (f"{self.commits_missing_objects} commit(s) are indexed at file level or less: "
                f"objects they need are missing ({lacking})")

    def describe(self) -> str:
        """One line for a status bar: "indexed 12 new commits" or "index up to date"."""
        if self.commits_indexed:
            return f"indexed {self.commits_indexed} new commits"
        return "index up to date"


# The warm indexer child's line once its imports are done (``whylens.cli.warm``); not a progress
# line: ``parse_line`` reads it as None.
WARM_READY = '{"event": "warm"}'


def parse_line(raw: bytes | str) -> IndexEvent | IndexStats | None:
    """One line of ``whylens index --progress json``; None for anything else (a stray print)."""
    try:
        data = json.loads(raw)
        if not isinstance(data, dict):
            return None
        if data.get("event") == "progress":
            return IndexEvent(str(data["phase"]), max(int(data["done"]), 0),
                              max(int(data["total"]), 0))
        if data.get("event") == "done":
            return IndexStats.from_dict(data)
    except (ValueError, TypeError, KeyError):
        return None
    return None


class Eta:
    """Time left in an index run, from the pace of its mining so far.

    The pace is the commits mined over the latest ``WINDOW_SHARE`` of the mining time (at least
    ``MIN_WINDOW`` seconds): the first commits of a backfill are the newest and the slowest to
    anchor, and a history's cost per commit drifts, so neither the first pace nor the average
    since the start holds. The records and the index's final write come after the mining and
    take about ``TAIL_SHARE`` of its time; the estimate includes them.
    """

    WARMUP = 5.0  # seconds of mining (and commits: MIN_DONE) before a pace is trusted
    MIN_DONE = 20
    WINDOW_SHARE = 0.5
    MIN_WINDOW = 5.0
    TAIL_SHARE = 0.2
    TAIL_MAX = 60.0  # seconds: a segmented backfill wrote most of its index along the way

    def __init__(self, rate: float | None = None) -> None:
        """``rate``: the pace an earlier process of the same run measured (a segmented
        backfill); used until this one has its own."""
        self._samples: deque[tuple[float, int]] = deque()
        self._start: float | None = None  # the first commit mined in this process
        self._rate: float | None = rate
        self._mining_seconds: float | None = None  # the whole mining at the last pace
        self._tail_start: float | None = None

    @property
    def rate(self) -> float | None:
        """Commits per second, once measured (or as handed over)."""
        return self._rate

    def update(self, phase: str, done: int, total: int, now: float) -> float | None:
        """Seconds left in the run, or None while unknown."""
        if phase == "mine":
            return self._mining(done, total, now)
        if phase in ("records", "commit") and self._mining_seconds is not None:
            if self._tail_start is None:
                self._tail_start = now
            left = self._tail() - (now - self._tail_start)
            return left if left > 0 else None
        return None

    def _mining(self, done: int, total: int, now: float) -> float | None:
        if self._start is None:
            if done <= 0:
                return None
            self._start = now
        self._samples.append((now, done))
        elapsed = now - self._start
        if elapsed >= self.WARMUP and done - self._samples[0][1] >= self.MIN_DONE:
            window = max(self.MIN_WINDOW, self.WINDOW_SHARE * elapsed)
            while len(self._samples) > 2 and self._samples[1][0] <= now - window:
                self._samples.popleft()
            then, before = self._samples[0]
            if now > then and done > before:
                self._rate = (done - before) / (now - then)
        if not self._rate or total <= 0:
            return None
        self._mining_seconds = total / self._rate
        return max(total - done, 0) / self._rate + self._tail()

    def _tail(self) -> float:
        """Seconds the records and the final write take after the mining."""
        assert self._mining_seconds is not None
        return min(self.TAIL_SHARE * self._mining_seconds, self.TAIL_MAX)


def time_left(seconds: float | None) -> str:
    """"about 8 min left" (empty when unknown)."""
    if seconds is None:
        return ""
    if seconds < 90:
        return f"about {max(int(round(seconds / 5.0)) * 5, 5)} s left"
    if seconds < 90 * 60:
        return f"about {int(round(seconds / 60))} min left"
    return f"about {seconds / 3600:.1f} h left"
