"""Definitions out of a tree: the language's query, nesting, qualified names, reuse.

The definitions query runs from the file root down ``SEARCH_DEPTH`` levels, then again below
each definition it finds (so nested definitions are found at any depth while tree-sitter skips
the expression subtrees that make up most of a file). Each match becomes a ``Proto``; nesting
then gives each its parent and qualified name (see ``naming`` for the per-language rules).

``reparse_outline`` builds the outline of an edited version of a blob: the tree is re-parsed
incrementally, and every definition that lies outside the edited lines (and outside the ranges
tree-sitter reports as changed) is copied from the previous outline with its rows and bytes
shifted, subtree and all, instead of being extracted again.
"""

from __future__ import annotations

import logging
from bisect import bisect_right, insort

from tree_sitter import Node, QueryCursor, Tree

from whylens.models import Symbol
from whylens.symbols.naming import clean_name, go_receiver, rust_impl
from whylens.symbols.parse import (
    METHOD_CONTAINERS, Definition, Outline, Proto, edit_tree, grammar, line_starts, offset,
    parse_tree,
)
from whylens.symbols.positions import utf8_col_to_str

log = logging.getLogger(__name__)

# Definitions are looked for within this many levels below the file root or below another
# definition (tree-sitter skips deeper subtrees: most of a file's nodes are expressions).
SEARCH_DEPTH = 5
_RUBY_CONTAINERS = METHOD_CONTAINERS | {"module"}
# Where a definition's body sits, tried in order (field paths from the definition node).
_BODY_PATHS = (("body",), ("definition", "body"), ("value", "body"), ("type", "body"))


def parse_outline(source: bytes, language: str) -> Outline:
    """Parse ``source`` from scratch. Never raises: garbage gives what parsed, or nothing."""
    try:
        tree = parse_tree(language, source)
        if tree is None:
            return Outline(language, source, None)
        return _extract(language, source, tree, None)
    except Exception:
        log.debug("outline failed for a %s blob", language, exc_info=True)
        return Outline(language, source, None)


def reparse_outline(previous: Outline, source: bytes,
                    ranges: list[tuple[int, int, int, int]]) -> Outline:
    """The outline of ``source``, an edit of ``previous``'s source by ``ranges``.

    ``ranges``: (previous row, row count, new row, row count), 0-based first rows, as in
    ``parse.edit_tree``. Falls back to a full parse when anything goes wrong.
    """
    language = previous.language
    try:
        starts = line_starts(source)
        edited = edit_tree(previous.tree, previous, source, starts, ranges)
        tree = parse_tree(language, source, edited)
        if tree is None:
            return parse_outline(source, language)
        reuse = _Reuse(previous, source, starts, ranges, edited, tree)
        outline = _extract(language, source, tree, reuse)
        outline._line_starts = starts
        return outline
    except Exception:
        log.debug("incremental outline failed for a %s blob", language, exc_info=True)
        return parse_outline(source, language)


