"""A change's base lines → the lines of the index's revision, for the index's line blame.

The line blame (``IndexReader.line_blame``) is of the revision the index was built at. A pull
request's base is often another one (reviewed with the mainline's index, ``merge^1``; or the
index is of a branch tip): line *n* of the base is then another line of the indexed version,
or none. The two versions of the file are diffed (``symbols.hunks.diff_hunks``, as
``pipeline.blame`` moves older versions' lines onto the previous revision's; whitespace left
out, since the index's blame passes over layout-only commits) and a base line is looked up at
the line it has there. A base line the indexed version changed is looked up at the lines that
replaced it (at most ``MAX_REPLACING``; a deletion: the lines either side): the commit that
changed them since the change's base touched what the change touches (review13: on requests'
tune replay three useful ``fragile`` comments came from the mainline's fixes of those lines).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from whylens.symbols.hunks import diff_hunks

LineMap = Callable[[int], "tuple[int, ...]"]
MAX_REPLACING = 6  # lines of the indexed version's replacement looked at, nearest first


def same(line: int) -> tuple[int, ...]:
    return (line,)


def unknown(_line: int) -> tuple[int, ...]:
    return ()


def _layout_free(text: str) -> bytes:
    """One line per git line (``\\n``), its whitespace collapsed."""
    return "\n".join(" ".join(line.split()) for line in text.split("\n")).encode("utf-8", "replace")


def line_map(base: str | None, indexed: str | None, replaced: bool = True) -> LineMap:
    """base line → the lines of ``indexed`` whose blame speaks for it: the same line, or the
    lines that replaced it (none when not ``replaced``). Without the indexed version
    (``indexed`` None) no line is known; without the base, or when both are the same text,
    lines are taken as they are."""
    if base is None or base == indexed:
        return same
    if indexed is None:
        return unknown
    hunks = diff_hunks(_layout_free(base), _layout_free(indexed))
    if hunks is None:  # too far apart to diff: nothing is known of the base's lines there
        return unknown
    # git's -U0 numbers: a count of 0 names the line before; *_after is the first line past it
    olds = [(h.old_start, h.old_count) for h in hunks]
    news = [(h.new_start, h.new_count) for h in hunks]
    old_afters = [s + c if c else s + 1 for s, c in olds]
    new_afters = [s + c if c else s + 1 for s, c in news]

    def at(line: int) -> tuple[int, ...]:
        k = bisect_right(old_afters, line) - 1
        nxt = k + 1
        if nxt < len(olds) and olds[nxt][1] and olds[nxt][0] <= line:
            return replacing(nxt, line) if replaced else ()
        return (line,) if k < 0 else (line - old_afters[k] + new_afters[k],)

    def replacing(k: int, line: int) -> tuple[int, ...]:
        (old_start, old_count), (new_start, new_count) = olds[k], news[k]
        if not new_count:  # deleted there: the lines either side
            return tuple(n for n in (new_start, new_start + 1) if n > 0)
        where = new_start + (line - old_start) * new_count // old_count  # the same place, scaled
        lines = sorted(range(new_start, new_start + new_count), key=lambda n: (abs(n - where), n))
        return tuple(sorted(lines[:MAX_REPLACING]))
    return at
