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
from bisect import bisect_left, bisect_right

from tree_sitter import Node, QueryCursor, Tree

from whylens.models import Symbol
from whylens.symbols.naming import definition_names
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
_WHITESPACE = frozenset(b" \t\r\n\f\v")
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
        if previous.tree is None:
            return parse_outline(source, language)
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
    """Which definitions of the previous outline survive an edit untouched, and where to look."""

    def __init__(self, previous: Outline, source: bytes, starts: list[int],
                 ranges: list[tuple[int, int, int, int]], edited: Tree, tree: Tree) -> None:
        self.previous = previous
        prev_starts, prev_len, new_len = previous.line_starts(), len(previous.source), len(source)
        self.old_regions: list[tuple[int, int]] = []  # edited spans in the previous version
        self.shifts: list[tuple[int, int, int]] = []  # (previous end, byte delta, row delta)
        new_regions = []  # their replacements in the new version
        delta_bytes = delta_rows = 0
        for p_row, p_count, n_row, n_count in sorted(ranges):
            p_start = offset(prev_starts, p_row, prev_len)
            p_end = offset(prev_starts, p_row + p_count, prev_len)
            n_start = offset(starts, n_row, new_len)
            n_end = offset(starts, n_row + n_count, new_len)
            # widened over surrounding whitespace: a definition that ended next to the edit in
            # one version may end a few blank lines before it in the other
            self.old_regions.append(_widen(previous.source, p_start, p_end))
            new_regions.append(_widen(source, n_start, n_end))
            delta_bytes += (n_end - n_start) - (p_end - p_start)
            delta_rows += n_count - p_count
            self.shifts.append((p_end, delta_bytes, delta_rows))
        self.shift_ends = [shift[0] for shift in self.shifts]
        new_regions.extend((r.start_byte, r.end_byte) for r in tree.changed_ranges(edited))
        self.old_regions = _merge(self.old_regions)
        self.old_ends = [r[1] for r in self.old_regions]
        self.new_regions = _merge(new_regions)
        self.new_ends = [r[1] for r in self.new_regions]

    def copies(self) -> tuple[list[Proto], list[tuple[int, int]]]:
        """Shifted protos of every untouched definition (with its subtree), and their spans."""
        copied: list[Proto] = []
        spans: list[tuple[int, int]] = []
        defs = self.previous.definitions
        until = -1
        probes = []
        for index, d in enumerate(defs):
            top = d.proto
            if top.start < until:
                continue
            k = bisect_right(self.shift_ends, top.start) - 1
            delta_bytes, delta_rows = self.shifts[k][1:] if k >= 0 else (0, 0)
            if _touches(self.old_regions, self.old_ends, top.start, top.end) or _touches(
                    self.new_regions, self.new_ends, top.start + delta_bytes,
                    top.end + delta_bytes):
                if not _touches(self.old_regions, self.old_ends, top.start, top.start):
                    # it starts in unchanged text: look for it there, however it now ends
                    probes.append((top.start + delta_bytes, top.start + delta_bytes))
                continue
            until = top.end
            spans.append((top.start + delta_bytes, top.end + delta_bytes))
            for inner in defs[index:]:
                p = inner.proto
                if p.start >= top.end:
                    break
                copied.append(p if not (delta_bytes or delta_rows) else Proto(
                    p.start + delta_bytes, p.end + delta_bytes, p.body + delta_bytes, p.kind,
                    p.own, p.scope, p.start_row + delta_rows, p.end_row + delta_rows,
                    p.name_row + delta_rows, p.name_col, p.name_end_col, p.open_ended,
                    None if delta_rows else p.built))
        self.search_regions = _merge(self.new_regions + probes)
        return copied, spans


def _widen(source: bytes, start: int, end: int) -> tuple[int, int]:
    while start > 0 and source[start - 1] in _WHITESPACE:
        start -= 1
    while end < len(source) and source[end] in _WHITESPACE:
        end += 1
    return start, end


def _touches(regions: list[tuple[int, int]], ends: list[int], start: int, end: int) -> bool:
    """Whether [start, end] meets one of the merged (closed) ``regions`` (``ends``: their ends)."""
    k = bisect_left(ends, start)
    return k < len(regions) and regions[k][0] <= end


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def _extract(language: str, source: bytes, tree: Tree, reuse: _Reuse | None) -> Outline:
    outline = Outline(language, source, tree)
    query = grammar(language)[1]
    if reuse is None:
        protos = [_proto(language, source, *row) for row in _search(query, tree.root_node)]
    else:
        protos, spans = reuse.copies()
        rows = _search_regions(query, tree.root_node, reuse.search_regions, len(source))
        rows = [row for row in rows if not _inside_any(row[1], spans)]
        span_starts = [span[0] for span in spans]
        if any(_conflicts(row[1], spans, span_starts) for row in rows):
            # the new tree disagrees with a copied definition (error recovery can stretch a
            # node far past the edit): extract everything afresh
            protos = [_proto(language, source, *row) for row in _search(query, tree.root_node)]
        else:
            protos += [_proto(language, source, *row) for row in rows]
    protos.sort(key=lambda p: (p.start, -p.end))
    _build(outline, protos)
    return outline


