"""Frozen dataclasses shared by every layer.

No behaviour here that needs git, tree-sitter, Whoosh or pygls. Conventions used everywhere:
- line numbers are 1-based and inclusive (as git prints them);
- columns are 0-based Python ``str`` indices (code points); only ``lsp/`` converts to UTF-16;
- ``date`` is ISO 8601 with offset (git ``%aI``), ``timestamp`` unix seconds;
- ``sha`` is always the full 40-hex commit id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

UNIT_TYPES = ("fact", "skill", "pattern")
RECORD_TYPE = "decision"
ALL_TYPES = UNIT_TYPES + (RECORD_TYPE,)
# "Pitfalls" are Pattern units only, everywhere they are counted (lens, hover, card, stats).
PITFALL_TYPES = ("pattern",)
# A commit document: a whole commit message, searchable beside the typed units it yielded.
COMMIT_TYPE = "commit"
SEARCH_TYPES = ALL_TYPES + (COMMIT_TYPE,)
SNIPPET_BUDGET = 256  # characters of answer sentences a search hit carries by default

# Why a commit yields no knowledge (it stays counted in the history).
SKIP_REASONS = ("bot", "release", "trivial", "ignored", "merge")

# Kinds of a symbol event in its history.
EVENT_KINDS = ("added", "body", "signature", "deleted", "renamed", "moved")
# A change that only reformatted a symbol, only changed its type annotations, or came from a
# commit in ``.git-blame-ignore-revs``: kept so a card can say so in one line, never counted or
# listed as a change (``IndexReader.symbol_history`` leaves these out unless asked).
FORMATTING_KIND = "formatting"


@dataclass(frozen=True)
class Hunk:
    """One changed line range, as in ``@@ -old_start,old_count +new_start,new_count @@``."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int


@dataclass(frozen=True)
class FileChange:
    """One file touched by a commit."""

    path: str  # path after the change; for a deletion, the deleted path
    status: str  # git's letter: A M D R C T
    old_path: str | None = None  # path before a rename or copy
    old_blob: str | None = None  # blob sha before (None when added)
    new_blob: str | None = None  # blob sha after (None when deleted)
    hunks: tuple[Hunk, ...] = ()
    binary: bool = False
    # The ``-U0`` patch of this file from its first ``@@`` line on (hunk headers, "-" and "+"
    # lines), when the walk was asked to keep it; the anchorer reads changed lines from it.
    patch: bytes = b""


@dataclass(frozen=True)
class Commit:
    """One commit as mined, with its changes and the filter verdict."""

    sha: str
    parents: tuple[str, ...]
    author: str  # mailmap applied
    email: str
    timestamp: int
    date: str
    subject: str
    body: str = ""
    trailers: tuple[tuple[str, str], ...] = ()
    changes: tuple[FileChange, ...] = ()
    pr: int | None = None  # PR number from a merge or squash subject
    skip_reason: str | None = None  # one of SKIP_REASONS, or None when it carries intent
    # git could not read all this commit's objects: its changes have no hunks (and only exact
    # renames), or none at all when even its trees are missing
    missing_objects: bool = False
    # the cleaned changelog entry its diff adds (``index.changelog.entry``), once the patches go
    changelog: str = ""

    @property
    def message(self) -> str:
        return f"{self.subject}\n\n{self.body}".strip()


@dataclass(frozen=True)
class Symbol:
    """A definition in one version of a file."""

    name: str  # qualified: "Session.send", "(*Server).Serve", "impl Display for Foo"
    kind: str  # function method class struct interface trait impl enum module namespace
    start_line: int
    end_line: int
    name_line: int = 0  # where the bare name sits (for hovers and lenses)
    name_col: int = 0
    name_end_col: int = 0

    @property
    def short_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class SymbolEvent:
    """A substantive change of one symbol in one commit."""

    commit: str
    path: str
    symbol: str  # qualified name after the change (before it, for "deleted")
    kind: str  # one of EVENT_KINDS
    previous: str | None = None  # old name (renamed) or old "path::name" (moved)


