"""One changed file as the review sees it: its lines added and removed, and the symbols they land in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from whylens.models import FileChange, Hunk, Symbol
from whylens.symbols.skip import MAX_SOURCE_BYTES
from whylens.retrieval.review_tokens import block_starts, cosmetic
from whylens.symbols.languages import language_for_path
from whylens.symbols.outline import outline, symbol_at

TextReader = Callable[[str], "str | None"]
WIDE_SHARE = 0.8  # a symbol covering this share of its file's lines is a file-wide anchor
WIDE_MIN_LINES = 40  # in a file of at least this many lines (a smaller file is about one thing)


def file_wide(symbol: Symbol | None, file_lines: int) -> bool:
    """``symbol`` stands for its whole file rather than one definition in it: it covers
    ``WIDE_SHARE`` of a file of ``WIDE_MIN_LINES`` or more. A CommonJS ``module.exports =
    function …`` holding the file, a Ruby ``module Sinatra`` wrapping it, a test class whose
    cases are blocks (no symbols of their own): every change to a line no inner symbol covers
    lands there, so what history anchors to it is about the file at large."""
    if symbol is None or file_lines < WIDE_MIN_LINES:
        return False
    return symbol.end_line - symbol.start_line + 1 >= WIDE_SHARE * file_lines


@dataclass(frozen=True)
class ChangedSymbol:
    path: str
    symbol: Symbol | None  # None: the change is outside any symbol
    line: int  # the first changed line, where a comment goes
    side: str  # RIGHT (added/changed lines) or LEFT (a pure deletion)
    added: str  # the added lines' text inside this symbol
    wide: bool = False  # the symbol is a file-wide anchor (``file_wide``)


@dataclass(frozen=True)
class FileView:
    """A changed text file: head outline, added lines (new numbers), removed lines (old numbers).

    Hunks of a source file that only re-format, re-comment or re-word (``review_tokens.cosmetic``)
    are left out when the base side is known: no check speaks about them."""

    change: FileChange
    head_text: str | None
    base_text: str | None
    symbols: tuple[Symbol, ...]
    added: tuple[tuple[int, str], ...]  # lines of the hunks that change code
    removed: tuple[tuple[int, str], ...]
    hunks: tuple[Hunk, ...] = ()  # the hunks that change code (not only layout or prose)
    base_symbols: tuple[Symbol, ...] = ()  # the base version's outline (where removed lines sat)

    @property
    def path(self) -> str:
        return self.change.path

    @property
    def paths(self) -> list[str]:
        """The file's name now and before a rename (history lookups try both)."""
        return [self.change.path] + ([self.change.old_path] if self.change.old_path else [])

    def symbol_at(self, line: int) -> Symbol | None:
        return symbol_at(list(self.symbols), line) if self.symbols else None

    def base_symbol_at(self, old_line: int) -> Symbol | None:
        """The symbol a removed line sat in (base numbering)."""
        return symbol_at(list(self.base_symbols), old_line) if self.base_symbols else None

    def changed_symbols(self) -> list[ChangedSymbol]:
        return changed_symbols(replace(self.change, hunks=self.hunks), self.head_text, list(self.symbols))


def changed_lines(change: FileChange) -> int:
    return sum(h.old_count + h.new_count for h in change.hunks)


def file_view(change: FileChange, read_head: TextReader, read_base: TextReader | None) -> FileView | None:
    """The view of one change, or None for a binary file or one whose text cannot be read."""
    if change.binary:
        return None
    head = None if change.status == "D" else safe_read(read_head, change.path)
    base = None
    if read_base is not None and change.status != "A":
        base = safe_read(read_base, change.old_path or change.path)
    if head is None and base is None:
        return None
    lines = git_lines(head)
    old_lines = git_lines(base)
    added: list[tuple[int, str]] = []
    removed: list[tuple[int, str]] = []
    kept: list[Hunk] = []
    code = language_for_path(change.path) is not None and base is not None
    head_blocks = block_starts(lines, change.path) if code else []
    base_blocks = block_starts(old_lines, change.path) if code else []
    for hunk in change.hunks:
        new = [(n, lines[n - 1]) for n in range(hunk.new_start, hunk.new_start + hunk.new_count)
               if 0 < n <= len(lines)]
        old = [(n, old_lines[n - 1]) for n in range(hunk.old_start, hunk.old_start + hunk.old_count)
               if 0 < n <= len(old_lines)]
        if code and cosmetic([t for _, t in old], [t for _, t in new], change.path,
                             bool(old) and base_blocks[old[0][0] - 1], bool(new) and head_blocks[new[0][0] - 1]):
            continue  # re-formatted, re-commented or re-worded (a docstring too): no code changed here
        kept.append(hunk)
        added += new
        removed += old
    base_outline = head_outline(change.old_path or change.path, base) if removed else []
    return FileView(change, head, base, tuple(head_outline(change.path, head)), tuple(added),
                    tuple(removed), tuple(kept), tuple(base_outline))


def head_outline(path: str, text: str | None) -> list[Symbol]:
    """The outline of ``text`` (either side of a change) for the language of ``path``."""
    if text is None:
        return []
    data = text.encode("utf-8", "replace")
    language = language_for_path(path)
    return outline(data, language) if language and len(data) <= MAX_SOURCE_BYTES else []


def changed_symbols(change: FileChange, head_text: str | None,
                    symbols: list[Symbol] | None = None) -> list[ChangedSymbol]:
    """Hunks → the innermost symbols they land in at head, with the added lines of each."""
    if change.binary or head_text is None:
        return []
    lines = git_lines(head_text)
    if symbols is None:
        symbols = head_outline(change.path, head_text)
    found: dict[str | None, ChangedSymbol] = {}
    added: dict[str | None, list[str]] = {}
    for hunk in change.hunks:
        if hunk.new_count == 0:  # a pure deletion: the comment goes on the old side
            anchor = max(1, hunk.new_start)
            sym = symbol_at(symbols, anchor) if symbols else None
            key = sym.name if sym else None
            found.setdefault(key, ChangedSymbol(change.path, sym, max(1, hunk.old_start), "LEFT", ""))
            continue
        for number in range(hunk.new_start, hunk.new_start + hunk.new_count):
            sym = symbol_at(symbols, number) if symbols else None
            key = sym.name if sym else None
            if key not in found or found[key].side == "LEFT":
                found[key] = ChangedSymbol(change.path, sym, number, "RIGHT", "")
            if 0 < number <= len(lines):
                added.setdefault(key, []).append(lines[number - 1])
    return [
        ChangedSymbol(c.path, c.symbol, c.line, c.side, "\n".join(added.get(key, [])),
                      file_wide(c.symbol, len(lines)))
        for key, c in found.items()
    ]


def git_lines(text: str | None) -> list[str]:
    """Lines as git numbers them: split at newlines only (a lone CR or a form feed is not a
    line break to git, unlike ``str.splitlines``)."""
    if not text:
        return []
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def safe_read(read: TextReader, path: str) -> str | None:
    try:
        return read(path)
    except (OSError, UnicodeError, ValueError):
        return None
