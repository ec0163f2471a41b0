"""Decision records from the history alone (always available, offline).

One record per piece of work found in the commits given:
- a PR merged as a merge commit (``Merge pull request #N from …``) with the commits it brought in
  (reachable from the second parent and not from the first, within the commits given), or
  squash-merged (``… (#N)``, the PR description in the body) → ``pr-N``;
- a closing keyword in that work (``fixes #12``) coalesces it into ``issue-12``, owned by the issue,
  with the PR as ``partner``; a commit outside any PR that closes an issue also gives ``issue-N``;
- a standalone commit whose message carries rationale (a cause, a decision or rejected-alternative
  marker, or a body of substance) → ``commit-<sha12>``.
The fix edge of every one of these comes from text (a subject, a keyword, the commit itself), so
``fix_edge_source`` is ``text``. Given only new commits, it builds the records of the work in them;
``coalesce`` merges a new record into one already stored under the same id.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

from whylens.history.links import closing_refs, pr_number, revert_subject
from whylens.knowledge.clean import clean_inline
from whylens.knowledge.features import commit_kind
from whylens.knowledge.subjects import housekeeping_work
from whylens.models import Commit, Record, SymbolEvent
from whylens.records.about import explained_anchors
from whylens.records.extract import (
    CAUSE, DECISION, REJECTED, explains, extract_fields, supersedes_refs, thread_shape,
)
from whylens.records.thread import ThreadBuilder, commit_thread, paragraphs, strip_pr_suffix

SKIPPED = ("bot", "release", "trivial", "ignored")
MAX_ANCHORS = 40  # anchors kept when records of one piece of work are coalesced
SWEEPING_SYMBOLS = 25  # work that changed more symbols than this is anchored to none
MAX_FILES = 60
SUBSTANTIVE_BODY_WORDS = 12  # a body this long explains something even without a marker phrase

_MERGE_PR = re.compile(r"^Merge pull request #(\d+) from (\S+)", re.IGNORECASE)
_SQUASH_PR = re.compile(r"\((?:[\w.-]+/[\w.-]+)?#(\d+)\)\s*$")
_WORD = re.compile(r"[A-Za-z]{3,}")


@dataclass
class _Work:
    """A record being assembled: the commits of one piece of work and their prose."""

    id: str
    kind: str
    number: int | None
    title: str
    landing: Commit
    commits: list[Commit] = field(default_factory=list)  # fixing commits, landing first
    # How to assemble its thread, in order: run by ``_finish`` only for the records a round
    # wants (each commit is in two rounds; the prose cleaning is the costly part)
    thread: list[Callable[[ThreadBuilder], object]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)  # raw messages, for supersedes refs
    partner: int | None = None
    author: str = ""


def build_records(commits: list[Commit], events_by_commit: dict[str, list[SymbolEvent]],
                  wanted: Callable[[str, tuple[str, ...]], bool] | None = None) -> list[Record]:
    """The records of the work in ``commits`` (any order), newest first. ``wanted(id,
    fixing_commits)``, when given, chooses the records to finish (the rest are left out before
    their fields are extracted, the costly part)."""
    by_sha = {c.sha: c for c in commits}
    ordered = sorted(commits, key=lambda c: (c.timestamp, c.sha))
    claimed: set[str] = set()
    works: dict[str, _Work] = {}
    depth = generations(by_sha)

    for commit in ordered:
        number = _merged_pr(commit)
        if number is None or _skipped(commit):
            continue
        # oldest first, so a PR merged into a release branch was already claimed by its own merge
        brought = [c for c in brought_in(commit, by_sha, depth) if c.sha not in claimed]
        claimed.add(commit.sha)
        claimed.update(c.sha for c in brought)
        if brought and all(c.skip_reason in ("bot", "release", "merge") for c in brought):
            continue  # a dependency bump merged as a PR, or an integration of other PRs
        if not brought and any(p in claimed for p in commit.parents[1:]):
            continue  # a release branch whose every commit came through its own PR
        _add(works, _merge_work(commit, number, brought))

    for commit in ordered:
        if commit.sha in claimed or _skipped(commit) or len(commit.parents) > 1:
            continue
        number = _squashed_pr(commit)
        if number is not None:
            _add(works, _squash_work(commit, number))
            continue
        refs = closing_refs(commit.message)
        if refs:
            work = _Work(f"issue-{refs[0]}", "issue", refs[0], strip_pr_suffix(commit.subject), commit,
                         [commit], author=commit.author)
            work.thread.append(partial(commit_thread, commit))
            work.raw.append(commit.message)
            _add(works, work)
        elif _has_rationale(commit):
            work = _Work(f"commit-{commit.sha[:12]}", "commit", None, commit.subject, commit, [commit],
                         author=commit.author)
            work.thread.append(partial(commit_thread, commit))
            work.raw.append(commit.message)
            _add(works, work)

    records = [_finish(w, events_by_commit) for w in works.values()
               if wanted is None or wanted(w.id, tuple(c.sha for c in w.commits))]
    records.sort(key=lambda r: (r.date, r.id), reverse=True)
    return records


def coalesce(old: Record, new: Record) -> Record:
    """One record for work seen in two runs (an issue fixed by two PRs): fixing commits, thread,
    anchors and files are unioned; the newer run's fields fill what the older one lacked."""
    if old.id != new.id:
        raise ValueError(f"cannot coalesce {old.id} with {new.id}")
    builder = ThreadBuilder()
    builder.extend(old.thread)
    offset = len(builder.units)
    builder.extend(new.thread)
    renumber = {u.id: f"U{int(u.id[1:]) + offset}" for u in new.thread}

    def moved(claims):
        return tuple(replace(c, unit=renumber.get(c.unit, c.unit)) for c in claims)

    merged = lambda a, b: tuple(dict.fromkeys((*a, *b)))  # noqa: E731
    return replace(
        old,
        problem=old.problem or (moved((new.problem,))[0] if new.problem else None),
        cause=(old.cause + moved(new.cause))[:3],
        decision=(old.decision + moved(new.decision))[:3],
        rejected=(old.rejected + moved(new.rejected))[:3],
        fixing_commits=merged(old.fixing_commits, new.fixing_commits),
        partner=old.partner or new.partner,
        merged=old.merged or new.merged,
        supersedes=merged(old.supersedes, new.supersedes),
        thread=builder.freeze(),
        anchors=merged(old.anchors, new.anchors)[:MAX_ANCHORS],
        files=merged(old.files, new.files)[:MAX_FILES],
        date=max(old.date, new.date),
        fix_edge_source=_stronger_edge(old.fix_edge_source, new.fix_edge_source),
    )


