"""``fragile``: a changed symbol whose every recent change was followed by a fix.

From the symbol's substantive history (the index as of the review): the last ``CHANGES``
changes that are not fixes themselves, each followed by a fix of the same symbol within
``WITHIN_DAYS``. When all of them were, the change about to land is the next in a row that
went wrong: the comment names the fixes (newest first) and asks for a test of what they
guarded. Fixes are told as ``review_reapply`` tells them (fix / bug / regression / broke /
crash in the subject; not typos, tests, docs or builds; not a revert), in product source only
(``review_guarded.product_source``). Confidence 0.45 + 0.05 per distinct fix (one fix after a
burst of five changes is one failure, not five). Measured on the tune replays' cases before
building (review8, history before each change): "5 of the last 5 followed by a fix" touched the
symbol the later fix touched in 8/191 requests, 3/78 express, 1/93 sinatra cases at 2.0, 1.2
and 0.7 ordinary changes in 100.

Or, fix-prone (review9): ``PRONE_FIXES`` distinct fixes of the symbol in the last
``PRONE_DAYS`` (a burst of failures, whatever came between them), one of which last changed a
line the change modifies or sits next to (``NEAR_LINES``; the index's blame of the base):
those fixes are cited first. Measured on review8's tune replays before building (history before
each change, ancestors only): the symbol the later fix touched in 29/190 requests, 3/78
express, 2/93 sinatra cases at 1.6, 1.6 and 0.7 ordinary changes in 100 (3 fixes: 35, 6, 3 at
2.4, 4.4, 2.0; 4 in 365 days: 38, 3, 7 at 5.2, 5.6, 2.7). Without the line condition, the
replay's comments were 14/34 useful on requests (cases and ordinary changes), 4.0 more per 100
ordinary; with it (git blame, offline) 6/10 at 1.2.

Since review10 the first form asks the same of the line blame (one of the symbol's fixes last
changed a line at the change): on review9's tune replays, 2 of its 4 noise comments at the gate
(requests 2d70647f, f0e327f9) changed lines far from what the cited fixes repaired, while git
blame at the base put a fix on a changed line for all 5 useful ones.
"""

from __future__ import annotations

from collections.abc import Callable

from whylens.markup import code, inline
from whylens.models import HistoryEntry
from whylens.retrieval.citations import commit_ref
from whylens.retrieval.review_context import DAY, ReviewContext
from whylens.retrieval.review_hunks import ChangedSymbol, FileView, TextReader, safe_read
from whylens.retrieval.review_lines import line_map, same
from whylens.retrieval.review_guarded import FIX, NOT_A_FAILURE, REVERT_SUBJECT, product_source
from whylens.retrieval.text import relative_age

CHANGES = 5  # the last changes looked at
WITHIN_DAYS = 30  # a fix this soon after a change follows it
BASE, PER_FIX = 0.45, 0.05  # confidence: BASE + PER_FIX per distinct fix that followed
SHOWN_FIXES = 3
PRONE_FIXES, PRONE_DAYS = 4, 180  # this many distinct fixes this recently: fix-prone
MAX_CONFIDENCE = 0.7
NEAR_LINES = 2  # base lines either side of a changed block whose last change counts as touched
MAX_BLAMED_LINES = 400


def is_fix(subject: str) -> bool:
    return bool(FIX.search(subject)) and not NOT_A_FAILURE.search(subject) \
        and not REVERT_SUBJECT.match(subject)


def followed(history: list[HistoryEntry]) -> list[HistoryEntry]:
    """The fixes that followed each of the last ``CHANGES`` non-fix changes (newest first), or
    nothing when one of them was not followed by a fix (or there are fewer)."""
    seen: set[str] = set()
    entries = []
    for entry in sorted(history, key=lambda e: -e.timestamp):
        if entry.commit not in seen:
            seen.add(entry.commit)
            entries.append(entry)
    fixes = [e for e in entries if is_fix(e.subject)]
    changes = [e for e in entries if not is_fix(e.subject)][:CHANGES]
    if len(changes) < CHANGES:
        return []
    cited: dict[str, HistoryEntry] = {}
    for change in changes:
        after = [f for f in fixes if 0 < f.timestamp - change.timestamp <= WITHIN_DAYS * DAY]
        if not after:
            return []
        first = min(after, key=lambda f: f.timestamp)
        cited.setdefault(first.commit, first)
    return sorted(cited.values(), key=lambda e: -e.timestamp)


