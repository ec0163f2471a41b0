"""Hover: the why-card of the symbol under the cursor or around its line, from the current
(unsaved) text; inside a symbol, with the change that last touched the line."""

from __future__ import annotations

import time
from typing import ClassVar

from lsprotocol import types

from whylens.lsp import positions
from whylens.lsp.guard import guarded
from whylens.lsp.server import Feature
from whylens.render.cards import hover_card
from whylens.retrieval.why import symbol_story


class HoverFeature(Feature):
    name: ClassVar[str] = "hover"

    def register(self) -> None:
        self.server.feature(types.TEXT_DOCUMENT_HOVER)(guarded(self.hover))

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        """The card of the symbol named under the cursor, else of the innermost symbol around
        the line; inside a symbol it also says which change last touched that line."""
        ls = self.server
        if not ls.settings.hover.enabled:
            return None
        doc = ls.documents.get(params.text_document.uri)
        if doc is None or doc.ws.reader is None:
            return None
        codec = ls.workspace.position_codec
        line, column = positions.to_server(codec, doc.lines, params.position)
        if not 0 < line <= len(doc.lines):
            return None
        symbol = doc.symbol_under_cursor(line, column)
        on_name = symbol is not None
        if symbol is None and doc.lines[line - 1].strip():
            symbol = doc.innermost(line)
        if symbol is None:
            return None
        inside = symbol.start_line <= line <= symbol.end_line  # not a call site elsewhere
        story = symbol_story(doc.ws.reader, doc.path, symbol, now=time.time(),
                             line=line if inside else None)
        card = hover_card(story, doc.ws.links) if story.known else None
        if not card:
            return None
        where = positions.name_range(codec, doc.lines, symbol) if on_name and \
            symbol.name_line == line else positions.line_range(codec, doc.lines, line)
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=card),
            range=where,
        )
