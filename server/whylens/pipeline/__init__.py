"""mine → extract → anchor → records → index, incremental, with progress callbacks.

One run indexes the commits reachable from ``rev`` that the index does not hold yet:
- full rebuild when there is no index, the pipeline version changed, or the last indexed commit
  is no longer an ancestor of ``rev`` (force-push, rebase): units of vanished commits go with it;
- otherwise only ``rev ^last_sha``; commits already present (a killed run) are skipped, so a run
  that was interrupted resumes where it stopped.
Newest commits come first and are flushed every few seconds, so a big backfill answers early.
Symbol anchoring, most of the CPU, runs in a worker process for big runs (see ``anchoring``),
overlapping with unit extraction and index writes here.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections import Counter, deque
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from whylens.errors import IndexCorruptError, WhyLensError
from whylens.history.blobs import BlobReader
from whylens.history.links import WebLinks
from whylens.history.repo import open_repository
from whylens.history.walk import walk
from whylens.index.store import PIPELINE_VERSION, IndexStore, outdated_reason
from whylens.knowledge.extract import extract_units
from whylens.locate import locate
from whylens.models import Commit
from whylens.pipeline.anchoring import (
    Anchoring,
    InProcessAnchoring,
    WorkerAnchoring,
    wants_worker,
)
from whylens.progress import IndexStats, Progress
from whylens.records.github import load_export, merge_tracker
from whylens.records.history import build_records, coalesce_with
from whylens.records.reverts import revert_pairs

log = logging.getLogger(__name__)

# The first flush comes early so a big backfill answers within seconds; each later one waits
# twice as long (up to the cap), because every Whoosh flush makes a segment that slows search.
FIRST_FLUSH_SECONDS = 2.0
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
    """Drop hunks once anchored: records only need paths, and a long history must fit in memory."""
    changes = tuple(replace(change, hunks=()) for change in commit.changes)
    return replace(commit, changes=changes)


def run_index(
    repo_path: str | Path,
    index_dir: str | Path | None = None,
    rev: str = "HEAD",
    progress: Progress | None = None,
    anchor_worker_min_commits: int | None = None,
) -> IndexStats:
    """Index the new commits reachable from ``rev``; see the module docstring.

    ``anchor_worker_min_commits``: anchor in a worker process when at least this many commits
    are new (default: $WHYLENS_ANCHOR_WORKER_MIN_COMMITS, else 500 on 2+ cores, else never).
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
        summary = IndexStats(str(target), head, mode, shallow=repo.is_shallow)
        if mode == "up-to-date":
            summary.seconds = time.monotonic() - started
            return summary
        summary.commits_total = repo.count(head, exclude=exclude)
        report("mine", 0, summary.commits_total)
        links = WebLinks.from_remote(repo.remote_url() or "")

        with contextlib.ExitStack() as stack:
            # What earlier runs stored: skipped when resuming, merged into when adding records.
            previous = None if mode == "full" else stack.enter_context(
                contextlib.closing(store.reader()))
            blobs = stack.enter_context(BlobReader(repo))
            writer = stack.enter_context(store.writer(rebuild=(mode == "full")))
            writer.set_meta(pipeline_version=PIPELINE_VERSION, repo=str(repo.root), rev=rev,
                            shallow=repo.is_shallow, web_base=links.base if links else None,
                            web_kind=links.kind if links else None, complete_head=None,
                            github_export=prior_meta.get("github_export"))
            attributes = repo.gitattributes(head)
            chosen: Anchoring = (
                WorkerAnchoring(where.root, attributes)  # the repository opened here
                if wants_worker(summary.commits_total, anchor_worker_min_commits)
                else InProcessAnchoring(blobs.read, attributes))
            anchoring = stack.enter_context(chosen)
            resumed = previous if mode == "resumed" else None
            commits = stack.enter_context(contextlib.closing(walk(repo, head, exclude=exclude)))
            mined, events, walked = _mine(commits, anchoring, writer, resumed, summary, report)
            report("records", 0, 1)
            stale = _forget_vanished(repo, writer, resumed, walked, exclude)
            # Records and reverts are built at the end of a run, so commits a killed run already
            # wrote take part again, with the events stored for them.
            _write_records(writer, walked, events, previous, prior_meta.get("github_export"),
                           summary, stale)
            summary.files_skipped.update(anchoring.stats.get("files_skipped", {}))
            report("commit", 0, 1)
            writer.set_meta(last_sha=head, complete_head=head, indexed_at=_now(),
                            anchor_stats=_jsonable(dict(anchoring.stats)))
            writer.commit()
    summary.seconds = time.monotonic() - started
    report("done", summary.commits_indexed, summary.commits_total)
    return summary


