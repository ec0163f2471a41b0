"""Reverts: which commit undid which, in any wording (see ``revert_pairs``), and which stay
undone (``effective_reverts``: a revert that was itself reverted no longer counts).

The pairs are stored by the index (``reverts``) and read back through ``IndexReader.reverts_of``
and ``retrieval.evidence``, the one place cards, records' outcomes and review ask.
"""

from __future__ import annotations

from collections.abc import Iterable

from whylens.history.links import revert_subject, reverted_numbers, reverted_shas
from whylens.models import Commit
from whylens.records.history import brought_in, generations
from whylens.records.thread import strip_pr_suffix


def revert_pairs(commits: list[Commit], earlier: Iterable[Commit] = ()) -> list[tuple[str, str]]:
    """(reverting sha, reverted sha) for every revert among ``commits`` whose target is among them
    or among ``earlier`` (commits an earlier index run walked, ``names_earlier`` / the
    pipeline's look-back: targets only, never looked at as reverts again).

    A revert is recognised in any wording git or people use: shas (``This reverts commit <sha>``,
    ``revert <sha> and <sha>``, ``partially revert <sha>``; abbreviated ones resolved among
    ``commits``), a PR or issue number (``Revert #3362``, ``reverting 3362``, a merge of GitHub's
    ``revert-3362-…`` branch), the reverted subject quoted or not (``Revert "x"``, ``Revert x``;
    the newest earlier commit with that subject), and a later change that restores exactly the
    file versions an earlier one replaced (an undo however it was worded). A reverted merge or PR
    takes the commits it brought in with it: their knowledge is reverted too.
    """
    new = {c.sha for c in commits}
    ordered = sorted([*commits, *(c for c in earlier if c.sha not in new)],
                     key=lambda c: (c.timestamp, c.sha))
    by_sha = {c.sha: c for c in ordered}
    work = _commits_of_prs(ordered, by_sha)
    subjects: dict[str, str] = {}  # normalised subject → newest earlier sha
    replaced: dict[tuple[str, str], list[Commit]] = {}  # (path, new blob) → commits that wrote it
    pairs: list[tuple[str, str]] = []
    reverting: set[str] = set()
    for commit in ordered:
        if commit.sha not in new:  # an earlier run's commit: a target, not a revert to find
            _remember(commit, subjects, replaced)
            continue
        targets: list[str] = []
        for named in reverted_shas(commit.message):
            # a full sha stands even when its commit was indexed by an earlier run
            full = named if len(named) == 40 else next((s for s in by_sha if s.startswith(named)), None)
            if full and full != commit.sha:
                targets += work.get(full, [full])
        for number in reverted_numbers(commit.subject, commit.body):
            if number != commit.pr:
                targets += [sha for sha in work.get(f"#{number}", []) if by_sha[sha].timestamp
                            <= commit.timestamp]
        subject = revert_subject(commit.subject)
        if not targets and subject and _norm_subject(subject) in subjects:
            sha = subjects[_norm_subject(subject)]
            targets += work.get(sha, [sha])
        if not targets:  # a revert brought back by content is ambiguous (a reapply?): left out
            targets += [sha for sha in _undone(commit, replaced) if sha not in reverting]
        found = [t for t in dict.fromkeys(targets) if t != commit.sha]
        pairs.extend((commit.sha, t) for t in found)
        if found:
            reverting.add(commit.sha)
        _remember(commit, subjects, replaced)
    return pairs


MAX_UNDO_FILES = 50  # a sweeping commit is not matched as undone by content


def _remember(commit: Commit, subjects: dict[str, str],
              replaced: dict[tuple[str, str], list[Commit]]) -> None:
    """What later reverts are matched against: the subject, and the file versions written."""
    subjects[_norm_subject(commit.subject)] = commit.sha
    for change in commit.changes:
        if change.old_blob and change.new_blob and len(commit.changes) <= MAX_UNDO_FILES:
            replaced.setdefault((change.path, change.new_blob), []).append(commit)


def names_earlier(commits: Iterable[Commit]) -> bool:
    """Whether a message among ``commits`` says it reverts something that may lie before
    them (an abbreviated sha not among them, a PR or issue number, a quoted subject): the
    words an incremental run needs earlier commits for. A full sha needs none."""
    commits = list(commits)
    shas = {c.sha for c in commits}
    for commit in commits:
        named = reverted_shas(commit.message)
        if any(len(s) < 40 and not any(x.startswith(s) for x in shas) for s in named):
            return True
        if reverted_numbers(commit.subject, commit.body) or revert_subject(commit.subject):
            return True
    return False


def undo_candidates(commit: Commit) -> list[str]:
    """The paths whose earlier version ``commit`` may restore, if it undoes an earlier change
    by content: every file it modifies (none when it sweeps more than ``MAX_UNDO_FILES``)."""
    if len(commit.changes) > MAX_UNDO_FILES:
        return []
    return [c.path for c in commit.changes if c.old_blob and c.new_blob]


def _commits_of_prs(ordered: list[Commit], by_sha: dict[str, Commit]) -> dict[str, list[str]]:
    """``"#N"`` → the commits of PR N (its merge or squash commit, then what a merge brought in);
    a merge's sha → itself and what it brought in."""
    work: dict[str, list[str]] = {}
    depth: dict[str, int] | None = None
    for commit in ordered:
        if commit.pr is None:
            continue
        shas = [commit.sha]
        if len(commit.parents) > 1:
            depth = depth if depth is not None else generations(by_sha)
            shas += [c.sha for c in brought_in(commit, by_sha, depth)]
            work[commit.sha] = shas
        work.setdefault(f"#{commit.pr}", []).extend(shas)
    return work


def _undone(commit: Commit, replaced: dict[tuple[str, str], list[Commit]]) -> list[str]:
    """Earlier commits whose every file change ``commit`` reverses (blob for blob)."""
    reversed_by_me = {(c.path, c.new_blob, c.old_blob) for c in commit.changes
                      if c.old_blob and c.new_blob}
    found = []
    for change in commit.changes:
        if not (change.old_blob and change.new_blob):
            continue
        for earlier in replaced.get((change.path, change.old_blob), ()):
            if earlier.sha in found:
                continue
            if all((c.path, c.old_blob, c.new_blob) in reversed_by_me for c in earlier.changes):
                found.append(earlier.sha)
    return found


def _norm_subject(subject: str) -> str:
    """Subjects compared for a revert: no PR suffix, quotes, case or trailing punctuation."""
    text = strip_pr_suffix(subject).strip().strip("\"'`“”‘’").rstrip(".!")
    return " ".join(text.lower().split())


def effective_reverts(pairs: list[tuple[str, str]]) -> set[str]:
    """Shas that stay reverted: a revert that was itself reverted no longer counts."""
    reverted_by: dict[str, list[str]] = {}
    for reverting, reverted in pairs:
        reverted_by.setdefault(reverted, []).append(reverting)

    def stands(sha: str, depth: int = 0) -> bool:  # a revert stands unless reverted in turn
        return depth > 20 or not any(stands(r, depth + 1) for r in reverted_by.get(sha, ()))

    return {sha for sha, by in reverted_by.items() if any(stands(r) for r in by)}
