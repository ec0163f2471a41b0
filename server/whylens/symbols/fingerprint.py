"""Is a symbol's change substantive? Token comparison with comments and whitespace removed.

A definition's *own* text is its span minus the spans of the definitions nested in it (their
changes are theirs: innermost wins). Comparing two versions of a definition:

1. own text byte-identical → the same tokens;
2. own text with comments (tree-sitter's comment nodes) and all whitespace deleted differs →
   some token differs (whitespace and comments are all that lies between tokens), so the change
   is substantive: ``signature`` if the part before the body differs, else ``body``;
3. otherwise (only whitespace or comments changed, or a token boundary moved: ``not x`` →
   ``notx``, ``"a b"`` → ``"a  b"``, a Python statement indented into a block) the exact check
   walks both trees and compares leaf tokens *and* the nesting of named nodes, comments skipped.

Steps 1-2 are C-speed bytes operations; step 3 is a Python tree walk, needed only for
formatting-only edits.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from whylens.symbols.parse import COMMENT_MARKERS, Outline

if TYPE_CHECKING:
    from tree_sitter import Node

_WHITESPACE = b" \t\n\r\f\v"


def own_spans(outline: Outline, index: int, start: int, end: int) -> list[tuple[int, int]]:
    """Child-definition spans inside [start, end) of definition ``index``, sorted."""
    defs = outline.definitions
    return [(defs[c].start_byte, defs[c].end_byte) for c in outline.children(index)
            if defs[c].start_byte < end and defs[c].end_byte > start]


def _cut(source: bytes, start: int, end: int, holes: list[tuple[int, int]]) -> bytes:
    """source[start:end] without the (sorted, possibly overlapping) ``holes``."""
    if not holes:
        return source[start:end]
    pieces, pos = [], start
    for hole_start, hole_end in holes:
        if hole_end <= pos:
            continue
        if hole_start > pos:
            pieces.append(source[pos:min(hole_start, end)])
        pos = max(pos, hole_end)
        if pos >= end:
            break
    if pos < end:
        pieces.append(source[pos:end])
    return b"".join(pieces)


def _comments_in(outline: Outline, start: int, end: int) -> list[tuple[int, int]]:
    return outline.comments_in(start, end)


def _own_comments(outline: Outline, kids: list[tuple[int, int]], start: int,
                  end: int) -> list[tuple[int, int]]:
    """Comments starting in [start, end) outside the ``kids`` spans (holes anyway)."""
    spans: list[tuple[int, int]] = []
    pos = start
    for kid_start, kid_end in kids:
        if kid_start > pos:
            spans += outline.comments_in(pos, min(kid_start, end))
        pos = max(pos, kid_end)
        if pos >= end:
            return spans
    return spans + outline.comments_in(pos, end)


def _strip(text: bytes) -> bytes:
    return text.replace(b"\\\r\n", b"").replace(b"\\\n", b"").translate(None, _WHITESPACE)


def own_raw(outline: Outline, index: int) -> bytes:
    """The definition's text without its members' spans (memoised)."""
    key = ("raw", index)
    cached = outline.memo.get(key)
    if cached is None:
        d = outline.definitions[index]
        kids = own_spans(outline, index, d.start_byte, d.end_byte)
        cached = outline.memo[key] = _cut(outline.source, d.start_byte, d.end_byte, kids)
    return cached


def prints(outline: Outline, index: int) -> tuple[bytes, bytes, bytes]:
    """(own raw text, stripped signature, stripped body) of definition ``index`` (memoised)."""
    key = ("prints", index)
    cached = outline.memo.get(key)
    if cached is not None:
        return cached
    d = outline.definitions[index]
    source = outline.source
    raw = own_raw(outline, index)
    kids = own_spans(outline, index, d.start_byte, d.end_byte)
    markers = COMMENT_MARKERS.get(outline.language, ())
    if markers and not any(m in raw for m in markers):
        holes = kids  # no comment in its own text: no need to ask the tree
    else:
        holes = sorted(kids + _own_comments(outline, kids, d.start_byte, d.end_byte))
    signature = _strip(_cut(source, d.start_byte, d.body_byte, holes))
    body = _strip(_cut(source, d.body_byte, d.end_byte, holes))
    result = (raw, signature, body)
    outline.memo[key] = result
    return result


def full_body(outline: Outline, index: int) -> bytes:
    """The stripped body *with* its members: what a renamed or moved definition keeps."""
    key = ("full", index)
    cached = outline.memo.get(key)
    if cached is None:
        d = outline.definitions[index]
        comments = _comments_in(outline, d.body_byte, d.end_byte)
        cached = outline.memo[key] = _strip(_cut(outline.source, d.body_byte, d.end_byte,
                                                 comments))
    return cached


def change_kind(old: Outline, i: int, new: Outline, j: int) -> str | None:
    """``signature``, ``body`` or None (no substantive change) between two versions."""
    if own_raw(old, i) == own_raw(new, j):
        return None
    _, old_sig, old_body = prints(old, i)
    _, new_sig, new_body = prints(new, j)
    if old_sig != new_sig:
        return "signature"
    if old_body != new_body:
        return "body"
    od, nd = old.definitions[i], new.definitions[j]
    if _tokens(old, i, od.start_byte, od.body_byte) != _tokens(new, j, nd.start_byte, nd.body_byte):
        return "signature"
    if _tokens(old, i, od.body_byte, od.end_byte) != _tokens(new, j, nd.body_byte, nd.end_byte):
        return "body"
    return None


def _tokens(outline: Outline, index: int, start: int, end: int) -> list:
    """Leaf tokens and named-node nesting inside [start, end), skipping comments and children."""
    if start >= end:
        return []
    key = ("tokens", index, start, end)
    cached = outline.memo.get(key)
    if cached is None:
        cached = outline.memo[key] = _walk_tokens(outline, index, start, end)
    return cached


def _walk_tokens(outline: Outline, index: int, start: int, end: int) -> list:
    tree = outline.tree
    if tree is None:  # no tree to walk: fall back to the raw text (conservative)
        return [outline.source[start:end]]
    kids = own_spans(outline, index, start, end)
    holes = _merge(kids + _own_comments(outline, kids, start, end))
    hole_starts = [h[0] for h in holes]
    source = outline.source
    d = outline.definitions[index]
    # Walk from the definition's node (the same node for the signature and the body part, so
    # the nesting markers line up between versions), keeping what lies inside [start, end).
    node = tree.root_node.descendant_for_byte_range(d.start_byte, d.end_byte) or tree.root_node
    while node.parent is not None and node.parent.start_byte == node.start_byte \
            and node.parent.end_byte == node.end_byte:
        node = node.parent
    out: list = []
    append = out.append
    hole_ends = [h[1] for h in holes]
    cursor = node.walk()
    first_child, next_sibling, up = (cursor.goto_first_child, cursor.goto_next_sibling,
                                     cursor.goto_parent)
    named_stack: list[bool] = []
    while True:
        # never None: the cursor only moves between existing nodes (a hot loop: no assert)
        current: Node = cursor.node  # type: ignore[assignment]
        s, e = current.start_byte, current.end_byte
        if e > start and s < end:
            k = bisect_right(hole_starts, s) - 1  # the last hole starting at or before s
            if k < 0 or e > hole_ends[k]:  # not inside a (merged) hole
                if current.child_count == 0:
                    append((current.type, source[s:e]))
                elif first_child():
                    named = current.is_named
                    if named:
                        append(current.type)
                    named_stack.append(named)
                    continue
        while not next_sibling():  # climb until a next sibling exists
            if not named_stack or not up():
                return out
            if named_stack.pop():  # close the group; drop it when nothing was kept inside
                if out and isinstance(out[-1], str) and out[-1] != ")":
                    out.pop()
                else:
                    append(")")


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            if e > merged[-1][1]:
                merged[-1] = (merged[-1][0], e)
        else:
            merged.append((s, e))
    return merged
