"""A revert that only reorders lines, and a change that puts them back in the reverted order.

Fingerprints cannot see such a revert: every line is on both sides of it (axios 7cf19f6
"Reverting #234" swaps two ``else if`` branches back), so nothing is only removed or only added.
The order is the evidence. Each hunk of the revert is read on both sides (its context and changed
lines, as code tokens, blank and comment lines dropped); the lines both sides start and end with
are trimmed, leaving the ``core`` that moved. A hunk is a move when its two cores hold the same
lines in a different order. The change re-applies it when its base holds the revert's order and
its head the order the revert undid (each as consecutive code lines).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from whylens.retrieval.review_hunks import FileView, git_lines
from whylens.retrieval.review_patches import FilePatch
from whylens.retrieval.review_tokens import consecutive_blocks, lex_style, meaningful, tokens

MIN_CORE = 2  # code lines naming something (not only keywords) a moved core holds at least
_LAYOUT = frozenset(",;")  # a moved last branch gains or loses a separator

Line = tuple[str, ...]


@dataclass(frozen=True)
class Moves:
    """The revert's moved hunks in one file and those the change moves back."""

    moved: int
    back: int
    line: int  # head line where the first one moved back starts

    @property
    def undone(self) -> float:
        return self.back / self.moved if self.moved else 0.0


def moved_back(view: FileView, patch: FilePatch) -> Moves | None:
    """The hunks of ``patch`` that only reorder lines, and how many the change puts back in the
    order they had before it; None when the patch moves nothing or the change restores none."""
    if view.base_text is None or view.head_text is None:
        return None
    style = lex_style(patch.path)
    cores = [c for c in _cores(patch, style) if _is_move(*c)]
    if not cores:
        return None
    base = _code(git_lines(view.base_text), style)
    head = _code(git_lines(view.head_text), style)
    back = []
    for before, after in cores:
        at = _find(head, before)
        if at is not None and _find(base, after) is not None and _find(base, before) is None:
            back.append(at)
    if not back:
        return None
    return Moves(len(cores), len(back), min(back))


def _cores(patch: FilePatch, style: str) -> list[tuple[list[Line], list[Line]]]:
    """Per hunk, the code lines before and after the revert less their shared start and end."""
    out = []
    for old, new in zip(_hunks(patch.old_context + patch.removed),
                        _hunks(patch.new_context + patch.added), strict=False):
        before = [line for _n, line in _code(old, style)]
        after = [line for _n, line in _code(new, style)]
        while before and after and before[0] == after[0]:
            before, after = before[1:], after[1:]
        while before and after and before[-1] == after[-1]:
            before, after = before[:-1], after[:-1]
        out.append((before, after))
    return out


def _is_move(before: list[Line], after: list[Line]) -> bool:
    """The same lines in another order, ``MIN_CORE`` of them naming something (not braces)."""
    return (sum(map(meaningful, before)) >= MIN_CORE and before != after
            and Counter(before) == Counter(after))


def _hunks(lines: Iterable[tuple[int, str]]) -> list[list[str]]:
    """Lines of one side grouped by consecutive numbers: one group per hunk."""
    texts = dict(lines)
    return [[texts[n] for n in block] for block in consecutive_blocks(sorted(texts))]


def _code(lines: Sequence[str], style: str) -> list[tuple[int, Line]]:
    """(1-based number, code tokens less separators) of each line that has code tokens."""
    out = []
    for number, text in enumerate(lines, 1):
        code = tuple(t for t in tokens(text, style) if t not in _LAYOUT)
        if code:
            out.append((number, code))
    return out


def _find(lines: list[tuple[int, Line]], core: list[Line]) -> int | None:
    """The number of the line where ``core`` starts as consecutive code lines, or None."""
    size = len(core)
    for i in range(len(lines) - size + 1):
        if lines[i][1] == core[0] and [code for _n, code in lines[i:i + size]] == core:
            return lines[i][0]
    return None