def coalesce_with(records: list[Record], stored) -> list[Record]:
    """Records of an incremental run merged into what is stored under the same ids.

    ``stored(record_id) -> Record | None`` reads the index. Work seen again with no new commit
    (a resumed run) keeps the stored record, so a tracker-enriched record is not lost.
    """
    out = []
    for record in records:
        old = stored(record.id)
        if old is None:
            out.append(record)
        elif set(record.fixing_commits) <= set(old.fixing_commits):
            out.append(record if set(record.fixing_commits) == set(old.fixing_commits)
                       and old.fix_edge_source == record.fix_edge_source and old.distilled_by == "rules"
                       else old)
        else:
            out.append(coalesce(old, record))
    return out


def _stronger_edge(a: str, b: str) -> str:
    rank = {"provider": 2, "text": 1, "none": 0}
    return a if rank.get(a, 0) >= rank.get(b, 0) else b


def _skipped(commit: Commit) -> bool:
    return commit.skip_reason in SKIPPED


def _merged_pr(commit: Commit) -> int | None:
    if len(commit.parents) < 2:
        return None
    match = _MERGE_PR.match(commit.subject)
    return int(match.group(1)) if match else None


def _squashed_pr(commit: Commit) -> int | None:
    if revert_subject(commit.subject):
        return None  # `Revert "Fix x (#12)"` is not PR 12 landing again
    if not _SQUASH_PR.search(commit.subject):
        return None
    return commit.pr or pr_number(commit.subject)


