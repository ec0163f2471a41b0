"""Hover: the why-card of the symbol under the cursor, from the current (unsaved) text."""

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
        ls = self.server
        if not ls.settings.hover.enabled:
            return None
        doc = ls.documents.get(params.text_document.uri)
        if doc is None or doc.ws.reader is None:
            return None
        codec = ls.workspace.position_codec
        line, column = positions.to_server(codec, doc.lines, params.position)
        symbol = doc.symbol_under_cursor(line, column)
        if symbol is None:
            return None
        story = symbol_story(doc.ws.reader, doc.path, symbol, now=time.time())
        card = hover_card(story, doc.ws.links) if story.known else None
        if not card:
            return None
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=card),
            range=positions.name_range(codec, doc.lines, symbol),
        )
