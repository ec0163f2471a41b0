"""mine → extract → anchor → records → index, incremental, with progress callbacks.

One run indexes the commits reachable from ``rev`` that the index does not hold yet:
- full rebuild when there is no index, the pipeline version changed, or the last indexed commit
  is no longer an ancestor of ``rev`` (force-push, rebase): units of vanished commits go with it;
- otherwise only ``rev ^last_sha``; commits already present (a killed run) are not written
  again, so a run that was interrupted resumes where it stopped (it anchors them again: file
  states and blame are carried from commit to commit).
Newest commits come first and are flushed every few seconds, so a big backfill answers early.
Memory stays bounded: commits stream through, only a window of them is kept for the decision
records (``records``), blame is written as it comes (``blame``). Symbol anchoring and blame, most
of the CPU, run in a worker process for big runs (see ``anchoring``), overlapping with unit
extraction and index writes here.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from collections import Counter
from dataclasses import asdict, replace
from datetime import datetime, timezone
from pathlib import Path

from whylens.errors import IndexCorruptError
from whylens.history.blobs import BlobReader
from whylens.history.links import WebLinks
from whylens.history.merges import MergeFiles
from whylens.history.repo import open_repository
from whylens.history.walk import WalkStats, memory_pins, walk
from whylens.index import changelog
from whylens.index.store import PIPELINE_VERSION, IndexStore, outdated_reason
from whylens.knowledge.extract import extract_units
from whylens.locate import locate
from whylens.models import FORMATTING_KIND, Commit, SymbolEvent
from whylens.pipeline.anchoring import (
    BLOB_CACHE_BYTES,
    Anchoring,
    InProcessAnchoring,
    WorkerAnchoring,
    wants_worker,
)
from whylens.pipeline.blame import IncrementalBlame, blamed_files
from whylens.pipeline.lookback import earlier_commits
from whylens.pipeline.records import RecordWindows
from whylens.pipeline.segments import (
    ANCHOR_STATE, Checkpoint, SegmentPolicy, new_token, save, take,
)
from whylens.progress import IndexStats, Progress
from whylens.symbols.skip import path_skip_reason

log = logging.getLogger(__name__)

# The first flush comes early so a big backfill answers within seconds (the walk is newest
# first: it holds the recent history hovers ask about); each later one waits the cap. A flush
# makes a Whoosh segment that slows search until the commit merges it, and every document it
# wrote is read back and rewritten by that merge: doubling the wait from the first (1, 3, 7, 15,
# 31 s...) had a 12-second psf/requests rebuild write most of its documents twice. Until the
# walk has passed ``EARLY_FLUSH_COMMITS`` the flushes stay ``FIRST_FLUSH_SECONDS`` apart: the
# first one often comes with a single commit (the anchor worker is still starting when the
# second is due), and on a 100k-commit history the next, 60 s later, was the first to hold the
# commits just below the newest (first hover 45 s after opening the folder, load 6.5). Only a
# first index (no generation published yet) flushes early: an update answers from the last one.
FIRST_FLUSH_SECONDS = 1.0
EARLY_FLUSH_COMMITS = 250
MAX_FLUSH_SECONDS = 60.0
BATCH_COMMITS = 400  # hand work to the index writer in batches of this many commits


def _read_meta(store: IndexStore) -> dict:
    """The index meta, or {} when there is no index or it cannot be read (then it is rebuilt:
    derived data, rather than asking the user to delete it)."""
    try:
        return store.read_meta() if store.exists() else {}
    except IndexCorruptError:
        log.warning("the index at %s could not be read; rebuilding it from git", store.path)
        return {}


def _plan(repo, meta: dict, head: str) -> tuple[str, list[str]]:
    """Choose the mode and the commits to exclude from the walk."""
    if not meta:
        return "full", []
    outdated = outdated_reason(meta)
    if outdated:
        log.warning("%s; rebuilding it", outdated)  # said once: the rebuild stamps the versions
        return "full", []
    last = meta.get("last_sha")
    if last and last == head:
        return "up-to-date", []
    if last and not repo.is_ancestor(last, head):
        return "full", []
    if not last or meta.get("complete_head") != last:
        # A killed run left last_sha at the previous complete run (or unset): resume, skipping
        # the commits it already wrote.
        return "resumed", [last] if last else []
    return "incremental", [last]


def _slim(commit: Commit) -> Commit:
    """Drop hunks and patch text once anchored: records only need paths, the commit document
    the changelog entry the patches add."""
    changes = tuple(replace(change, hunks=(), patch=b"") for change in commit.changes)
    return replace(commit, changes=changes, changelog=changelog.entry(commit.changes))


def run_index(
    repo_path: str | Path,
    index_dir: str | Path | None = None,
    rev: str = "HEAD",
    progress: Progress | None = None,
    anchor_worker_min_commits: int | None = None,
    segments: SegmentPolicy | None = None,
    resume_segment: str | None = None,
) -> IndexStats:
    """Index the new commits reachable from ``rev``; see the module docstring.

    ``anchor_worker_min_commits``: anchor in a worker process when at least this many commits
    are new (default: $WHYLENS_ANCHOR_WORKER_MIN_COMMITS, else 500 on 2+ cores, else never).
    ``segments``: a first backfill may end early (``pipeline.segments``): the summary's
    ``next_segment`` is then the token of a checkpoint, and a call with ``resume_segment`` set
    to it (in a fresh process, to give the memory back) goes on from there.
    """
    started = time.monotonic()
    report = progress or (lambda phase, done, total: None)
    where = locate(repo_path, index_dir)
    with open_repository(where) as repo:
        head = repo.resolve(rev)
        target = where.index_dir
        store = IndexStore(target)
        prior_meta = _read_meta(store)
        mode, exclude = _plan(repo, prior_meta, head)
        current = _current(store)
        ck = take(current, resume_segment, head, PIPELINE_VERSION) if mode == "resumed" else None
        if ck is not None:  # the next segment of a segmented backfill: as its first one was
            mode, exclude, started = ck.mode, [], started - ck.seconds
            ck.summary.next_segment = None
            ck.summary.segments += 1
        summary = ck.summary if ck is not None else IndexStats(str(target), head, mode,
                                                                  shallow=repo.is_shallow)
        if mode == "up-to-date":
            summary.seconds = time.monotonic() - started
            return summary
        total = _Total(repo, head, exclude, known=ck.total if ck is not None else None)
        probe = total.at_least(WORKER_PROBE)  # exact for a small history
        report("mine", ck.skip if ck is not None else 0, total.value())
        links = WebLinks.from_remote(repo.remote_url() or "")

        with contextlib.ExitStack() as stack:
            # What a killed run stored: skipped when resuming (only then is a reader opened:
            # it imports and opens the search side, a third of a one-commit update's time).
            resumed = stack.enter_context(contextlib.closing(store.reader())) \
                if mode == "resumed" else None
            first = current is None  # a first index is readable from its first flush
            writer = stack.enter_context(
                store.writer(rebuild=(mode == "full" and ck is None),
                             continued=ck.writer if ck is not None else None))
            # what only the walk needs (git's processes, the anchor worker) is closed before the
            # final merge, the indexer's largest moment (a 100k history: 337 MB beside 340 MB of
            # worker and git that had nothing left to do)
            mining = stack.enter_context(contextlib.ExitStack())
            blobs = mining.enter_context(BlobReader(repo, BLOB_CACHE_BYTES))
            writer.set_meta(pipeline_version=PIPELINE_VERSION, repo=str(repo.root), rev=rev,
                            shallow=repo.is_shallow, web_base=links.base if links else None,
                            web_kind=links.kind if links else None, complete_head=None,
                            github_export=prior_meta.get("github_export"))
            attributes = repo.gitattributes(head)
            head_blobs = blamed_files(repo, head, attributes)
            state = str(writer.folder / ck.anchoring) if ck is not None else None
            chosen: Anchoring = (
                WorkerAnchoring(where.root, attributes, head_blobs, state_file=state)
                if wants_worker(probe, anchor_worker_min_commits)
                else InProcessAnchoring(blobs.read, attributes, head_blobs,
                                        mining.enter_context(MergeFiles(repo)), state_file=state))
            anchoring = mining.enter_context(chosen)
            source = _SourcePaths(attributes)
            walked = ck.walk_stats if ck is not None else WalkStats()
            skip = ck.skip if ck is not None else 0
            commits = mining.enter_context(contextlib.closing(
                walk(repo, head, exclude=exclude, keep_patch=source, stats=walked, skip=skip)))
            # A first run (even resumed) writes blame as it goes; a later one replaces it.
            last = prior_meta.get("last_sha") if mode != "full" else None
            blame = IncrementalBlame(repo, last, blobs.read) if last else None
            if resumed is not None and ck is None:
                _forget_vanished(repo, writer, resumed, head)
            lookback = functools.partial(earlier_commits, repo, writer, last) \
                if mode == "incremental" and last else None
            windows = RecordWindows(writer, prior_meta.get("github_export"), mode == "full",
                                    lookback=lookback)
            if ck is not None:
                windows.restore(ck.windows)
                ck.windows = {}  # handed over: kept, its first commits would stay all segment
            # only a first backfill is cut (one readable from its first flush): see segments
            policy = segments if (blame is None and not windows.whole
                                  and (first or writer.published)) else None
            miner = _Miner(anchoring, writer, resumed, windows, blame, summary, report, total,
                           early=first)
            if miner.run(commits, skip, policy, str(writer.folder / ANCHOR_STATE)):
                checkpoint = Checkpoint(
                    new_token(), head, PIPELINE_VERSION, mode, skip + miner.walked,
                    total.value(wait=True), summary, walked, ANCHOR_STATE, windows.checkpoint(),
                    {}, time.monotonic() - started)
                mining.close()  # the worker has saved its state and exited
                checkpoint.writer = writer.suspend()
                save(writer.folder, checkpoint)
                summary.next_segment = checkpoint.token
                return summary
            summary.commits_total = total.value(wait=True)
            report("records", 0, 1)
            windows.finish()
            summary.records = windows.records
            if blame is not None:
                summary.blame_runs = blame.finish(writer, anchoring.leftover())
            stats = dict(anchoring.stats)
            summary.files_skipped.update(stats.get("files_skipped", {}))
            summary.commits_file_level = stats.get("commits_file_level", 0)
            summary.commits_missing_objects = stats.get("commits_missing_objects", 0)
            summary.partial_clone = walked.partial_clone
            mining.close()
            report("commit", 0, 1)
            writer.set_meta(last_sha=head, complete_head=head, indexed_at=_now(),
                            anchor_stats=_jsonable(stats), partial_clone=walked.partial_clone,
                            walk_stats=asdict(walked))
            writer.commit()
    summary.seconds = time.monotonic() - started
    report("done", summary.commits_indexed, summary.commits_total)
    return summary


WORKER_PROBE = 1_000  # commits counted at once to choose where to anchor (the rest later)


class _Total:
    """The number of commits the walk will yield, counted by a ``git rev-list --count`` running
    beside the walk (on a 100k-commit history without a commit-graph it takes seconds);
    ``at_least(n)`` answers min(count, n) at once. ``known``: counted by an earlier segment."""

    def __init__(self, repo, head: str, exclude: list[str], known: int | None = None) -> None:
        self._repo = repo
        self._args = [head, *(f"^{repo.resolve(sha)}" for sha in exclude), "--"]
        # pinned like the walk: counting git/git's 100k commits mapped 205 MB of pack otherwise
        self._proc = None if known is not None else repo.popen(
            [*memory_pins(), "rev-list", "--count", *self._args])
        self._value: int | None = known

    def at_least(self, n: int) -> int:
        if self._value is not None:
            return min(self._value, n)
        _, out, _ = self._repo.run("rev-list", "--count", f"--max-count={n}", *self._args)
        found = int(out.strip() or 0)
        if found < n and self._value is None:  # fewer than asked: that is the count
            self._value = found
        return found

    def value(self, wait: bool = False) -> int:
        """The count once known (0 before, unless ``wait``)."""
        if self._proc is not None and (self._value is None or wait) and (
                wait or self._proc.poll() is not None):
            out = self._proc.stdout.read() if self._proc.stdout else b""
            self._proc.close()
            self._proc = None
            self._value = int(out.strip() or 0)
        return self._value or 0


class _SourcePaths:
    """``keep_patch`` for the walk: the files the anchorer anchors, and changelog files (their
    added entries go into the commit document; the anchorer skips them). Cached per path."""

    def __init__(self, attributes) -> None:
        self._attributes = attributes
        self._known: dict[str, bool] = {}

    def __call__(self, path: str) -> bool:
        known = self._known.get(path)
        if known is None:
            if len(self._known) > 200_000:
                self._known.clear()
            known = self._known[path] = (changelog.is_changelog(path)
                                         or path_skip_reason(path, self._attributes) is None)
        return known


class _Miner:
    """Every walked commit, newest first: anchored (all of them, since file states and blame
    are carried from commit to commit), and, unless a killed run already stored it, its units,
    events and row written; its blame and its part in the decision records either way."""

    def __init__(self, anchoring, writer, resumed, windows: RecordWindows,
                 blame: IncrementalBlame | None, summary: IndexStats,
                 report: Progress, total: _Total, early: bool = False) -> None:
        self.anchoring, self.writer, self.resumed = anchoring, writer, resumed
        self.early = early  # a first index: flushes stay close until EARLY_FLUSH_COMMITS
        self.windows, self.blame, self.summary, self.report = windows, blame, summary, report
        self.total = total
        self.walked = 0  # commits taken from the walk (this segment)

    def run(self, commits, skip: int = 0, policy: SegmentPolicy | None = None,
            state_file: str = "") -> bool:
        """Mine the walk's commits (past the first ``skip``); True when ``policy`` ended the
        segment: the walk was left after ``self.walked`` commits and the anchoring's state
        saved in ``state_file`` (``Anchoring.checkpointing``)."""
        writer, summary = self.writer, self.summary
        batch: list[Commit] = []
        # a segment's successor (``skip``) goes on with a readable index: no early flushes (each
        # new process made seven segments in its first minute, which MERGE_SMALL then rewrote)
        interval = MAX_FLUSH_SECONDS if skip else FIRST_FLUSH_SECONDS
        next_flush = time.monotonic() + interval
        early_until = EARLY_FLUSH_COMMITS if self.early and not skip else 0
        walked = skip
        cut = [False]

        def until_cut():
            for commit in commits:
                yield commit
                self.walked += 1
                if policy is not None and not cut[0] and policy.due(self.walked):
                    cut[0] = True
                    self.anchoring.checkpointing = state_file
                    return

        for commit, events, runs in self.anchoring.anchored(until_cut()):
            walked += 1
            slim = _slim(commit)
            if self.resumed is None or not self.resumed.has_commit(commit.sha):
                changes = self._write(commit, events)
                batch.append(slim)
            else:  # records are built from the events as stored, here as a killed run stored them
                changes = self.resumed.events_of(commit.sha)
            if self.blame is None:
                writer.add_blame(runs)
            else:
                self.blame.add(commit, runs)
            summary.blame_runs += len(runs)
            self.windows.add(slim, changes)
            if len(batch) >= BATCH_COMMITS:
                writer.add_commits(batch)
                batch = []
                self.report("mine", walked, self.total.value())
            if time.monotonic() > next_flush:
                writer.add_commits(batch)
                batch = []
                writer.flush()
                self.report("mine", walked, self.total.value())
                if walked >= early_until:  # an update has a readable index: one early flush
                    interval = MAX_FLUSH_SECONDS
                next_flush = time.monotonic() + interval
        writer.add_commits(batch)
        self.report("mine", walked, self.total.value(wait=cut[0] is False))
        return cut[0]

    def _write(self, commit: Commit, events: list[SymbolEvent]) -> list[SymbolEvent]:
        """Store the commit's units and events; returns its substantive events as stored
        (what ``IndexReader.events_of`` reads back), which the decision records are built from.
        Formatting events are stored for the card's collapsed line, never counted as changes."""
        changes = [e for e in events if e.kind != FORMATTING_KIND]
        units = extract_units(commit, files=tuple(c.path for c in commit.changes),
                              symbols=tuple(dict.fromkeys(e.symbol for e in changes)),
                              events=changes)
        self.writer.add_units(units)
        stored = [e for e in self.writer.add_events(events) if e.kind != FORMATTING_KIND]
        summary = self.summary
        summary.commits_indexed += 1
        summary.units += len(units)
        summary.events += len(stored)
        if commit.skip_reason:
            summary.filtered[commit.skip_reason] += 1
        return stored


def _current(store: IndexStore) -> Path | None:
    try:
        return store.current_generation()
    except IndexCorruptError:
        return None


def _forget_vanished(repo, writer, resumed, head: str) -> None:
    """Commits a killed run wrote that left the branch before this resume (a rebase, a reset):
    removed, with their units, records and events, before the walk, so the records resting on
    them are rebuilt without them, as a clean run would have them."""
    _, out, _ = repo.run("rev-list", head, "--")
    stale = resumed.commit_shas() - set(out.decode("ascii", "replace").split())
    if stale:
        log.info("forgetting %d commits that left the history since the killed run", len(stale))
        writer.remove_commits(sorted(stale))


def _jsonable(stats: dict) -> dict:
    return {k: (dict(v) if isinstance(v, Counter) else v) for k, v in stats.items()}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