def brought_in(merge: Commit, by_sha: dict[str, Commit], depth: dict[str, int] | None = None) -> list[Commit]:
    """Commits reachable from the second parent but not the first, among the known commits.

    Paints both sides deepest first (as git's merge-base does, by generation rather than date,
    so skewed author dates cannot fool it) and stops once every commit still queued is known to
    be on the mainline: the cost follows the branch, not the history.
    """
    depth = depth if depth is not None else generations(by_sha)
    main, side = 1, 2
    flags: dict[str, int] = {}
    heap: list[tuple[int, str, int]] = []
    side_only = 0  # queued entries not (yet) known to be on the mainline

    def push(sha: str, flag: int) -> None:
        nonlocal side_only
        if sha in by_sha:
            heapq.heappush(heap, (-depth[sha], sha, flag))
            side_only += flag == side

    push(merge.parents[0], main)
    push(merge.parents[1], side)
    while heap and side_only:
        _, sha, flag = heapq.heappop(heap)
        side_only -= flag == side
        old = flags.get(sha, 0)
        if old | flag == old:
            continue
        flags[sha] = old | flag
        for parent in by_sha[sha].parents:
            push(parent, old | flag)
    picked = [by_sha[s] for s, f in flags.items() if f == side]
    return sorted(picked, key=lambda c: (c.timestamp, c.sha))


def generations(by_sha: dict[str, Commit]) -> dict[str, int]:
    """1 + the longest parent chain among the known commits: an ancestor is always shallower."""
    depth: dict[str, int] = {}
    for start in by_sha:
        stack = [start]
        while stack:
            sha = stack[-1]
            if sha in depth:
                stack.pop()
                continue
            missing = [p for p in by_sha[sha].parents if p in by_sha and p not in depth]
            if missing:
                stack.extend(missing)
                continue
            depth[sha] = 1 + max((depth[p] for p in by_sha[sha].parents if p in by_sha), default=0)
            stack.pop()
    return depth


def _merge_work(merge: Commit, number: int, brought: list[Commit]) -> _Work:
    lines = [ln.strip() for ln in merge.body.splitlines() if ln.strip()]
    found = _MERGE_PR.match(merge.subject)
    assert found is not None  # _merged_pr matched it
    branch = found.group(2).split("/", 1)[-1]
    title = lines[0] if lines else re.sub(r"[-_]+", " ", branch)
    authored = [c for c in brought if not _skipped(c) and c.skip_reason != "merge" and len(c.parents) < 2]
    work = _Work(f"pr-{number}", "pr", number, title, merge, [merge, *brought],
                 author=(authored or brought or [merge])[0].author)
    author = work.author
    work.thread.append(lambda builder: builder.add_paragraph(_headline(title), "description", author))
    work.thread.append(lambda builder: builder.add_text(
        "\n".join(merge.body.splitlines()[1:]), "description", author))
    work.raw.append(merge.body)
    for commit in authored:
        work.thread.append(partial(commit_thread, commit,
                                   title=not _same_words(commit.subject, title)))
        work.raw.append(commit.message)
    return _with_closing_issue(work)


def _squash_work(commit: Commit, number: int) -> _Work:
    title = strip_pr_suffix(commit.subject)
    work = _Work(f"pr-{number}", "pr", number, title, commit, [commit], author=commit.author)
    # one commit holds the whole PR: its description is that commit's message
    work.thread.append(lambda builder: builder.add_paragraph(
        _headline(title), "description", commit.author, commit=commit.sha))
    work.thread.append(lambda builder: builder.add_text(
        commit.body, "description", commit.author, commit=commit.sha))
    work.raw.append(commit.message)
    return _with_closing_issue(work)


def _with_closing_issue(work: _Work) -> _Work:
    """A PR that says it fixes an issue becomes that issue's record, with the PR as partner."""
    refs = [n for n in closing_refs("\n".join(work.raw)) if n != work.number]
    if refs:
        work.partner, work.number = work.number, refs[0]
        work.id, work.kind = f"issue-{refs[0]}", "issue"
    return work


