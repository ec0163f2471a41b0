"""Co-change: files and symbols that history changes together, one of which this change leaves out.

Support and confidence as code-maat counts coupling, from the index's commit → files table and
symbol events (``reader.co_changes``): over the last ``RECENT`` commits that touched the changed
file (or symbol), leaving out filtered commits and commits of more than ``MAX_CHANGESET`` files,
a partner seen together ``together`` times has confidence ``together / n``. A partner counts when
``together >= MIN_TOGETHER``, its weighted support (each shared commit weighing 1 / (its files
- 1): pairs changed alone, not files swept along in a sync of a whole folder) reaches
``MIN_WEIGHT``, confidence is ``>= MIN_SHARE``, it exists at head, and this change does not touch
it. A partner whose lift is under ``MIN_LIFT`` (confidence over the share of all
commits that change the partner: a changelog, a hub file) is left out: it changes with
everything, so its coupling says nothing about this file.

Only partners in another file count (the reviewer sees the rest of the changed file), and neither
side may be vendored, generated or a lock file (their co-changes are imports and regenerations).
Confidence 0.25 + 0.5 × share + 0.1 when seen together ``STRONG_TOGETHER`` times or more,
+0.05 for a symbol partner (a narrower claim). One partner per changed file.
"""

from __future__ import annotations

from collections.abc import Callable

from whylens.markup import code
from whylens.retrieval.review_context import ReviewContext
from whylens.retrieval.review_hunks import FileView
from whylens.retrieval.review_tokens import fingerprint
from whylens.symbols.skip import path_skip_reason

RECENT = 50
MAX_CHANGESET = 30  # code-maat's default maximum changeset size
MIN_TOGETHER = 5
STRONG_TOGETHER = 10
MIN_SHARE = 0.6
MIN_LIFT = 2.0
MIN_WEIGHT = 2.5  # support with each shared commit weighted 1 / (its files - 1)
MAX_SYMBOLS = 20  # changed symbols whose partners are looked up
MAX_FILES = 100


# (confidence, together, n, partner path, partner symbol, own symbol, (side, line))
Candidate = tuple[float, int, int, str, "str | None", "str | None", tuple[str, int]]


def check(ctx: ReviewContext, views: list[FileView], exists: Callable[[str], bool]) -> None:
    touched_paths = {p for v in views for p in v.paths}
    touched_symbols = {(v.path, c.symbol.name) for v in views for c in v.changed_symbols()
                       if c.symbol is not None}
    budget = MAX_SYMBOLS
    for view in views[:MAX_FILES]:
        best: Candidate | None = None
        if view.change.status in ("A", "D") or _not_source(view.path) or not _substantive(view):
            continue
        for changed in view.changed_symbols():
            if changed.symbol is None or budget <= 0:
                continue
            budget -= 1
            n, partners, population = ctx.reader.co_changes(
                view.path, RECENT, MAX_CHANGESET, symbol=changed.symbol.name, min_together=MIN_TOGETHER)
            for path, symbol, together, weight, total in partners:
                if path in view.paths or (path, symbol) in touched_symbols or _not_source(path) \
                        or not _counts(n, together, weight, total, population):
                    continue
                if path not in touched_paths and not exists(path):
                    continue
                candidate: Candidate = (together / n, together, n, path, symbol, changed.symbol.name,
                             (changed.side, changed.line))
                if best is None or candidate[:2] > best[:2]:
                    best = candidate
                break  # most frequent first: the first that counts is this symbol's best
        n, partners, population = ctx.reader.co_changes(view.path, RECENT, MAX_CHANGESET,
                                                        min_together=MIN_TOGETHER)
        for path, _none, together, weight, total in partners:
            if path in touched_paths or _not_source(path) \
                    or not _counts(n, together, weight, total, population) or not exists(path):
                continue
            candidate = (together / n, together, n, path, None, None, _first_line(view))
            if best is None or candidate[:2] > best[:2]:
                best = candidate
            break
        if best is not None:
            _report(ctx, view, *best)


def _counts(n: int, together: int, weight: float, total: int, population: int) -> bool:
    """Support (also weighted by commit size), confidence, and lift (confidence over the
    partner's own rate of change)."""
    if n <= 0 or together < MIN_TOGETHER or weight < MIN_WEIGHT or together / n < MIN_SHARE:
        return False
    return population <= 0 or (together / n) / (max(total, 1) / population) >= MIN_LIFT


def _not_source(path: str) -> bool:
    return path_skip_reason(path) in ("lock_file", "vendored", "generated", "minified")


def _substantive(view: FileView) -> bool:
    """Comment- or whitespace-only edits need no partner."""
    return bool(fingerprint(view.added, view.path).keys() ^ fingerprint(view.removed, view.path).keys())


def _first_line(view: FileView) -> tuple[str, int]:
    if view.added:
        return "RIGHT", view.added[0][0]
    return "LEFT", view.removed[0][0] if view.removed else 1


def _report(ctx: ReviewContext, view: FileView, share: float, together: int, n: int, path: str,
            symbol: str | None, own_symbol: str | None, at: tuple[str, int]) -> None:
    side, line = at
    what = f"{code(symbol)} in {code(path)}" if symbol else code(path)
    mine = code(own_symbol or view.path)
    confidence = 0.25 + 0.5 * share + (0.1 if together >= STRONG_TOGETHER else 0) \
        + (0.05 if symbol else 0)
    body = (f"{mine} changed together with {what} in {together} of the last {n} commits that "
            f"changed it; {what} is untouched here. Does it need the same change?")
    key = f"co-change:{path}::{symbol or ''}"
    ctx.add(view.path, line, side, "co-change", body, confidence, (key,),
            own_symbol or view.symbol_at(line))
