"""Diff-level evidence: the change brings back lines a revert removed or a fix replaced.

For each changed file, the reverts and fixes in its history (newest first, capped) are read with
their diffs (``review_patches``; one git call). Both sides are fingerprinted (``review_tokens``)
and compared with the change:

- ``back``: what the revert removed / the fix replaced, absent from the base version, and added
  by this change;
- ``taken``: what the revert restored / the fix added, present in the base, and removed by it.

``reintroduces-revert``: undone = the share of what the revert took out that is back (or, for a
revert that only restored deleted lines, the share of those the change deletes again);
0.5 + 0.45 × undone, +0.05 when it also takes out half of what the revert restored. A change
that re-applies a reverted change scores 0.95–1.
``reintroduces-fixed``: share of the fix's replaced lines back; 0.5 + 0.4 × share (+0.1 when
the fix's own lines are taken out too).
``rewrites-fix``: the change removes lines a fix added but brings nothing of the old code back:
0.25 + 0.35 × share, +0.15 when the fix is at most 30 days old (+0.05 up to 180), +0.1 when it
says why (more than its subject, and more than issue pointers); −0.15 when the change's message
says it removes what the fix is about (``review_intent``).
Fixes of tests, typos, docs, lint, builds or merges are not failures to guard against, nor are
fixes outside product source (tests, examples, docs, build manifests, vendored or generated files)
or in a file the change deletes: left out; nor is a rewrite that only takes out a fix's import
lines, nor one that adds again (in the same file) 80% or more of the tokens the fix added among
those it takes out (``review_survival``: a reformat, a rename around the fix, the fix moved). A revert
is matched in prose files (AUTHORS, a changelog) only when it changed nothing else or the
change touches its code too. A deleted file counts against a revert only when the
revert restored most of it (the change deletes again what the revert brought back). A revert
that only reorders lines is caught by their order (``review_moves``: the change puts them back
as they were before it), with the share of its moved hunks put back as ``undone`` (+0.05).
Only matches inside the symbols the revert or fix changed count (or outside any symbol). A finding
needs ``MIN_MATCHED`` shared fingerprints, or all of them when the revert or fix is tiny; it cites
both commits and quotes the revert's or fix's reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from whylens.markup import inline
from whylens.retrieval.citations import change_ref, commit_ref
from whylens.retrieval.review_context import ReviewContext
from whylens.retrieval.review_guarded import (FIX, NOT_A_FAILURE, REVERT_SUBJECT, import_lines,
                                              not_guarded)
from whylens.retrieval.review_hunks import FileView, git_lines
from whylens.retrieval.review_intent import REMOVAL_SHIFT, says_removed
from whylens.retrieval.review_moves import Moves, moved_back
from whylens.retrieval.review_patches import CommitPatch, FilePatch, PatchReader, reason
from whylens.retrieval.review_survival import gone_text, keeps_fix, survival
from whylens.retrieval.review_tokens import fingerprint, fingerprint_in_context
from whylens.retrieval.text import relative_age
from whylens.symbols.languages import language_for_path

MAX_HISTORY_SCAN = 400  # file-history entries looked at per changed file
MAX_REVERTS_PER_FILE = 24  # every standing revert of a file, in practice (requests' busiest: 19)
MAX_FIXES_PER_FILE = 10
MAX_COMMITS = 48  # commits whose diffs one review reads
MAX_FILES = 200  # changed files whose history is looked at
MIN_MATCHED = 2  # shared fingerprints for a finding (or all, when there are fewer to share)


@dataclass
class Past:
    """A revert or a fix in a changed file's history."""

    kind: str  # revert | fix
    sha: str  # the commit whose diff is read: the revert, or the fix
    original: str | None  # the reverted commit (for a revert)
    timestamp: int
    subject: str
    pr: int | None
    where: dict[str, str] = field(default_factory=dict)  # changed path -> path in that commit
    merged: bool = False  # a revert made as a merge (it changed no file itself)


@dataclass(frozen=True)
class Overlap:
    back: frozenset  # fingerprint keys the change brings back
    taken: frozenset  # fingerprint keys the change takes out
    could_return: int
    could_go: int

    @property
    def matched(self) -> int:
        return len(self.back) + len(self.taken)

    @property
    def share(self) -> float:
        total = self.could_return + self.could_go
        return self.matched / total if total else 0.0

    @property
    def back_share(self) -> float:
        return len(self.back) / self.could_return if self.could_return else 0.0

    @property
    def taken_share(self) -> float:
        return len(self.taken) / self.could_go if self.could_go else 0.0


