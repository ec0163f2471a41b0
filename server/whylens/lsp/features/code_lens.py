"""Code lenses above symbols with knowledge only; titles resolved lazily; explainSymbol command."""

from __future__ import annotations

import logging
import time

from lsprotocol import types

from whylens.lsp import positions, protocol
from whylens.lsp.guard import guarded
from whylens.lsp.server import WhyLensServer
from whylens.models import Symbol
from whylens.render.cards import rationale
from whylens.render.lens import lens_title
from whylens.retrieval.why import symbol_story

log = logging.getLogger(__name__)


def has_knowledge(counts) -> bool:
    """A lens only where there is a decision record or a pitfall/constraint, not mere churn."""
    return bool(counts) and (counts[0] > 0 or counts[1] > 0)


def register(server: WhyLensServer) -> None:
    cache: dict[tuple, dict] = {}  # (root, reader generation, path) → knowledge_counts(path)

    def counts_for(doc) -> dict:
        """One knowledge_counts per file and index generation: resolve reuses the lens pass's."""
        key = (doc.ws.root, doc.ws.generation, doc.path)
        if key not in cache:
            if len(cache) >= 32:
                cache.pop(next(iter(cache)))
            cache[key] = doc.ws.reader.knowledge_counts(doc.path)
        return cache[key]

    def refresh(ws) -> None:
        """New knowledge may put lenses above symbols that had none: ask the client to re-ask."""
        caps = server.client_capabilities.workspace
        if caps and caps.code_lens and caps.code_lens.refresh_support:
            server.workspace_code_lens_refresh(None)

    server.on_index_updated.append(refresh)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
    @guarded
    def code_lens(ls: WhyLensServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        if not ls.settings.code_lens.enabled:
            return None
        doc = ls.documents.get(params.text_document.uri)
        if doc is None or doc.ws.reader is None or not doc.symbols:
            return None
        counts = counts_for(doc)
        codec = ls.workspace.position_codec
        return [
            types.CodeLens(range=positions.name_range(codec, doc.lines, symbol),
                           data={"uri": doc.uri, "symbol": symbol.name})
            for symbol in doc.symbols if has_knowledge(counts.get(symbol.name))
        ]

    @server.feature(types.CODE_LENS_RESOLVE)
    @guarded
    def resolve(ls: WhyLensServer, lens: types.CodeLens) -> types.CodeLens:
        data = lens.data if isinstance(lens.data, dict) else {}
        uri, name = data.get("uri"), data.get("symbol")
        title = "why"
        doc = ls.documents.get(uri)  # None for a bad or foreign uri
        if doc is not None and doc.ws.reader is not None and isinstance(name, str):
            counts = counts_for(doc).get(name)
            if counts:
                title = lens_title(counts)
        lens.command = types.Command(title=title, command=protocol.CMD_EXPLAIN_SYMBOL,
                                     arguments=[uri, name])
        return lens

    @server.command(protocol.CMD_EXPLAIN_SYMBOL)
    @guarded
    def explain_symbol(ls: WhyLensServer, *args) -> str | None:
        uri, name, position = _explain_args(args, ls)
        if uri is None:
            log.warning("%s expects [uri, symbol] or [{uri, symbol | position}], got %r",
                        protocol.CMD_EXPLAIN_SYMBOL, args[:3])
            return None
        doc = ls.documents.get(uri)
        if doc is None or doc.ws.reader is None:
            return None
        symbol = doc.symbol_named(name) if name else None
        if symbol is None and position is not None:
            line, column = positions.to_server(ls.workspace.position_codec, doc.lines, position)
            symbol = doc.symbol_under_cursor(line, column) or doc.innermost(line)
        if symbol is None and name:  # gone from the buffer: its history still counts
            symbol = Symbol(name=name, kind="symbol", start_line=0, end_line=0)
        if symbol is None:
            return None
        story = symbol_story(doc.ws.reader, doc.path, symbol, now=time.time())
        return rationale(story, doc.ws.links) if story.known else None


def _explain_args(args: tuple, ls: WhyLensServer
                  ) -> tuple[str | None, str | None, types.Position | None]:
    """``[uri, symbol]`` (the lens form) or ``[{uri | path, symbol?, position?}]`` (the client's
    form; ``path`` is relative to the first repository)."""
    if len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        return args[0], args[1], None
    if len(args) == 1 and isinstance(args[0], dict):
        obj = args[0]
        uri, name, pos = obj.get("uri"), obj.get("symbol"), obj.get("position")
        ws = ls.workspaces.default()
        if uri is None and isinstance(obj.get("path"), str) and ws is not None:
            uri = (ws.root / obj["path"]).as_uri()  # Documents refuses it if it leaves the root
        position = None
        if isinstance(pos, dict) and all(isinstance(pos.get(k), int) for k in ("line", "character")):
            position = types.Position(line=pos["line"], character=pos["character"])
        if isinstance(uri, str) and (isinstance(name, str) or position is not None):
            return uri, name if isinstance(name, str) else None, position
    return None, None, None
