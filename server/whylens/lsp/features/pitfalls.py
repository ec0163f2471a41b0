"""Known-pitfall hints on other tools' error lines (``whylens/errorsChanged``) and
``whylens/explainError`` for pasted error text."""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from lsprotocol import types

from whylens.history.links import WebLinks
from whylens.lsp import protocol
from whylens.lsp.guard import guarded
from whylens.lsp.server import Feature, WhyLensServer
from whylens.lsp.workspaces import RepoWorkspace
from whylens.markup import inline
from whylens.models import Pitfall, Unit
from whylens.render.diagnostics import pitfall_message
from whylens.retrieval.citations import item_url
from whylens.retrieval.pitfalls import explain_error, match_errors

log = logging.getLogger(__name__)

DIAGNOSTIC_CODE = "known-pitfall"
SOURCE = "whylens"


def pitfall_data(pitfall: Pitfall, links: WebLinks | None) -> dict[str, Any]:
    item = pitfall.item
    kind = item.type if isinstance(item, Unit) else "decision"
    fix = pitfall.fix
    return {
        "id": item.id, "type": kind, "title": item.title, "reason": pitfall.reason,
        "score": round(pitfall.score, 4), "line": pitfall.line, "url": item_url(item, links),
        "fix": {"id": fix.id, "title": fix.title, "url": item_url(fix, links)} if fix else None,
    }


class PitfallFeature(Feature):
    """Owns the errors each document reported (re-matched after every index run) and the set of
    documents that carry WhyLens hints."""

    name: ClassVar[str] = "pitfalls"

    def __init__(self, server: WhyLensServer) -> None:
        super().__init__(server)
        self.published: set[str] = set()  # URIs that currently carry WhyLens hints
        self.reported: dict[str, protocol.ErrorsChangedParams] = {}  # uri → its last report

    def register(self) -> None:
        server = self.server
        server.feature(protocol.ERRORS_CHANGED)(guarded(self.errors_changed))
        server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(guarded(self.closed))
        server.feature(protocol.EXPLAIN_ERROR)(guarded(self.explain))

    def index_updated(self, ws: RepoWorkspace) -> None:
        """Errors reported before the index knew enough get their hints once it does."""
        for params in list(self.reported.values()):
            doc = self.server.documents.get(params.uri)
            if doc is not None and doc.ws is ws:
                self.match(params)

    # ---- handlers ---------------------------------------------------------------------------

    def errors_changed(self, raw: Any) -> None:
        params = protocol.parse_params(raw, protocol.ErrorsChangedParams)
        if params.errors:
            self.reported[params.uri] = params
        else:
            self.reported.pop(params.uri, None)
        self.match(params)

    def closed(self, params: types.DidCloseTextDocumentParams) -> None:
        self.reported.pop(params.text_document.uri, None)
        self.publish(params.text_document.uri, [])  # hints live only while the editor shows them

    def explain(self, raw: Any) -> dict[str, Any] | None:
        params = protocol.parse_params(raw, protocol.ExplainErrorParams)
        ws = self.server.resolve_workspace(params.uri)
        if ws is None or ws.reader is None:
            return None
        pitfalls = explain_error(ws.reader, params.text)
        return {
            "count": len(pitfalls),
            "pitfalls": [pitfall_data(p, ws.links) for p in pitfalls],
            # the message is plain text (a diagnostic's): escaped as a whole for markdown
            "markdown": "\n\n".join(f"- {inline(pitfall_message(p, ws.links))}" for p in pitfalls),
        }

    # ---- matching ---------------------------------------------------------------------------

    def match(self, params: protocol.ErrorsChangedParams) -> None:
        """Publish the hints for one document's reported errors (or clear them)."""
        settings = self.server.settings.pitfalls
        doc = self.server.documents.get(params.uri) if settings.enabled else None
        if doc is None or doc.ws.reader is None or not params.errors:
            self.publish(params.uri, [])
            return
        errors = [{"line": e.range.start.line + 1, "message": e.message, "source": e.source,
                   "code": e.code} for e in params.errors]
        pitfalls = match_errors(doc.ws.reader, doc.path, doc.text, errors,
                                cap=settings.max_per_file, symbols=doc.symbols)
        by_line = {e.range.start.line + 1: e for e in reversed(params.errors)}
        diagnostics = []
        for pitfall in pitfalls[: settings.max_per_file]:
            error = by_line.get(pitfall.line) if pitfall.line else None
            if error is None:  # never a hint on a line without an error
                continue
            url = item_url(pitfall.item, doc.ws.links)
            diagnostics.append(types.Diagnostic(
                range=error.range, severity=types.DiagnosticSeverity.Information,
                source=SOURCE, code=DIAGNOSTIC_CODE,
                code_description=types.CodeDescription(href=url) if url else None,
                message=pitfall_message(pitfall, doc.ws.links),
                data={"id": pitfall.item.id},
            ))
        self.publish(params.uri, diagnostics)

    def publish(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        if not diagnostics and uri not in self.published:
            return
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))
        (self.published.add if diagnostics else self.published.discard)(uri)
