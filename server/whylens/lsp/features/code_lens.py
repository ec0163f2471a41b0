"""Code lenses above symbols with knowledge only (none in a built file: ``symbols.skip.built_file``);
titles resolved lazily; explainSymbol command."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar

from lsprotocol import types

from whylens.lsp import positions, protocol
from whylens.lsp.documents import Document
from whylens.lsp.guard import guarded
from whylens.lsp.server import Feature, WhyLensServer
from whylens.lsp.workspaces import RepoWorkspace
from whylens.models import KnowledgeCounts, Symbol
from whylens.render.rationale import rationale
from whylens.render.lens import lens_title
from whylens.retrieval.why import symbol_story
from whylens.symbols.skip import built_file

log = logging.getLogger(__name__)

COUNTS_CACHE_SIZE = 32  # files whose knowledge counts are kept (per index generation)


def has_knowledge(counts: KnowledgeCounts | None) -> bool:
    """A lens only where there is a decision record or a pitfall, not mere churn."""
    return counts is not None and (counts.records > 0 or counts.pitfalls > 0)


class CodeLensFeature(Feature):
    """Owns the knowledge-counts cache that the lens pass fills and ``codeLens/resolve`` reads."""

    name: ClassVar[str] = "code_lens"

    def __init__(self, server: WhyLensServer) -> None:
        super().__init__(server)
        # (root, reader generation, path) → knowledge_counts(path)
        self.counts_cache: OrderedDict[tuple[Path, int, str], dict[str, KnowledgeCounts]] = \
            OrderedDict()

    def register(self) -> None:
        server = self.server
        server.feature(types.TEXT_DOCUMENT_CODE_LENS,
                       types.CodeLensOptions(resolve_provider=True))(guarded(self.code_lens))
        server.feature(types.CODE_LENS_RESOLVE)(guarded(self.resolve))
        server.command(protocol.CMD_EXPLAIN_SYMBOL)(guarded(self.explain_symbol))

    def counts_for(self, doc: Document) -> dict[str, KnowledgeCounts]:
        """One knowledge_counts per file and index generation: resolve reuses the lens pass's."""
        assert doc.ws.reader is not None
        key = (doc.ws.root, doc.ws.generation, doc.path)
        if key not in self.counts_cache:
            if len(self.counts_cache) >= COUNTS_CACHE_SIZE:
                self.counts_cache.popitem(last=False)
            self.counts_cache[key] = doc.ws.reader.knowledge_counts(doc.path)
        return self.counts_cache[key]

    def index_updated(self, ws: RepoWorkspace) -> None:
        """New knowledge may put lenses above symbols that had none: ask the client to re-ask."""
        caps = self.server.client_capabilities.workspace
        if caps and caps.code_lens and caps.code_lens.refresh_support:
            self.server.workspace_code_lens_refresh(None)

    # ---- handlers ---------------------------------------------------------------------------

    def code_lens(self, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        ls = self.server
        if not ls.settings.code_lens.enabled:
            return None
        doc = ls.documents.get(params.text_document.uri)
        if doc is None or doc.ws.reader is None or not doc.symbols or built_file(doc.path):
            return None  # a built file (a dist/ bundle) has no story to open
        counts = self.counts_for(doc)
        codec = ls.workspace.position_codec
        return [
            types.CodeLens(range=positions.name_range(codec, doc.lines, symbol),
                           data={"uri": doc.uri, "symbol": symbol.name})
            for symbol in doc.symbols if has_knowledge(counts.get(symbol.name))
        ]

    def resolve(self, lens: types.CodeLens) -> types.CodeLens:
        data = lens.data if isinstance(lens.data, dict) else {}
        uri, name = data.get("uri"), data.get("symbol")
        title = "why"
        doc = self.server.documents.get(uri) if isinstance(uri, str) else None  # None: bad uri
        if doc is not None and doc.ws.reader is not None and isinstance(name, str) and name:
            # the title counts what the card shows (Story.counts), never a number of its own
            symbol = doc.symbol_named(name) or Symbol(name=name, kind="symbol", start_line=0,
                                                      end_line=0)
            story = symbol_story(doc.ws.reader, doc.path, symbol, now=time.time())
            title = lens_title(story.counts)
        lens.command = types.Command(title=title, command=protocol.CMD_EXPLAIN_SYMBOL,
                                     arguments=[uri, name])
        return lens

    def explain_symbol(self, *args: Any) -> str | None:
        ls = self.server
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


def _explain_args(args: tuple[object, ...], ls: WhyLensServer
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
