"""Does a fix's logic survive a change that rewrites its lines? (``rewrites-fix``, round 33)

A change that takes out lines a past fix added is worth a warning only when what the fix put
there is gone. A reformat, a rename around the fix, the fix's lines moved within the file or a
line added next to them rewrite the fix's lines (their k-grams change) but keep its tokens.

- **The fix's tokens**: the tokens its added lines hold more often than its removed lines (a
  multiset difference: ``if x >= 0`` for ``if x > 0`` is ``=``), less layout (commas,
  parentheses, semicolons, which formatters move) and block-string quotes.
- **What the change takes out of them**: those tokens on the change's removed lines that carry
  the fix's lines (the lines the matched k-grams start on, and lines equal, token for token, to
  a line the fix added), as a multiset.
- **What survives**: of that, the share the change's added lines of the same file hold again
  (``SCOPE = "file"``: the fix moved into a helper stays found) or only those of the hunks that
  took them out (``"hunk"``).

``review_reapply`` stays silent when the share is at least ``KEPT_SHARE`` (chosen on the tune
replays, ``bench/tune_survival.py``), and otherwise names the tokens that are gone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from whylens.markup import code
from whylens.retrieval.review_hunks import FileView, git_lines
from whylens.retrieval.review_patches import FilePatch
from whylens.retrieval.review_tokens import BLOCK, lex_style, tokens

KEPT_SHARE = 0.8  # silent when this share of the fix's tokens it takes out is back (tune: 0.80, round 33)
SCOPE = "file"  # where the tokens may come back: "file" (any added line) or "hunk"
_LAYOUT = frozenset(",();\\") | {BLOCK}


@dataclass(frozen=True)
class Survival:
    kept: int  # the fix's tokens the change takes out and adds again
    total: int  # the fix's tokens the change takes out
    gone: tuple[str, ...]  # the ones not added again: names and literals first

    @property
    def share(self) -> float:
        """0 when the change takes out none of the fix's tokens: a fix that only reordered or
        removed tokens (``sign()``'s return order) cannot be told kept this way."""
        return self.kept / self.total if self.total else 0.0


def _bag(lines, style: str) -> Counter:
    return Counter(t for line in lines for t in tokens(line, style) if t not in _LAYOUT)


def fix_tokens(patch: FilePatch, style: str) -> Counter:
    """What the fix added: its added lines' tokens less its removed lines' (a multiset)."""
    return _bag((t for _, t in patch.added), style) - _bag((t for _, t in patch.removed), style)


def taken_lines(view: FileView, patch: FilePatch, taken_at: set[int], style: str) -> set[int]:
    """The change's removed lines (base numbers) that carry the fix's lines: where the matched
    k-grams start (``taken_at``) and the lines equal, token for token, to one the fix added."""
    fixed = {tuple(tokens(t, style)) for _, t in patch.added} - {()}
    return set(taken_at) | {n for n, t in view.removed if tuple(tokens(t, style)) in fixed}


def _hunk_added(view: FileView, old_lines: set[int]) -> list[str]:
    """The added lines of the hunks that remove ``old_lines``."""
    head = git_lines(view.head_text)
    out: list[str] = []
    for hunk in view.hunks:
        if any(hunk.old_start <= n < hunk.old_start + hunk.old_count for n in old_lines):
            out += [head[n - 1] for n in range(hunk.new_start, hunk.new_start + hunk.new_count)
                    if 0 < n <= len(head)]
    return out


def survival(view: FileView, patch: FilePatch, taken_at: set[int], scope: str = "") -> Survival:
    """How much of what the fix added, among what the change takes out, the change adds again."""
    style = lex_style(view.path)
    lines = taken_lines(view, patch, taken_at, style)
    removed = dict(view.removed)
    taken = fix_tokens(patch, style) & _bag((removed[n] for n in lines if n in removed), style)
    scope = scope or SCOPE
    added = _hunk_added(view, lines) if scope == "hunk" else [t for _, t in view.added]
    back = taken & _bag(added, style)
    gone = taken - back
    # names and literals first, operators after, each in the fix's order
    return Survival(sum(back.values()), sum(taken.values()),
                    tuple(sorted(gone, key=lambda t: not (t[0].isalnum() or t[0] in '_$"'))))


def keeps_fix(found: Survival) -> bool:
    """The change keeps what the fix added: no warning."""
    return found.share >= KEPT_SHARE


def gone_text(found: Survival, most: int = 6) -> str:
    """``"`verify`, `None`"``: the fix's tokens the change takes out for good."""
    shown = [code(t, 40) for t in found.gone[:most]]  # a history's token is never markup
    more = len(found.gone) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")
