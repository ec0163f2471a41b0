"""Where the lines of a file version were before a ``-U0`` diff, and which removed line became
which added one: the line arithmetic that ``tracking`` (carrying definitions back) and
``blame`` (carrying a line back) share."""

from __future__ import annotations

import difflib
from bisect import bisect_right

from whylens.symbols.hunks import HunkText

ALIGN_MAX_CELLS = 250_000  # a hunk bigger than this (removed × added lines) aligns by position


def after(hunk: HunkText) -> tuple[int, int]:
    """(first new line after the hunk, first old line after it)."""
    new_after = hunk.new_start + hunk.new_count if hunk.new_count else hunk.new_start + 1
    old_after = hunk.old_start + hunk.old_count if hunk.old_count else hunk.old_start + 1
    return new_after, old_after


class LineMapper:
    """Where a new line was in the old version: ``locate(line)`` is the old line number when
    no hunk added the line, else ``-1 - k`` for hunk ``k``."""

    def __init__(self, hunks: list[HunkText]) -> None:
        self.hunks = hunks
        self.afters = [after(h) for h in hunks]
        self.new_afters = [a[0] for a in self.afters]

    def locate(self, line: int) -> int:
        k = bisect_right(self.new_afters, line) - 1  # the hunks before ``line`` end at k
        hunks = self.hunks
        if k + 1 < len(hunks):
            h = hunks[k + 1]
            if h.new_count and h.new_start <= line:
                return -2 - k
        if k < 0:
            return line
        new_after, old_after = self.afters[k]
        return line - new_after + old_after

    def added_by(self, line: int) -> int:
        """Index of the hunk that added ``line``, or -1 when the line is unchanged."""
        where = self.locate(line)
        return -1 - where if where < 0 else -1

    def unchanged_from(self, line: int, limit: int, step: int) -> int | None:
        """The first line from ``line`` towards ``limit`` that no hunk added, or None."""
        k = self.added_by(line)
        if k < 0:
            return line
        hunk = self.hunks[k]
        candidate = hunk.new_start + hunk.new_count if step > 0 else hunk.new_start - 1
        if (step > 0 and candidate > limit) or (step < 0 and candidate < limit):
            return None
        return candidate if self.added_by(candidate) < 0 else None


def align(removed: tuple[bytes, ...], added: tuple[bytes, ...]) -> list[int | None]:
    """For each removed line, the added line it became (None: deleted outright); with the
    arguments swapped, for each added line the removed line it replaced."""
    if not added:
        return [None] * len(removed)
    if len(removed) == len(added):
        return list(range(len(removed)))
    out: list[int | None] = [None] * len(removed)
    matcher = difflib.SequenceMatcher(None, [r.strip() for r in removed],
                                      [a.strip() for a in added],
                                      autojunk=len(removed) * len(added) > ALIGN_MAX_CELLS)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("equal", "replace"):
            for i in range(i1, i2):
                out[i] = j1 + min((i - i1) * (j2 - j1) // (i2 - i1), j2 - j1 - 1)
    return out