@dataclass(frozen=True)
class Unit:
    """A typed knowledge unit mined from one commit's prose."""

    id: str  # 12 hex of sha1("type::normalised content")
    type: str  # one of UNIT_TYPES
    title: str
    content: str
    weight: float  # prior of the heuristic that fired
    context: str  # the raw sentence it came from
    commit: str
    author: str
    date: str
    files: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    source: str = "commit"
    heuristic: str = ""
    pr: int | None = None


@dataclass(frozen=True)
class ThreadUnit:
    """One numbered paragraph of a thread (description, comment, review, commit message)."""

    id: str  # "U1", "U2", ...
    author: str
    kind: str  # description comment review commit
    text: str
    url: str | None = None
    commit: str | None = None  # the commit whose message it is from; None: the work as a whole


@dataclass(frozen=True)
class Claim:
    """An extracted sentence and the thread unit it came from."""

    text: str
    unit: str  # ThreadUnit.id
    # the sentence classifier's probability that it is knowledge at all (a card's confidence
    # starts from it); not part of what the claim is, so equal claims compare equal
    weight: float = field(default=0.5, compare=False)


@dataclass(frozen=True)
class Record:
    """A decision record: the story of one piece of work."""

    id: str  # "issue-12", "pr-34", "commit-<sha12>"
    kind: str  # issue pr commit
    number: int | None
    title: str
    problem: Claim | None = None
    cause: tuple[Claim, ...] = ()
    decision: tuple[Claim, ...] = ()
    rejected: tuple[Claim, ...] = ()
    fixing_commits: tuple[str, ...] = ()
    partner: int | None = None  # the PR that fixed an issue-owned record
    merged: bool = False
    supersedes: tuple[str, ...] = ()  # ids or symbols it says it supersedes/replaces
    fix_edge_source: str = "none"  # provider | text | none
    thread_shape: str = "thin"  # investigation | review_stream | thin
    distilled_by: str = "rules"  # rules | model
    thread: tuple[ThreadUnit, ...] = ()
    anchors: tuple[str, ...] = ()  # qualified symbols the fixing commits changed
    files: tuple[str, ...] = ()
    author: str = ""
    date: str = ""
    url: str | None = None
    label: str = "distilled, unreviewed"


@dataclass(frozen=True)
class Hit:
    """One search result, the shape of ``search --json``'s ``results`` items."""

    id: str
    type: str
    title: str
    content: str
    score: float
    commit: str
    author: str
    date: str
    files: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    source: str = "commit"  # a unit's source; a record's kind (issue, pr, commit)
    url: str | None = None  # by the link rule (retrieval.citations.item_url)
    snippet: str = ""  # the sentence(s) that best answer the query, within the caller's budget
    # a decision record's story (None / empty for other hits); outcome: landed, reverted,
    # superseded or unresolved, computed when searched
    problem: str | None = None
    cause: tuple[str, ...] = ()
    decision: tuple[str, ...] = ()
    rejected: tuple[str, ...] = ()
    outcome: str | None = None
    # a unit hit whose commit a standing revert undid: that revert's sha (outcome "reverted")
    reverted_by: str = ""
    # commits of the same change, folded into this hit instead of shown twice: a cherry-pick
    # (same subject, files and answer sentences), a PR record's commits (search.fold_changes)
    also: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommitInfo:
    """What the index keeps about every commit it has seen (filtered ones too)."""

    sha: str
    author: str
    date: str
    timestamp: int
    subject: str
    pr: int | None = None
    skip_reason: str | None = None


@dataclass(frozen=True)
class HistoryEntry:
    """One line of a symbol's (or file's) substantive history, newest first."""

    commit: str
    date: str
    timestamp: int
    author: str
    subject: str
    pr: int | None
    kind: str  # an EVENT_KINDS value, or "file" for file-level history
    path: str
    symbol: str | None = None
    previous: str | None = None