def _match_rows(cursor: QueryCursor, node: Node, found: dict) -> list[int]:
    """Record the definitions ``cursor`` matches under ``node``; return the new keys."""
    new_keys = []
    for _, captures in cursor.matches(node):
        kind = def_node = None
        for name, nodes in captures.items():
            if name.startswith("definition."):
                kind, def_node = name[11:], nodes[0]
        anchor = captures.get("name") or captures.get("impl.type")
        if def_node is None or not anchor:
            continue
        key = anchor[0].start_byte  # one definition per name node: the outer node wins
        seen = found.get(key)
        if seen is None:
            found[key] = (kind, def_node, captures)
            new_keys.append(key)
        elif def_node.start_byte < seen[1].start_byte:
            found[key] = (kind, def_node, captures)
    return new_keys


def _search(query, root: Node) -> list[tuple[str, Node, dict]]:
    """Definitions within ``SEARCH_DEPTH`` levels of the root or of another definition."""
    found: dict[int, tuple[str, Node, dict]] = {}
    queue = [root]
    while queue:
        top = queue.pop()
        cursor = QueryCursor(query)
        cursor.set_max_start_depth(SEARCH_DEPTH)
        for key in _match_rows(cursor, top, found):
            node = found[key][1]
            if node.id != top.id:
                queue.append(node)
    return list(found.values())


def _search_regions(query, root: Node, regions: list[tuple[int, int]],
                    length: int) -> list[tuple[str, Node, dict]]:
    """Definitions meeting ``regions``, kept by the same depth rule as ``_search``."""
    found: dict[int, tuple[str, Node, dict]] = {}
    for start, end in regions:
        cursor = QueryCursor(query)
        cursor.set_byte_range(max(start - 1, 0), min(end + 1, length))
        _match_rows(cursor, root, found)
    rows = sorted(found.values(), key=lambda row: (row[1].start_byte, -row[1].end_byte))
    accepted: set[int] = set()
    kept = []
    for row in rows:
        node: Node | None = row[1].parent
        distance = 1
        while True:
            if node is None:
                ok = distance - 1 <= SEARCH_DEPTH
                break
            if node.id in accepted:
                ok = distance <= SEARCH_DEPTH
                break
            node = node.parent
            distance += 1
        if ok:
            accepted.add(row[1].id)
            kept.append(row)
    return kept


def _conflicts(node: Node, spans: list[tuple[int, int]], starts: list[int]) -> bool:
    """A fresh definition that starts where a copied one does, or straddles one's edge.

    ``spans`` are sorted and disjoint (``starts``: their starts), so only the last span starting
    before the node's start can hold that start, and only the last one starting before its end
    can reach past that end.
    """
    start, end = node.start_byte, node.end_byte
    k = bisect_left(starts, start)
    if k < len(starts) and starts[k] == start:
        return True
    if k > 0 and start < spans[k - 1][1] < end:  # a span holding its start ends inside it
        return True
    m = bisect_left(starts, end) - 1
    return m >= 0 and start < starts[m] and end < spans[m][1]


def _inside_any(node: Node, spans: list[tuple[int, int]]) -> bool:
    """Whether ``node`` lies inside one of ``spans`` (sorted, disjoint)."""
    if not spans:
        return False
    start = node.start_byte
    k = bisect_right(spans, (start, float("inf"))) - 1
    return k >= 0 and spans[k][0] <= start and node.end_byte <= spans[k][1]


def _proto(language: str, source: bytes, kind: str, node: Node, captures: dict) -> Proto:
    own, scope, name_node = definition_names(source, captures)
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


def _body_start(node: Node, captures: dict) -> int:
    explicit = captures.get("body")
    if explicit:
        return explicit[0].start_byte
    for path in _BODY_PATHS:
        current: Node | None = node
        for name in path:
            current = current.child_by_field_name(name) if current is not None else None
            if current is None:
                break
        else:
            if current is not None:
                return current.start_byte
    return node.end_byte


def _build(outline: Outline, protos: list[Proto]) -> None:
    """Nest the protos (outer before inner) into definitions with qualified names."""
    source, language = outline.source, outline.language
    containers = _RUBY_CONTAINERS if language == "ruby" else METHOD_CONTAINERS
    defs = outline.definitions
    append = defs.append
    stack: list[int] = []
    stack_ends: list[int] = []  # end_byte of the stacked definitions
    for p in protos:
        start, end, body, end_row = p.start, p.end, p.body, p.end_row
        while stack_ends and stack_ends[-1] <= start:
            stack.pop()
            stack_ends.pop()
        parent = stack[-1] if stack else -1
        open_ended = p.open_ended
        if open_ended and parent >= 0 and defs[parent].proto.open_ended:
            _cut(outline, parent, start)  # a second "namespace X;" ends the one before
            stack.pop()
            stack_ends.pop()
            parent = stack[-1] if stack else -1
        if open_ended:  # the rest of the enclosing scope
            end = body = defs[parent].end_byte if parent >= 0 else len(source)
            end_row = _last_row(source, end, p.start_row)
        kind, own = p.kind, p.own
        if parent >= 0:
            outer = defs[parent]
            if kind == "function" and outer.symbol.kind in containers:
                kind = "method"
            prefix = outer.scope + "."
        else:
            prefix = ""
        name = own if own.startswith("(") else prefix + own
        symbol = p.built  # a copied proto usually keeps its symbol: skip rebuilding it
        if symbol is None or symbol.name != name or symbol.kind != kind \
                or symbol.end_line != end_row + 1:
            symbol = p.built = Symbol(name, kind, p.start_row + 1, end_row + 1, p.name_row + 1,
                                      p.name_col, p.name_end_col)
        stack.append(len(defs))
        stack_ends.append(end)
        append(Definition(symbol, start, end, body, parent, prefix + p.scope, p))
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