def _same_words(a: str, b: str) -> bool:
    """A commit subject that only repeats the PR title adds nothing to the thread."""
    words = lambda s: re.findall(r"\w+", strip_pr_suffix(s).lower())  # noqa: E731
    return words(a) == words(b)


def _add(works: dict[str, _Work], work: _Work) -> None:
    existing = works.get(work.id)
    if existing is None:
        works[work.id] = work
        return
    known = {c.sha for c in existing.commits}
    existing.commits.extend(c for c in work.commits if c.sha not in known)
    # the other work's thread as it would stand alone, then appended (renumbered)
    existing.thread.append(lambda builder: builder.extend(_assemble(work).units))
    existing.raw.extend(work.raw)
    existing.partner = existing.partner or work.partner
    if work.landing.timestamp > existing.landing.timestamp:
        existing.landing = work.landing


def _has_rationale(commit: Commit) -> bool:
    body = " ".join(paragraphs(commit.body))
    if len(_WORD.findall(body)) >= SUBSTANTIVE_BODY_WORDS:
        return True
    text = f"{commit.subject}. {body}"
    return bool(CAUSE.search(text) or DECISION.search(body) or REJECTED.search(text))


def _headline(title: str) -> str:
    cleaned = paragraphs(title)
    return cleaned[0] if cleaned else title


def _assemble(work: _Work) -> ThreadBuilder:
    builder = ThreadBuilder()
    for step in work.thread:
        step(builder)
    return builder


def _finish(work: _Work, events_by_commit: dict[str, list[SymbolEvent]]) -> Record:
    units = _assemble(work).freeze()
    files = files_for(work.commits)
    landing = work.landing
    kind = commit_kind(landing.subject, files, work.number, len(landing.parents) > 1,
                       units[0].text if units else "")
    subjects = {clean_inline(strip_pr_suffix(c.subject)) for c in work.commits}
    fields = extract_fields(work.title, units, units[0].id if units else None,
                            opening=work.kind != "commit", kind=kind, subjects=subjects)
    # Housekeeping (a release, AUTHORS, lint, CI, docs) and work known only by its title are
    # never a symbol's decision: unanchored, they stay findable by search; no card counts them.
    # Otherwise it is anchored to the symbols it has something to say about (records.about).
    anchors = () if housekeeping_work(work.title, files) or not explains(work.title, fields) \
        else anchors_for([c.sha for c in work.commits], events_by_commit)
    record = Record(
        id=work.id, kind=work.kind, number=work.number, title=work.title,
        problem=fields.problem, cause=fields.cause, decision=fields.decision, rejected=fields.rejected,
        fixing_commits=tuple(c.sha for c in work.commits), partner=work.partner, merged=True,
        supersedes=supersedes_refs("\n".join(work.raw)), fix_edge_source="text",
        thread_shape=thread_shape(units, fields), distilled_by="rules", thread=units,
        anchors=anchors, files=files, author=work.author, date=work.landing.date,
    )
    return replace(record, anchors=explained_anchors(record, anchors, events_by_commit))


def anchors_for(shas, events_by_commit: dict[str, list[SymbolEvent]]) -> tuple[str, ...]:
    """Symbols the commits substantively changed (not deleted), most-changed first; none for a
    sweeping change."""
    counts: Counter = Counter()
    for sha in shas:
        for event in events_by_commit.get(sha, ()):
            if event.kind != "deleted":
                counts[event.symbol] += 1
    # Ties by name, so the answer does not depend on the order events were read back in (a
    # resumed run reads the events of commits a killed run wrote from the index).
    if len(counts) > SWEEPING_SYMBOLS:
        return ()  # "Add initial type hints", "drop Python 2.7": no one symbol's decision
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return tuple(name for name, _ in ranked)[:MAX_ANCHORS]


def files_for(commits) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ch.path for c in commits for ch in c.changes))[:MAX_FILES]