class ChangePrints:
    """Every k-gram of one changed file's added lines (in head context), removed lines (in base
    context) and base version: the sets a past commit's winnowed fingerprints are looked up in."""

    def __init__(self, view: FileView, loose: bool = False) -> None:
        self.view = view
        self.loose = loose
        head = dict(enumerate(git_lines(view.head_text), 1))
        base = dict(enumerate(git_lines(view.base_text), 1))
        self.added = fingerprint_in_context(view.added, head, view.path, winnow=False, loose=loose)
        self.removed = fingerprint_in_context(view.removed, base, view.path, winnow=False, loose=loose)
        self.base = fingerprint(base.items(), view.path, winnow=False, loose=loose)
        self._loose: ChangePrints | None = None

    def as_loose(self) -> ChangePrints:
        """The same change with the k-grams and lines that name nothing kept too."""
        if self.loose:
            return self
        if self._loose is None:
            self._loose = ChangePrints(self.view, loose=True)
        return self._loose


def find_past(ctx: ReviewContext, views: list[FileView]) -> list[Past]:
    """Reverts that still stand and fixes (not themselves reverted) of the changed files.

    Reverts are asked of the index by file (``reader.reverts_touching``): every standing revert
    of the file, newest first up to ``MAX_REVERTS_PER_FILE``, whatever the commits' filter
    verdicts, and a revert made as a merge through what it reverted (unless the merge brought
    in a commit that reverts the same: that one is cited, with its own reason). Fixes come from
    the file's history."""
    found: dict[str, Past] = {}
    for view in views[:MAX_FILES]:
        reverts = 0
        pairs = ctx.reader.reverts_touching(view.path)
        # a merge of a branch holding a revert is that revert: cite the revert's own commit
        own = {original for original, _r, _n, _t, touched in pairs if touched}
        for original, revert, named, stamp, touched in pairs:
            if not touched and original in own:
                continue
            past = found.get(revert)
            if past is None:
                if reverts >= MAX_REVERTS_PER_FILE or ctx.reverted(revert):
                    continue  # enough, or the revert itself was undone
                info = ctx.reader.commit_info(revert)
                first = ctx.reader.commit_info(original)
                past = found[revert] = Past(
                    "revert", revert, original, info.timestamp if info else stamp,
                    first.subject if first else _unquote(info.subject if info else ""),
                    first.pr if first else None, merged=not touched)
                reverts += 1
            past.where.setdefault(view.path, named)  # the revert's own name for it comes first
            past.merged = past.merged and not touched
        # a fix's regression test, a vendored copy, a file deleted whole: nothing to guard
        if not_guarded(view):
            continue
        fixes = 0
        for entry in ctx.reader.file_history(view.path)[:MAX_HISTORY_SCAN]:
            if fixes < MAX_FIXES_PER_FILE and FIX.search(entry.subject) \
                    and not REVERT_SUBJECT.match(entry.subject) and not NOT_A_FAILURE.search(entry.subject) \
                    and not ctx.reverted(entry.commit) and entry.commit not in found:
                found[entry.commit] = Past("fix", entry.commit, None, entry.timestamp,
                                           entry.subject, entry.pr, {view.path: entry.path})
                fixes += 1
    # a revert's own commit before a merge that holds it too: at one line, the first speaks
    ranked = sorted(found.values(), key=lambda p: (p.kind != "revert", p.merged, -p.timestamp))
    return ranked[:MAX_COMMITS]


# Pointers that explain nothing: "See judofyr/temple#86 Closes #156".
_REFERENCE = re.compile(r"^(#\d+|[\w.-]+/[\w.-]+#\d+|\S+://\S+|@[\w-]+|see|closes?|fix(es)?|refs?|resolves?|"
                        r"cc|and|[\[\](),.:;]+)$", re.I)


def _unquote(subject: str) -> str:
    """``Revert "Add x"`` → ``Add x`` (the reverted change's subject, when only the revert is known)."""
    match = re.match(r'^\s*Revert\s+"(.+)"\s*$', subject)
    return match.group(1) if match else subject


def overlap(prints: ChangePrints, patch: FilePatch) -> Overlap:
    """What of ``patch`` the change undoes. A k-gram on both sides of the past commit (the
    unchanged start of a rewritten line) is no evidence either way. ``prints.loose``: every
    k-gram counts, also those that name nothing."""
    old, new = dict(patch.old_context), dict(patch.new_context)
    loose = prints.loose
    removed = fingerprint_in_context(patch.removed, old, patch.path, loose=loose).keys()
    added = fingerprint_in_context(patch.added, new, patch.path, loose=loose).keys()
    removed_all = fingerprint_in_context(patch.removed, old, patch.path, winnow=False, loose=loose).keys()
    added_all = fingerprint_in_context(patch.added, new, patch.path, winnow=False, loose=loose).keys()
    base = prints.base.keys()
    could_return = removed - added_all - base
    could_go = (added - removed_all) & base
    # what the change both takes out and puts back (re-quoted, re-wrapped) is not undone
    taken = could_go & (prints.removed.keys() - prints.added.keys())
    return Overlap(frozenset(could_return & prints.added.keys()), frozenset(taken),
                   len(could_return), len(could_go))