def fix_prone(history: list[HistoryEntry], now: float) -> list[HistoryEntry]:
    """The distinct fixes of the last ``PRONE_DAYS`` (newest first) when there are at least
    ``PRONE_FIXES`` of them, else nothing."""
    fixes: dict[str, HistoryEntry] = {}
    for entry in history:
        if is_fix(entry.subject) and 0 <= now - entry.timestamp <= PRONE_DAYS * DAY:
            fixes.setdefault(entry.commit, entry)
    if len(fixes) < PRONE_FIXES:
        return []
    return sorted(fixes.values(), key=lambda e: -e.timestamp)


def fixed_lines(history: list[HistoryEntry]) -> set[str]:
    """The symbol's fixes (any age): the commits whose lines a change near them puts at risk."""
    return {e.commit for e in history if is_fix(e.subject)}


def near_commits(reader, view: FileView, read_indexed: TextReader | None = None) -> set[str]:
    """The commits that last changed the base lines the change modifies, and ``NEAR_LINES``
    either side of each changed block (an insertion: the lines around it). ``read_indexed``
    reads a file at the index's revision when that is not the change's base (``review_lines``:
    each base line is looked up where it sits there); without it the base is taken to be it."""
    lines: set[int] = set()
    for hunk in view.hunks:
        if hunk.old_count:
            lines.update(range(hunk.old_start - NEAR_LINES, hunk.old_start + hunk.old_count + NEAR_LINES))
        else:
            lines.update(range(hunk.old_start - NEAR_LINES + 1, hunk.old_start + NEAR_LINES + 1))
    path = view.change.old_path or view.path
    at = line_map(view.base_text, safe_read(read_indexed, path)) if read_indexed else same
    mapped = sorted({m for n in sorted(n for n in lines if n > 0) for m in at(n)})
    found = (reader.line_blame(path, n) for n in mapped[:MAX_BLAMED_LINES])
    return {entry.commit for entry in found if entry is not None}


def fragile(ctx: ReviewContext, where: ChangedSymbol, name: str, history: list[HistoryEntry],
            near: Callable[[], set[str]]) -> None:
    """Comment when every one of the symbol's last changes was followed by a fix, or when it was
    fixed ``PRONE_FIXES`` times lately, and either way the change touches lines one of its
    fixes changed (``near``: the commits that last changed the lines around the change). A file-wide anchor
    is left out (every change of its file lands there), and so are tests, docs and vendored or
    generated files."""
    if where.wide or not product_source(where.path):
        return
    fixes = followed(history)
    if fixes and fixed_lines(history) & near():
        said = (f"Each of the last {CHANGES} changes to {code(name)} was followed within "
                f"{WITHIN_DAYS} days by a fix")
    elif (fixes := fix_prone(history, ctx.now)) and (touched := [f for f in fixes if f.commit in near()]):
        said = f"{code(name)} was fixed {len(fixes)} times in the last {PRONE_DAYS} days"
        fixes = touched + [f for f in fixes if f not in touched]  # what the change touches first
    else:
        return
    named = "; ".join(f"{commit_ref(f.commit, ctx.links)} “{inline(f.subject, 80)}” "
                      f"({relative_age(f.timestamp, ctx.now)})" for f in fixes[:SHOWN_FIXES])
    body = f"{said}: {named}. This change touches it again: test what those fixes guarded."
    ctx.add(where.path, where.line, where.side, "fragile", body,
            min(MAX_CONFIDENCE, BASE + PER_FIX * len(fixes)), (f"fragile:{where.path}::{name}",), where.symbol)
