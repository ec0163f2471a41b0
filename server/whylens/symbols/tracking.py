"""One file version's definitions as line ranges, and what one file change did to them.

A ``FileState`` is what the anchorer keeps of a parsed blob: each definition's qualified name,
kind and lines (no source, no tree). Walking newest first, a file change turns the state of its
new blob into the state of its old blob in one of two ways:

- ``track_back`` (no parsing; the way ``git log -L`` follows a range): every definition's lines
  are carried through the ``-U0`` hunks to the old version, definitions whose lines are all added
  lines are born in this commit, and the removed lines of a hunk are attributed to definitions
  by aligning them with the added lines (a pure deletion belongs to the innermost definition
  around it; in Python, also to one that ends just before it when the removed lines are indented
  deeper than its header). The anchorer uses it only when the hunks cannot have removed or
  renamed a definition (see ``hunks.defined_names``).
- ``compare_parsed``: the old version was parsed; definitions pair up by (qualified name,
  occurrence), removed lines belong to the old version's definitions.

Either way each touched definition collects its removed and added lines, split into header (up
to where its body starts) and body, and ``change_kind.classify`` decides what the change was: nothing
(blank lines, comments), ``formatting`` (layout, quotes, wrapping, typing-only), ``signature``
or ``body``. Only the definition's own lines count (innermost wins, as in ``outline.symbol_at``).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from whylens.symbols.hunks import HunkText, defined_names
from whylens.symbols.line_map import LineMapper, align
from whylens.symbols.parse import Outline

@dataclass(slots=True)
class Span:
    """One definition of a file version, by lines (1-based, inclusive)."""

    name: str  # qualified
    kind: str
    start: int
    end: int
    name_line: int  # where its name is spelt
    header_end: int  # last line of the part before the body
    indent: int  # width of the first line's indentation
    parent: int  # index of the enclosing span, -1 at top level
    body_col: int = -1  # where on line ``header_end`` the body starts, when it shares the line

    @property
    def short(self) -> str:
        return self.name.rsplit(".", 1)[-1]


class FileState:
    """The spans of one blob, outer before inner (by start line)."""

    __slots__ = ("language", "spans", "_starts")

    def __init__(self, language: str, spans: list[Span]) -> None:
        self.language = language
        self.spans = spans
        self._starts = [s.start for s in spans]

    @classmethod
    def from_outline(cls, outline: Outline) -> FileState:
        source = outline.source
        starts = outline.line_starts()
        absolute = [offset + row for row, offset in enumerate(starts)]
        spans = []
        for d in outline.definitions:
            s = d.symbol
            body_row = bisect_right(absolute, d.body_byte) - 1
            line_start = absolute[body_row] if body_row < len(absolute) else len(source)
            lead = source[line_start:d.body_byte]
            body_col = -1
            if d.body_byte >= d.end_byte:
                header_end = s.end_line
            elif lead.strip():  # the body starts after other text on its line
                header_end, body_col = body_row + 1, len(lead)
            else:
                header_end = max(body_row, s.start_line)
            first = absolute[s.start_line - 1] if s.start_line - 1 < len(absolute) else 0
            text = source[first:first + 200]
            indent = len(text) - len(text.lstrip(b" \t"))
            header_end = min(max(header_end, s.start_line), s.end_line)
            spans.append(Span(s.name, s.kind, s.start_line, s.end_line, s.name_line or s.start_line,
                              header_end, indent, d.parent,
                              body_col if header_end == body_row + 1 else -1))
        return cls(outline.language, spans)

    def owner(self, line: int) -> int:
        """Index of the innermost span covering ``line``, or -1."""
        k = bisect_right(self._starts, line) - 1
        spans = self.spans
        while k >= 0 and spans[k].end < line:
            k = spans[k].parent
        return k

    def gap_owner(self, after: int, indent: int | None) -> int:
        """The span that lines removed between ``after`` and ``after + 1`` belonged to: the
        innermost one around the gap, or (Python, ``indent`` given) the innermost one ending
        before it whose header is less indented than the removed lines."""
        k = bisect_right(self._starts, after) - 1
        spans = self.spans
        while k >= 0 and spans[k].end <= after:
            if indent is not None and indent > spans[k].indent and after - spans[k].end <= 2:
                return k  # Python: deeper than its header (blank lines between), so inside it
            k = spans[k].parent
        return k

    def decorated(self, after: int, text: bytes) -> int:
        """The span starting at ``after + 1`` when ``text`` is a decorator or annotation line
        (``@...``), which belongs to the definition below it; else -1."""
        if not text.lstrip().startswith(b"@"):
            return -1
        k = bisect_right(self._starts, after + 1) - 1
        return k if k >= 0 and self.spans[k].start == after + 1 else -1

    def keys(self) -> dict[tuple[str, int], int]:
        """(qualified name, occurrence) → index; overloads pair up in source order."""
        seen: dict[str, int] = {}
        out: dict[tuple[str, int], int] = {}
        for index, span in enumerate(self.spans):
            n = seen.get(span.name, 0)
            seen[span.name] = n + 1
            out[(span.name, n)] = index
        return out


@dataclass
class Touch:
    """The removed and added lines of one definition in one file change."""

    old_header: list[bytes] = field(default_factory=list)
    new_header: list[bytes] = field(default_factory=list)
    old_body: list[bytes] = field(default_factory=list)
    new_body: list[bytes] = field(default_factory=list)

    def add(self, new: bool, span: Span, line: int, text: bytes, header: bool,
            column: int = -1) -> None:
        """One line of ``span``; the line its header shares with its body is split in two at
        ``column`` (the body's column on that line, when known on this side)."""
        head, body = (self.new_header, self.new_body) if new else (self.old_header,
                                                                  self.old_body)
        if line == span.header_end and column > 0:
            head.append(text[:column])
            body.append(text[column:])
        else:
            (head if header else body).append(text)


# -- carrying a state back through hunks --------------------------------------------------------


def born_spans(state: FileState, hunks: list[HunkText]) -> tuple[set[int], set[int]]:
    """(spans whose lines one hunk added: new in this change, or rewritten; other spans whose
    name line was added: maybe new around old lines, or renamed).

    A span a hunk rewrote whole, when that hunk's removed lines define the same names as its
    added lines (a one-line function edited, a small function rewritten), is neither: it is
    carried like any edited span."""
    born: set[int] = set()
    named: set[int] = set()
    if not any(h.new_count for h in hunks):
        return born, named
    mapper = LineMapper(hunks)
    locate = mapper.locate
    same_names: dict[int, bool] = {}
    for index, span in enumerate(state.spans):
        where = locate(span.start)
        if where < 0 and locate(span.end) == where:
            k = -2 - where
            if k not in same_names:
                same_names[k] = _same_names(state.language, hunks[k])
            if not same_names[k]:
                born.add(index)
        elif locate(span.name_line) < 0:
            named.add(index)
    return born, named


def _same_names(language: str, hunk: HunkText) -> bool:
    """Whether a hunk's removed and added lines define the same names, and some."""
    if not hunk.removed:
        return False
    removed = defined_names(language, hunk.removed)
    return bool(removed) and removed == defined_names(language, hunk.added)


def _python_indent(lines: tuple[bytes, ...] | list[bytes]) -> int | None:
    widths = [len(line.expandtabs(8)) - len(line.expandtabs(8).lstrip())
              for line in lines if line.strip()]
    return min(widths) if widths else None


def _gap(hunk: HunkText, aligned: list[int | None], i: int) -> int:
    """The new line after which removed line ``i`` (aligned to nothing) sat."""
    before = next((a for a in reversed(aligned[:i]) if a is not None), None)
    if hunk.new_count == 0:
        return hunk.new_start
    return hunk.new_start + before if before is not None else hunk.new_start - 1


def _attribute(language: str, state: FileState, hunk: HunkText,
               skip: set[int]) -> list[tuple[int, int, int, bool]]:
    """(old line, new line it aligns to or after which it sat, owner span, header?) for each
    removed line, owners taken from ``state`` (the new version); spans in ``skip`` pass their
    lines to their first ancestor not in it."""
    aligned = align(hunk.removed, hunk.added)
    indent = _python_indent(hunk.removed) if language == "python" else None
    spans = state.spans
    out = []
    for i, target in enumerate(aligned):
        if target is not None:
            line = hunk.new_start + target
            owner = state.owner(line)
            header = owner >= 0 and line <= spans[owner].header_end
        else:
            line = _gap(hunk, aligned, i)
            owner = state.decorated(line, hunk.removed[i])
            if owner < 0:
                owner = state.gap_owner(line, indent)
            header = owner >= 0 and line < spans[owner].header_end
        while owner in skip:
            owner = spans[owner].parent
            header = False
        out.append((hunk.old_start + i, line, owner, header))
    return out


def _touch_added(state: FileState, hunks: list[HunkText], touches: dict[int, Touch],
                 skip: set[int], key=lambda k: k) -> None:
    spans = state.spans
    for hunk in hunks:
        for j, text in enumerate(hunk.added):
            line = hunk.new_start + j
            owner = state.owner(line)
            if owner < 0 or owner in skip:
                continue
            span = spans[owner]
            touches.setdefault(key(owner), Touch()).add(True, span, line, text,
                                                        line <= span.header_end, span.body_col)


def track_back(language: str, state: FileState, hunks: list[HunkText],
               born: set[int]) -> tuple[FileState, dict[int, Touch]]:
    """(the old version's state, touches by new span index); ``born``: ``born_spans``."""
    touches: dict[int, Touch] = {}
    _touch_added(state, hunks, touches, born)
    spans = state.spans
    low: dict[int, int] = {}
    high: dict[int, int] = {}
    for hunk in hunks:
        for old_line, line, owner, in_header in _attribute(language, state, hunk, born):
            if owner < 0:
                continue
            span = spans[owner]
            text = hunk.removed[old_line - hunk.old_start]
            column = _shared_column(span, line, text, hunk)
            touches.setdefault(owner, Touch()).add(False, span, line if in_header else -1, text,
                                                   in_header, column)
            k = owner
            while k >= 0:
                low[k] = min(low.get(k, old_line), old_line)
                high[k] = max(high.get(k, old_line), old_line)
                k = spans[k].parent
    mapper = LineMapper(hunks)
    locate = mapper.locate
    kept: list[tuple[int, int, int]] = []  # (old start, -old end, new index)
    bounds: dict[int, tuple[int, int, int]] = {}
    for index, span in enumerate(spans):
        if index in born:
            continue
        start: int = locate(span.start)
        end: int = locate(span.end)
        if start < 0 or end < 0 or index in low:  # the span meets a hunk
            first = mapper.unchanged_from(span.start, span.end, 1)
            last = mapper.unchanged_from(span.end, span.start, -1)
            starts = [locate(first)] if first is not None else []
            ends = [locate(last)] if last is not None else []
            if index in low:
                starts.append(low[index])
                ends.append(high[index])
            if not starts or not ends:
                continue
            start, end = min(starts), max(max(ends), min(starts))
        header = locate(span.header_end)
        if not start <= header <= end:  # a hunk rewrote the header's last line: the body's
            body = locate(span.header_end + 1) - 1  # first line still marks where it ended
            header = body if start <= body <= end and span.header_end < span.end else min(
                start + (span.header_end - span.start), end)
        bounds[index] = (start, end, header)
        kept.append((start, -end, index))
    kept.sort()
    position = {index: n for n, (_, _, index) in enumerate(kept)}
    old_spans = []
    for _, _, index in kept:
        span = spans[index]
        start, end, header = bounds[index]
        parent = span.parent
        while parent >= 0 and parent not in position:
            parent = spans[parent].parent
        name_line = locate(span.name_line)
        if not start <= name_line <= end:
            name_line = start
        old_spans.append(Span(span.name, span.kind, start, end, name_line, header, span.indent,
                              position[parent] if parent >= 0 else -1, span.body_col))
    return FileState(language, old_spans), touches


def _shared_column(span: Span, line: int, removed: bytes, hunk: HunkText) -> int:
    """The body column for a removed line aligned to the line a one-line header shares with
    its body: the new column when the removed line starts the same way, else -1."""
    if span.body_col <= 0 or line != span.header_end or not hunk.new_count:
        return -1
    index = line - hunk.new_start
    if not 0 <= index < hunk.new_count:
        return -1
    column = span.body_col
    return column if hunk.added[index][:column] == removed[:column] else -1


# -- comparing with a parsed old version --------------------------------------------------------


def compare_parsed(language: str, old: FileState, new: FileState, hunks: list[HunkText]
                   ) -> tuple[dict[int, int], dict[int, Touch]]:
    """(old index → new index for the definitions that pair up, touches by new index).

    Definitions left unpaired on the new side were added, on the old side deleted."""
    old_keys, new_keys = old.keys(), new.keys()
    pairs = {i: new_keys[key] for key, i in old_keys.items() if key in new_keys}
    paired_new = set(pairs.values())
    unpaired_new = set(range(len(new.spans))) - paired_new
    touches: dict[int, Touch] = {}
    _touch_added(new, hunks, touches, unpaired_new)
    for hunk in hunks:
        for i, text in enumerate(hunk.removed):
            line = hunk.old_start + i
            owner = old.owner(line)
            if owner not in pairs:
                continue  # top level, or a definition deleted here
            span = old.spans[owner]
            touches.setdefault(pairs[owner], Touch()).add(False, span, line, text,
                                                          line <= span.header_end, span.body_col)
    return pairs, touches


def span_text(lines: list[bytes], span: Span, body_only: bool = True) -> bytes:
    """A span's text from the lines of its version (its body with members, by default)."""
    first = span.header_end if body_only and span.header_end < span.end else span.start - 1
    return b"".join(lines[first:span.end])