def within(found: Overlap, prints: ChangePrints, symbols: set[str], nested: bool = False) -> Overlap:
    """Only what lands in the symbols the past commit changed (or outside any symbol): the
    same parameter list in another function is a coincidence, not a re-introduction.
    ``nested`` (a revert): also their members and the symbols holding them, since outlines
    differ in depth over time (a class the revert changed holds the method the lines sit in
    now: lines under a commented-out test)."""
    short = {s.rsplit(".", 1)[-1] for s in symbols}

    def inside(symbol) -> bool:
        return symbol is None or symbol.name in symbols or symbol.short_name in short or (nested and any(
            symbol.name.startswith(s + ".") or s.startswith(symbol.name + ".") for s in symbols))

    view = prints.view
    back = frozenset(k for k in found.back if inside(view.symbol_at(prints.added.line_of(k))))
    taken = frozenset(k for k in found.taken if inside(_old_symbol(view, prints.removed.line_of(k))))
    return Overlap(back, taken, found.could_return, found.could_go)


def _swept_away(view: FileView, patch: FilePatch, found: Overlap) -> bool:
    """The file is deleted whole and only that takes out what the revert restored: unless the
    revert restored most of the file, the deletion is not about it."""
    if view.change.status != "D" or found.back:
        return False
    return len(patch.added) < 0.5 * len(git_lines(view.base_text))


def substantial(found: Overlap) -> bool:
    possible = found.could_return + found.could_go
    return found.matched >= min(MIN_MATCHED, possible) and found.matched > 0


def check(ctx: ReviewContext, views: list[FileView], patches: PatchReader | None) -> None:
    """Run the diff-level checks; findings go to ``ctx``."""
    if patches is None or not views:
        return
    past = find_past(ctx, views)
    if not past:
        return
    paths = sorted({p for item in past for p in item.where.values()} | {v.path for v in views})
    read = patches([p.sha for p in past], paths)
    by_path = {v.path: v for v in views}
    prints: dict[str, ChangePrints] = {}
    for item in past:
        commit = read.get(item.sha)
        if commit is None:
            continue
        for path, old in item.where.items():
            patch = commit.files.get(old) or commit.files.get(path)
            if patch is None:
                continue
            if path not in prints:
                prints[path] = ChangePrints(by_path[path])
            mine = prints[path]
            found = overlap(mine, patch)
            if found.could_return + found.could_go == 0 and item.kind == "revert":
                # a revert of a token or two that name nothing (``return None`` for
                # ``return ('', '')``): matched on every k-gram, and only when all of it is undone
                mine = mine.as_loose()
                found = overlap(mine, patch)
            symbols = {e.symbol for e in ctx.reader.events_of(item.sha) if e.path in (old, path)}
            if symbols:
                found = within(found, mine, symbols, nested=item.kind == "revert")
            if item.kind == "revert" and _prose_only(ctx, item):
                continue
            whole = not mine.loose or found.matched == found.could_return + found.could_go
            if whole and substantial(found) and not _swept_away(by_path[path], patch, found):
                _report(ctx, mine, item, commit, found, patch=patch)
            elif item.kind == "revert" and (moves := moved_back(by_path[path], patch)):
                _report(ctx, mine, item, commit, found, moves)  # the lines are back in its order


def _prose_only(ctx: ReviewContext, item: Past) -> bool:
    """The change touches only prose files of a revert that changed code elsewhere (an AUTHORS
    line of a reverted feature, the feature untouched): that is not the revert coming back. A
    revert of prose only, or one whose code files the change touches, is matched as usual."""
    if any(language_for_path(p) is not None for p in (*item.where, *item.where.values())):
        return False
    return any(language_for_path(e.path) is not None for e in ctx.reader.events_of(item.sha))


