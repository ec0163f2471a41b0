"""A change's base lines → the lines of the index's revision, for the index's line blame.

The line blame (``IndexReader.line_blame``) is of the revision the index was built at. A pull
request's base is often another one (reviewed with the mainline's index, ``merge^1``; or the
index is of a branch tip): line *n* of the base is then another line of the indexed version,
or none. The two versions of the file are diffed (``symbols.hunks.diff_hunks``, as
``pipeline.blame`` moves older versions' lines onto the previous revision's) and a base line
is looked up at the line it has there; a line the indexed version changed has no blame.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from whylens.symbols.hunks import diff_hunks

LineMap = Callable[[int], "int | None"]


def same(line: int) -> int | None:
    return line


def unknown(_line: int) -> int | None:
    return None


def line_map(base: str | None, indexed: str | None) -> LineMap:
    """base line → the same line in ``indexed`` (None when it changed or is absent there).
    Without the indexed version (``indexed`` None) no line is known; without the base, or when
    both are the same text, lines are taken as they are."""
    if base is None or base == indexed:
        return same
    if indexed is None:
        return unknown
    hunks = diff_hunks(base.encode("utf-8", "replace"), indexed.encode("utf-8", "replace"))
    if hunks is None:  # too far apart to diff: nothing is known of the base's lines there
        return unknown
    # git's -U0 numbers: a count of 0 names the line before; *_after is the first line past it
    olds = [(h.old_start, h.old_count) for h in hunks]
    old_afters = [s + c if c else s + 1 for s, c in olds]
    new_afters = [h.new_start + h.new_count if h.new_count else h.new_start + 1 for h in hunks]

    def at(line: int) -> int | None:
        k = bisect_right(old_afters, line) - 1
        nxt = k + 1
        if nxt < len(olds) and olds[nxt][1] and olds[nxt][0] <= line:
            return None  # a line the indexed version changed
        return line if k < 0 else line - old_afters[k] + new_afters[k]
    return at
