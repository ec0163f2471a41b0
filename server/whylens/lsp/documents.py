"""A document as the features see it: its repository, current text (unsaved edits included),
outline (cached per text) and the symbol under a cursor.

Refuses what it cannot or must not read: URIs outside every workspace repository, non-file URIs,
binary and huge files. Refusal is ``None`` plus a debug log, never an exception.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from pygls.uris import to_fs_path

from whylens.lsp.workspaces import RepoWorkspace
from whylens.models import Symbol
from whylens.symbols.languages import language_for_path
from whylens.symbols.outline import outline
from whylens.symbols.skip import MAX_SOURCE_BYTES

if TYPE_CHECKING:
    from whylens.lsp.server import WhyLensServer

log = logging.getLogger(__name__)

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_OUTLINE_CACHE_SIZE = 64


@dataclass(frozen=True)
class Document:
    uri: str
    ws: RepoWorkspace
    path: str  # relative to the repository root, posix
    text: str
    lines: list[str]
    language: str | None
    symbols: tuple[Symbol, ...]

    def symbol_under_cursor(self, line: int, column: int) -> Symbol | None:
        """The symbol whose name is under (line 1-based, column str index), or whose definition
        starts on that line, or — for a call site — the one symbol of this file with that name."""
        on_name = [s for s in self.symbols
                   if s.name_line == line and s.name_col <= column <= s.name_end_col]
        if on_name:
            return max(on_name, key=lambda s: s.start_line)
        on_def = [s for s in self.symbols if s.start_line == line]
        if on_def:
            return max(on_def, key=lambda s: s.start_line)
        word = word_at(self.lines[line - 1] if 0 < line <= len(self.lines) else "", column)
        named = [s for s in self.symbols if word and s.short_name == word]
        return named[0] if len(named) == 1 else None

    def symbol_named(self, name: str) -> Symbol | None:
        return next((s for s in self.symbols if s.name == name), None)

    def innermost(self, line: int) -> Symbol | None:
        inside = [s for s in self.symbols if s.start_line <= line <= s.end_line]
        return max(inside, key=lambda s: s.start_line) if inside else None


def utf8_size_over(text: str, limit: int) -> bool:
    """True when ``text`` takes more than ``limit`` bytes in UTF-8 (without encoding it when its
    length alone decides: a code point is 1 to 4 bytes)."""
    if len(text) > limit:
        return True
    if 4 * len(text) <= limit:
        return False
    return len(text.encode("utf-8", "replace")) > limit


def word_at(line: str, column: int) -> str | None:
    for match in _IDENTIFIER.finditer(line):
        if match.start() <= column <= match.end():
            return match.group()
    return None


class Documents:
    """Builds ``Document`` values; the outline is parsed once per distinct text."""

    def __init__(self, server: WhyLensServer) -> None:
        self.server = server
        self._outlines: OrderedDict[tuple[str, str], tuple[Symbol, ...]] = OrderedDict()

    def get(self, uri: str) -> Document | None:
        if not isinstance(uri, str) or not uri.startswith("file:"):
            log.debug("not a file URI: %r", uri)
            return None
        fs_path = to_fs_path(uri)
        if not fs_path:
            return None
        path = Path(fs_path)
        found = self.server.workspaces.for_path(path)
        if found is None:
            log.debug("refused %s: outside every workspace repository", path)
            return None
        ws, rel = found
        text = self._text(uri, path)
        if text is None:
            return None
        lines = text.splitlines(keepends=True) or [""]
        language = language_for_path(rel)
        return Document(uri, ws, rel, text, lines, language, self._outline(rel, text, language))

    def _text(self, uri: str, path: Path) -> str | None:
        open_doc = self.server.workspace.text_documents.get(unquote(uri))
        if open_doc is not None:
            text = open_doc.source
            if utf8_size_over(text, MAX_SOURCE_BYTES):
                log.debug("skipped %s: too large", path)
                return None
        else:
            try:
                if not path.is_file() or path.stat().st_size > MAX_SOURCE_BYTES:
                    return None
                text = path.read_bytes().decode("utf-8", "replace")
            except OSError as exc:
                log.debug("cannot read %s: %s", path, exc)
                return None
        if "\x00" in text[:8192]:
            log.debug("skipped %s: binary", path)
            return None
        return text

    def _outline(self, rel: str, text: str, language: str | None) -> tuple[Symbol, ...]:
        if language is None:
            return ()
        key = (rel, hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=16).hexdigest())
        cached = self._outlines.get(key)
        if cached is None:
            cached = tuple(outline(text.encode("utf-8", "replace"), language))
            self._outlines[key] = cached
            if len(self._outlines) > _OUTLINE_CACHE_SIZE:
                self._outlines.popitem(last=False)
        else:
            self._outlines.move_to_end(key)
        return cached