def _mine(commits, anchoring, writer, resumed, summary: IndexStats, report: Progress):
    """Anchor and extract every new commit, writing as it goes.

    Returns the slim new commits, the events of every walked commit, and every walked commit in
    walk order (new ones and, when resuming, the ones ``resumed`` — the index — already holds).
    """
    mined: list[Commit] = []
    batch: list[Commit] = []
    events_by_commit: dict[str, list] = {}
    next_flush = time.monotonic() + FIRST_FLUSH_SECONDS
    interval = FIRST_FLUSH_SECONDS
    new = _NewCommits(commits, resumed)  # anchoring may run ahead of this loop
    for commit, events in anchoring.anchored(new):
        seen = new.positions.popleft()
        symbols = tuple(dict.fromkeys(e.symbol for e in events))
        units = extract_units(commit, files=tuple(c.path for c in commit.changes),
                              symbols=symbols, events=events)
        writer.add_units(units)
        # records are built from the events as stored: what a resumed run reads back
        events = events_by_commit[commit.sha] = writer.add_events(events)
        summary.units += len(units)
        summary.events += len(events)
        if commit.skip_reason:
            summary.filtered[commit.skip_reason] += 1
        slim = _slim(commit)
        mined.append(slim)
        batch.append(slim)
        if len(batch) >= BATCH_COMMITS:
            writer.add_commits(batch)
            batch = []
            report("mine", seen, summary.commits_total)
        if time.monotonic() > next_flush:
            writer.add_commits(batch)
            batch = []
            writer.flush()
            interval = min(interval * 2, MAX_FLUSH_SECONDS)
            next_flush = time.monotonic() + interval
    writer.add_commits(batch)
    summary.commits_indexed = len(mined)
    report("mine", new.walked, summary.commits_total)
    events_by_commit.update(new.stored_events)
    by_sha = {c.sha: c for c in mined} | new.stored
    return mined, events_by_commit, [by_sha[sha] for sha in new.order if sha in by_sha]


class _NewCommits:
    """The walk minus the commits already indexed; remembers each new commit's walk position,
    the walk order, and the commits (slim) and events the index already held."""

    def __init__(self, commits, resumed) -> None:
        self._commits, self._resumed = commits, resumed
        self.walked = 0
        self.positions: deque[int] = deque()
        self.order: list[str] = []
        self.stored: dict[str, Commit] = {}
        self.stored_events: dict[str, list] = {}

    def __iter__(self):
        for commit in self._commits:
            self.walked += 1
            self.order.append(commit.sha)
            if self._resumed is not None and self._resumed.has_commit(commit.sha):
                self.stored[commit.sha] = _slim(commit)
                self.stored_events[commit.sha] = self._resumed.events_of(commit.sha)
                continue
            self.positions.append(self.walked)
            yield commit


def _forget_vanished(repo, writer, resumed, walked, exclude) -> frozenset[str]:
    """Commits a killed run wrote that left the branch before this resume (a rebase, a reset):
    removed with their units, records and events, as a clean run would not have them."""
    if resumed is None:
        return frozenset()
    kept = {c.sha for c in walked}
    if exclude:  # what earlier complete runs indexed: reachable from the last complete head
        _, out, _ = repo.run("rev-list", *exclude, "--")
        kept.update(out.decode("ascii", "replace").split())
    stale = frozenset(resumed.commit_shas() - kept)
    if stale:
        log.info("forgetting %d commits that left the history since the killed run", len(stale))
        writer.remove_commits(sorted(stale))
    return stale


def _write_records(writer, mined, events_by_commit, previous, export_dir, summary,
                   stale: frozenset[str] = frozenset()) -> None:
    """Decision records of the new commits, merged with stored ones and the tracker export."""
    records = build_records(mined, events_by_commit)
    if previous is not None:  # an issue fixed across two runs keeps all its work
        def stored(record_id):  # a record that rests on a vanished commit is rebuilt
            old = previous.record(record_id)
            return None if old is not None and stale & set(old.fixing_commits) else old

        records = coalesce_with(records, stored)
    elif export_dir and Path(export_dir).is_dir():  # a rebuild re-applies the imported export
        try:
            records = merge_tracker(records, load_export(export_dir), mined, events_by_commit)
        except WhyLensError as exc:  # a damaged export must not cost the whole rebuild
            log.warning("the tracker export at %s was not re-applied: %s", export_dir, exc)
            writer.set_meta(github_export=None)
    writer.add_records(records)
    writer.add_reverts(revert_pairs(mined))
    summary.records = len(records)


def _jsonable(stats: dict) -> dict:
    return {k: (dict(v) if isinstance(v, Counter) else v) for k, v in stats.items()}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