def _report(ctx: ReviewContext, prints: ChangePrints, item: Past, commit: CommitPatch,
            found: Overlap, moves: Moves | None = None, patch: FilePatch | None = None) -> None:
    view = prints.view
    side, line = ("RIGHT", moves.line) if moves else _anchor(prints, found)
    symbol = view.symbol_at(line) if side == "RIGHT" else _old_symbol(view, line)
    why = inline(reason(commit.message), 200)
    why += "" if why.endswith((".", "!", "?", "…")) else "."
    when = relative_age(item.timestamp, ctx.now)
    if item.kind == "revert":
        undone = moves.undone if moves else revert_undone(found)
        if undone <= 0:
            return
        confidence = 0.5 + 0.45 * undone + (0.05 if moves or found.back and found.taken_share >= 0.5 else 0)
        body = (f"This brings back “{inline(item.subject, 100)}” "
                f"({change_ref(item.original or '', item.pr, ctx.links)}), reverted by "
                f"{commit_ref(item.sha, ctx.links)} {when}: “{why}” "
                + (f"The lines it reordered are back in the order it undid ({undone:.0%} of its moves)."
                   if moves else f"{undone:.0%} of what the revert took out is back here."))
        ctx.add(view.path, line, side, "reintroduces-revert", body, confidence,
                (item.original or "", item.sha), symbol)
        return
    recent = ctx.recent(item.timestamp)
    if found.back and found.back_share >= found.taken_share / 2:
        confidence = 0.5 + 0.4 * found.back_share + (0.1 if found.taken else 0)
        body = (f"This brings back code that a fix replaced: {change_ref(item.sha, item.pr, ctx.links)} "
                f"“{inline(item.subject, 100)}” ({when}): “{why}” "
                f"{found.back_share:.0%} of the lines it replaced are back.")
        ctx.add(view.path, line, side, "reintroduces-fixed", body, confidence, (item.sha,), symbol)
        return
    if _only_imports(view, prints, found):
        return
    kept = survival(view, patch, {prints.removed.line_of(k) for k in found.taken}) if patch else None
    if kept is not None and keeps_fix(kept):
        return  # reformatted, renamed around, moved or added to: what the fix added is all back
    explained = explains(why, item.subject)
    fresh = 0.15 if ctx.recent(item.timestamp, days=30) else 0.05 if recent else 0.0
    confidence = 0.25 + 0.35 * found.taken_share + fresh + (0.1 if explained else 0) \
        - (REMOVAL_SHIFT if says_removed(ctx.message, view.path, symbol, item.subject) else 0)
    body = (f"This rewrites lines that a fix added: {change_ref(item.sha, item.pr, ctx.links)} "
            f"“{inline(item.subject, 100)}” ({when}): “{why}” "
            f"{found.taken_share:.0%} of its lines are changed here"
            + (f", and {gone_text(kept)} of what it added {'is' if len(kept.gone) == 1 else 'are'} gone"
               if kept is not None and kept.gone else "")
            + "; check that what it fixed stays fixed.")
    ctx.add(view.path, line, side, "rewrites-fix", body, confidence, (item.sha,), symbol)


def explains(why: str, subject: str) -> bool:
    """A fix's reason says more than its subject: six words or more, three of them not mere
    pointers (issue numbers, links, "Closes")."""
    words = why.split()
    prose = [w for w in words if not _REFERENCE.match(w.strip("\\"))]
    return len(words) >= 6 and len(prose) >= 3 and why.rstrip(".") != subject.strip().rstrip(".")


def _only_imports(view: FileView, prints: ChangePrints, found: Overlap) -> bool:
    """Every line the change takes out of the fix is part of an import: the module's wiring
    moved (an unvendored package, a reordered header, a name added to an import list), the
    fix's logic is not in it."""
    lines = {prints.removed.line_of(k) for k in found.taken}
    return bool(lines) and lines <= import_lines(git_lines(view.base_text))


def revert_undone(found: Overlap) -> float:
    """How much of a revert the change undoes: the share of what it took out that is back.
    Rewriting lines a revert restored is only evidence when the revert took out nothing (it
    undid a deletion), and then only past half of them: editing old code is not re-applying a
    change."""
    if found.could_return:
        return found.back_share
    return max(0.0, 2 * found.taken_share - 1)  # more than half of it deleted again


def _anchor(prints: ChangePrints, found: Overlap) -> tuple[str, int]:
    """Where the comment goes: the first line brought back, else the first line taken out."""
    if found.back:
        return "RIGHT", min(prints.added.line_of(k) for k in found.back)
    return "LEFT", min(prints.removed.line_of(k) for k in found.taken)


def _old_symbol(view: FileView, old_line: int):
    """Where a removed line sat: the base outline's symbol (a deleted function is only there),
    else the head symbol where the deletion lands."""
    if view.base_symbols:
        return view.base_symbol_at(old_line)
    return view.symbol_at(_new_line(view, old_line))


def _new_line(view: FileView, old_line: int) -> int:
    """The head line where a deletion at ``old_line`` sits (for its enclosing symbol)."""
    for hunk in view.change.hunks:
        if hunk.old_start <= old_line < hunk.old_start + max(hunk.old_count, 1):
            return max(1, hunk.new_start)
    return old_line