class _Reuse:
    """Which definitions of the new version can be copied from the previous outline."""

    def __init__(self, previous: Outline, source: bytes, starts: list[int],
                 ranges: list[tuple[int, int, int, int]], edited: Tree, tree: Tree) -> None:
        self.previous = previous
        prev_starts, prev_len, new_len = previous.line_starts(), len(previous.source), len(source)
        regions = []  # changed spans in the new version, and shifts after each edit
        shifts = []
        delta_bytes = delta_rows = 0
        for p_row, p_count, n_row, n_count in sorted(ranges, key=lambda r: r[2]):
            n_start, n_end = offset(starts, n_row, new_len), offset(starts, n_row + n_count,
                                                                    new_len)
            p_start, p_end = offset(prev_starts, p_row, prev_len), offset(
                prev_starts, p_row + p_count, prev_len)
            regions.append((n_start, n_end))
            delta_bytes += (n_end - n_start) - (p_end - p_start)
            delta_rows += n_count - p_count
            shifts.append((n_end, delta_bytes, delta_rows))
        regions.extend((r.start_byte, r.end_byte) for r in tree.changed_ranges(edited))
        self.regions = sorted(regions)
        self.shift_ends = [s[0] for s in shifts]
        self.shifts = shifts
        self.by_start = {}
        for index, d in enumerate(previous.definitions):
            self.by_start.setdefault(d.proto.start, index)

    def _touches_change(self, start: int, end: int) -> bool:
        for r_start, r_end in self.regions:  # few regions per change
            if r_start <= end and start <= r_end:
                return True
        return False

    def copy(self, node: Node, kind: str) -> list[Proto] | None:
        """The shifted protos of ``node``'s definition and everything inside it, or None."""
        start, end = node.start_byte, node.end_byte
        if self._touches_change(start, end):
            return None
        k = bisect_right(self.shift_ends, start) - 1
        delta_bytes, delta_rows = (self.shifts[k][1], self.shifts[k][2]) if k >= 0 else (0, 0)
        index = self.by_start.get(start - delta_bytes)
        defs = self.previous.definitions
        if index is None:
            return None
        top = defs[index].proto
        if top.end - top.start != end - start or top.kind != kind:
            return None
        copied = []
        for d in defs[index:]:
            p = d.proto
            if p.start >= top.end:
                break
            copied.append(Proto(
                p.start + delta_bytes, p.end + delta_bytes, p.body + delta_bytes, p.kind, p.own,
                p.scope, p.start_row + delta_rows, p.end_row + delta_rows,
                p.name_row + delta_rows, p.name_col, p.name_end_col, p.open_ended))
        return copied


def _extract(language: str, source: bytes, tree: Tree, reuse: _Reuse | None) -> Outline:
    outline = Outline(language, source, tree)
    query = grammar(language)[1]
    found: dict[int, tuple[str, Node, dict]] = {}  # name start byte → (kind, node, captures)
    copied: list[Proto] = []
    copied_spans: list[tuple[int, int]] = []
    queue = [tree.root_node]
    while queue:
        top = queue.pop()
        cursor = QueryCursor(query)
        cursor.set_max_start_depth(SEARCH_DEPTH)
        new_keys = []
        for _, captures in cursor.matches(top):
            kind = node = None
            for key, nodes in captures.items():
                if key.startswith("definition."):
                    kind, node = key[11:], nodes[0]
            anchor = captures.get("name") or captures.get("impl.type")
            if node is None or not anchor:
                continue
            key = anchor[0].start_byte
            seen = found.get(key)
            if seen is None:
                found[key] = (kind, node, captures)
                new_keys.append(key)
            elif node.start_byte < seen[1].start_byte:  # the outer node (decorators) wins
                found[key] = (kind, node, captures)
        new_keys.sort(key=lambda k: (found[k][1].start_byte, -found[k][1].end_byte))
        for key in new_keys:
            kind, node, _ = found[key]
            if node.id == top.id or _inside_any(node, copied_spans):
                continue  # the search's own root, or already copied with its parent
            protos = reuse.copy(node, kind) if reuse is not None else None
            if protos:
                copied.extend(protos)
                insort(copied_spans, (node.start_byte, node.end_byte))
            else:
                queue.append(node)
    protos = copied + [_proto(language, source, kind, node, captures)
                       for kind, node, captures in found.values()
                       if not _inside_any(node, copied_spans)]
    protos.sort(key=lambda p: (p.start, -p.end))
    _build(outline, protos)
    return outline


def _inside_any(node: Node, spans: list[tuple[int, int]]) -> bool:
    """Whether ``node`` lies inside one of ``spans`` (sorted, disjoint)."""
    if not spans:
        return False
    start = node.start_byte
    k = bisect_right(spans, (start, float("inf"))) - 1
    return k >= 0 and spans[k][0] <= start and node.end_byte <= spans[k][1]


def _proto(language: str, source: bytes, kind: str, node: Node, captures: dict) -> Proto:
    own, scope, name_node = _names(source, captures)
    start_point, end_point = node.start_point, node.end_point
    end_row = end_point.row - 1 if end_point.column == 0 and end_point.row > start_point.row \
        else end_point.row
    name_start, name_end = name_node.start_byte, name_node.end_byte
    line_start = source.rfind(b"\n", 0, name_start) + 1
    line_end = source.find(b"\n", name_start)
    line = source[line_start:line_end if line_end >= 0 else len(source)]
    open_ended = kind == "namespace" and node.child_by_field_name("body") is None
    return Proto(
        start=node.start_byte, end=node.end_byte, body=_body_start(node, captures),
        kind=kind, own=own, scope=scope, start_row=start_point.row, end_row=end_row,
        name_row=name_node.start_point.row,
        name_col=utf8_col_to_str(line, name_start - line_start),
        name_end_col=utf8_col_to_str(line, min(name_end, line_start + len(line)) - line_start),
        open_ended=open_ended,
    )


