"""tree-sitter plumbing: grammars and queries, parsing, tree edits, and the Outline of a blob.

An ``Outline`` is a parsed blob: its ``Definition`` rows (the public ``Symbol`` plus the byte
spans the anchorer needs: whole definition, where its body starts, its parent), line lookups
and comment spans. ``extract`` fills it in. A grammar that fails to load gives no symbols.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import TypeGuard, cast

from tree_sitter import Parser, Point, Query, QueryCursor, Tree

from whylens.models import Symbol
from whylens.symbols.languages import LANGUAGES

log = logging.getLogger(__name__)

# A function directly inside one of these is a method.
METHOD_CONTAINERS = frozenset({"class", "struct", "interface", "trait", "impl", "enum"})
# Every comment contains one of these (a cheap test before querying the tree for comments).
_C_LIKE = (b"//", b"/*")
COMMENT_MARKERS: dict[str, tuple[bytes, ...]] = {
    "python": (b"#",), "ruby": (b"#", b"=begin"), "php": (b"#", b"//", b"/*"),
    **{lang: _C_LIKE for lang in ("javascript", "typescript", "tsx", "go", "java", "rust", "c",
                                  "cpp", "csharp", "kotlin")},
}
# Languages whose comments are all leaf nodes of this type starting with the language's marker:
# their comments are found by looking up the node at each marker (C-speed lookups) instead of
# running the comments query over the span.
_LEAF_COMMENT_TYPES = {"python": "comment"}
# In a queries/<lang>.scm file, the comment patterns follow this line.
COMMENTS_SEPARATOR = "; --- comments"


@dataclass(slots=True)
class Definition:
    """One definition of a parsed file: its symbol and the byte spans behind it."""

    symbol: Symbol
    start_byte: int
    end_byte: int
    body_byte: int  # where the body starts (== end_byte when there is none)
    parent: int  # index of the enclosing definition (-1: none)
    scope: str  # the prefix its children get ("Bar" for "impl Foo for Bar")
    proto: Proto  # what it was built from (reused by incremental outlines)


@dataclass(slots=True)
class Proto:
    """A definition as found in the tree, before nesting gives it a qualified name."""

    start: int
    end: int
    body: int
    kind: str  # as captured; "function" becomes "method" inside a class-like parent
    own: str  # its own name part: "send", "(*Server).Serve", "impl Foo for Bar"
    scope: str  # the name part its children get: "Bar" for "impl Foo for Bar"
    start_row: int  # 0-based, inclusive
    end_row: int
    name_row: int
    name_col: int  # code points
    name_end_col: int
    open_ended: bool = False  # "namespace X;": covers the rest of its enclosing scope
    built: Symbol | None = None  # the last symbol built from it (reused while name/kind match)


@dataclass(slots=True)
class Outline:
    """A parsed blob: source, tree, definitions (outer before inner), comment spans."""

    language: str
    source: bytes
    tree: Tree | None
    definitions: list[Definition] = field(default_factory=list)
    memo: dict = field(default_factory=dict)  # per-blob derived data (fingerprints, keys)
    _owners: list[int] | None = None
    _line_starts: list[int] | None = None
    _children: list[list[int]] | None = None

    @property
    def symbols(self) -> list[Symbol]:
        return [d.symbol for d in self.definitions]

    def line_owners(self) -> list[int]:
        """``owners[line]`` = index of the innermost definition covering 1-based ``line``, or -1."""
        if self._owners is None:
            total = self.source.count(b"\n") + 2
            owners = [-1] * (total + 1)
            for index, d in enumerate(self.definitions):  # outer first: inner ones overwrite
                start, end = d.symbol.start_line, min(d.symbol.end_line, total)
                owners[start:end + 1] = [index] * (end - start + 1)
            self._owners = owners
        return self._owners

    def line_starts(self) -> list[int]:
        """Row-length prefix sums of the source (see ``offset``)."""
        if self._line_starts is None:
            self._line_starts = line_starts(self.source)
        return self._line_starts

    def comments_in(self, start: int, end: int) -> list[tuple[int, int]]:
        """Byte spans of the comments that start inside [start, end), sorted."""
        loaded = grammar(self.language)
        if self.tree is None or loaded is None or start >= end:
            return []
        markers = COMMENT_MARKERS.get(self.language, ())
        if markers and not any(self.source.find(m, start, end) >= 0 for m in markers):
            return []  # no comment can start without its marker
        leaf_type = _LEAF_COMMENT_TYPES.get(self.language)
        if leaf_type is not None:
            return _scan_comments(self.tree.root_node, self.source, markers[0], leaf_type,
                                  start, end)
        # only the subtree holding [start, end) is searched
        node = self.tree.root_node.descendant_for_byte_range(start, end) or self.tree.root_node
        cursor = QueryCursor(loaded[2])
        cursor.set_byte_range(start, end)
        spans: list[tuple[int, int]] = []
        for nodes in cursor.captures(node).values():
            spans.extend((n.start_byte, n.end_byte) for n in nodes if start <= n.start_byte < end)
        spans.sort()
        return spans

    def children(self, index: int) -> list[int]:
        """Indices of the definitions directly inside definition ``index``."""
        if self._children is None:
            kids: list[list[int]] = [[] for _ in self.definitions]
            for i, d in enumerate(self.definitions):
                if d.parent >= 0:
                    kids[d.parent].append(i)
            self._children = kids
        return self._children[index]


def _scan_comments(root, source: bytes, marker: bytes, leaf_type: str, start: int,
                   end: int) -> list[tuple[int, int]]:
    """Spans of the ``leaf_type`` nodes that start at a ``marker`` inside [start, end)."""
    spans = []
    pos = source.find(marker, start, end)
    while pos >= 0:
        node = root.descendant_for_byte_range(pos, pos + 1)
        after = pos + 1
        if node is not None and node.child_count == 0:
            if node.type == leaf_type and node.start_byte == pos:
                spans.append((pos, node.end_byte))
            after = max(after, node.end_byte)  # a leaf (string part, comment) holds no comment
        pos = source.find(marker, after, end)
    return spans


def line_starts(source: bytes) -> list[int]:
    """Prefix sums of row lengths: row ``r`` starts at byte ``starts[r] + r`` (see ``offset``)."""
    return list(itertools.accumulate(map(len, source.split(b"\n")), initial=0))


def offset(starts: list[int], row: int, length: int) -> int:
    """Byte offset where 0-based ``row`` starts (``length`` past the last row)."""
    return min(starts[row] + row, length) if row < len(starts) - 1 else length


# Grammars whose definitions query is another's text (TSX is TypeScript plus JSX), and query
# files appended to a grammar's own (JS and TS define members the same ways).
QUERY_FILE = {"tsx": "typescript"}
QUERY_EXTRA = {"javascript": ("js_members",), "typescript": ("js_members",), "tsx": ("js_members",)}


@lru_cache(maxsize=None)
def grammar(language: str):
    """(parser, definitions query, comments query) for ``language``, or None when it cannot be loaded."""
    if language not in LANGUAGES:
        return None
    try:
        from tree_sitter_language_pack import SupportedLanguage, get_language

        lang = get_language(cast(SupportedLanguage, language))  # checked: in LANGUAGES
        query_file = f"{QUERY_FILE.get(language, language)}.scm"
        text = resources.files("whylens.symbols").joinpath("queries", query_file).read_text(
            encoding="utf-8")
        definitions, _, comments = text.partition(COMMENTS_SEPARATOR)
        comments = comments.partition("\n")[2]  # the rest of the separator line is prose
        for extra in QUERY_EXTRA.get(language, ()):
            definitions += "\n" + resources.files("whylens.symbols").joinpath(
                "queries", f"{extra}.scm").read_text(encoding="utf-8")
        return Parser(lang), Query(lang, definitions), Query(lang, comments)
    except Exception:  # a broken wheel or query must not take the caller down
        log.exception("cannot load the %s grammar; its files get no symbols", language)
        return None


def supported(language: str | None) -> TypeGuard[str]:
    return language is not None and grammar(language) is not None


def parse_tree(language: str, source: bytes, old_tree: Tree | None = None) -> Tree | None:
    loaded = grammar(language)
    if loaded is None:
        return None
    parser = loaded[0]
    return parser.parse(source, old_tree) if old_tree is not None else parser.parse(source)


def edit_tree(tree: Tree, src: Outline, dst_source: bytes, dst_starts: list[int],
              ranges: list[tuple[int, int, int, int]]) -> Tree:
    """A copy of ``src``'s tree edited into ``dst_source``.

    ``ranges`` are (src_row, src_count, dst_row, dst_count) with 0-based first rows: the lines
    replaced in the source document and their replacement in the destination.
    """
    edited = tree.copy()
    src_starts, src_len, dst_len = src.line_starts(), len(src.source), len(dst_source)
    for src_row, src_count, dst_row, dst_count in sorted(ranges, reverse=True):
        start = offset(src_starts, src_row, src_len)
        old_end = offset(src_starts, src_row + src_count, src_len)
        span = offset(dst_starts, dst_row + dst_count, dst_len) - offset(dst_starts, dst_row,
                                                                        dst_len)
        edited.edit(start, old_end, start + span, Point(src_row, 0),
                    Point(src_row + src_count, 0), Point(src_row + dst_count, 0))
    return edited