class KnowledgeCounts(NamedTuple):
    """What the index knows about one symbol of a file (``IndexReader.knowledge_counts``): what a
    code lens shows."""

    records: int  # decision records anchored to it
    pitfalls: int  # Pattern units anchored to it (the only units called pitfalls)
    changes: int  # substantive changes (distinct commits)


@dataclass(frozen=True)
class Reversal:
    """Knowledge from a change that was later reverted or superseded: history, never current."""

    item: Unit | Record
    how: str  # reverted | superseded
    by: str  # the reverting commit's sha, or the superseding record's id
    by_pr: int | None = None  # the reverting commit's PR, when it has one
    reason: str = ""  # why, as the revert (or the superseding record) says it


@dataclass(frozen=True)
class LineChange:
    """The commit that last substantively changed one line, and what the history says of it."""

    line: int
    entry: HistoryEntry
    units: tuple[Unit, ...] = ()  # that commit's knowledge about this symbol
    record: Record | None = None  # the record of the work it belongs to


@dataclass(frozen=True)
class Story:
    """Everything known about one symbol (or file): what ``why`` answers.

    Everything current is here, most explanatory first; renderers choose how much fits.
    """

    path: str
    symbol: Symbol | None  # None: the line is outside any symbol (file history)
    history: tuple[HistoryEntry, ...] = ()  # substantive changes; kind "formatting": collapsed
    units: tuple[Unit, ...] = ()  # current units (none from a reverted or superseded change)
    records: tuple[Record, ...] = ()  # current decisions anchored to the symbol, newest first
    outcomes: tuple[tuple[str, str], ...] = ()  # (record id, outcome_status) computed when read
    summary: str = ""  # "changed 7× by 3 authors, last 2 months ago; 2 pitfalls known"
    reversals: tuple[Reversal, ...] = ()  # what used to be current, and what undid it
    line_change: LineChange | None = None  # for a question about one line
    # current units that only tell what their change did (``knowledge.change_told``): shown on
    # that change's history line, not as pitfalls or constraints, and not counted as either
    notes: tuple[Unit, ...] = ()

    @property
    def known(self) -> bool:
        return bool(self.history or self.units or self.records or self.reversals)

    @property
    def changes(self) -> tuple[HistoryEntry, ...]:
        """The substantive changes (reformat / lint / typing-only entries left out)."""
        return tuple(e for e in self.history if e.kind != FORMATTING_KIND)

    @property
    def counts(self) -> KnowledgeCounts:
        """What the lens, the hover, the card and ``stats`` call decisions, pitfalls, changes."""
        return KnowledgeCounts(
            records=len(self.records),
            pitfalls=sum(1 for u in self.units if u.type in PITFALL_TYPES),
            changes=len({e.commit for e in self.changes}),
        )


@dataclass(frozen=True)
class Pitfall:
    """A known failure matched to an error; ``item`` is a Unit or a Record."""

    item: Unit | Record
    score: float
    reason: str  # what matched: "TimeoutError in Session.send"
    line: int | None = None  # error line it belongs to (1-based), when known
    fix: Unit | None = None  # a Skill unit that fixed it, when one is known
    reverted_by: str = ""  # a standing revert of the fix: it is not in the code today


@dataclass(frozen=True)
class Suggestion:
    """A review comment grounded in history."""

    path: str
    line: int
    side: str  # RIGHT (new code) or LEFT (deleted code), as GitHub names them
    kind: str  # reintroduces-revert | reintroduces-fixed | rewrites-fix | reverted-before |
    #            reintroduces-pitfall | constraint | decision-context | co-change | fragile
    body: str  # markdown with provenance links
    confidence: float
    evidence: tuple[str, ...] = ()  # unit / record ids / commit shas it rests on
    symbol: str | None = None