def _names(source: bytes, captures: dict) -> tuple[str, str, Node]:
    """(own name, scope for children, node whose position names the symbol)."""
    def text(n: Node) -> str:
        return source[n.start_byte:n.end_byte].decode("utf-8", "replace")

    if "impl.type" in captures:
        type_node = captures["impl.type"][0]
        trait = captures.get("impl.trait")
        display, scope = rust_impl(text(trait[0]) if trait else None, text(type_node))
        return display, scope, type_node
    name_node = captures["name"][0]
    name = clean_name(text(name_node)) or "_"
    receiver = captures.get("receiver")
    if receiver:
        name = f"{go_receiver(text(receiver[0]))}.{name}"
    return name, name, name_node


def _body_start(node: Node, captures: dict) -> int:
    explicit = captures.get("body")
    if explicit:
        return explicit[0].start_byte
    for path in _BODY_PATHS:
        current = node
        for name in path:
            current = current.child_by_field_name(name)
            if current is None:
                break
        else:
            return current.start_byte
    return node.end_byte


def _build(outline: Outline, protos: list[Proto]) -> None:
    """Nest the protos (outer before inner) into definitions with qualified names."""
    source, language = outline.source, outline.language
    containers = _RUBY_CONTAINERS if language == "ruby" else METHOD_CONTAINERS
    defs = outline.definitions
    stack: list[int] = []
    for p in protos:
        start, end, body, end_row = p.start, p.end, p.body, p.end_row
        while stack and defs[stack[-1]].end_byte <= start:
            stack.pop()
        parent = stack[-1] if stack else -1
        if parent >= 0 and p.open_ended and defs[parent].proto.open_ended:
            _cut(outline, parent, start)  # a second "namespace X;" ends the one before
            stack.pop()
            parent = stack[-1] if stack else -1
        if p.open_ended:  # the rest of the enclosing scope
            end = body = defs[parent].end_byte if parent >= 0 else len(source)
            end_row = _last_row(source, end, p.start_row)
        kind = p.kind
        if parent >= 0 and kind == "function" and defs[parent].symbol.kind in containers:
            kind = "method"
        prefix = defs[parent].scope + "." if parent >= 0 else ""
        name = p.own if p.own.startswith("(") else prefix + p.own
        symbol = Symbol(name, kind, p.start_row + 1, end_row + 1, p.name_row + 1, p.name_col,
                        p.name_end_col)
        defs.append(Definition(symbol, start, end, body, parent, prefix + p.scope, p))
        stack.append(len(defs) - 1)
    _promote_out_of_line_methods(defs)


def _last_row(source: bytes, end: int, start_row: int) -> int:
    """0-based row of the last line of source[:end] (a trailing newline ends the line)."""
    newlines = source.count(b"\n", 0, end)
    return max(start_row, newlines - 1 if source[end - 1:end] == b"\n" else newlines)


def _cut(outline: Outline, index: int, end: int) -> None:
    d = outline.definitions[index]
    d.end_byte = d.body_byte = end
    s = d.symbol
    last = _last_row(outline.source, end, s.start_line - 1)
    d.symbol = Symbol(s.name, s.kind, s.start_line, last + 1, s.name_line, s.name_col,
                      s.name_end_col)


def _promote_out_of_line_methods(defs: list[Definition]) -> None:
    """C++ ``void Server::serve() {}`` outside its class is a method when ``Server`` is a type."""
    types = {d.symbol.name for d in defs if d.symbol.kind in METHOD_CONTAINERS}
    if not types:
        return
    for d in defs:
        s = d.symbol
        if s.kind == "function" and "." in s.name and s.name.rsplit(".", 1)[0] in types:
            d.symbol = Symbol(s.name, "method", s.start_line, s.end_line, s.name_line,
                              s.name_col, s.name_end_col)
