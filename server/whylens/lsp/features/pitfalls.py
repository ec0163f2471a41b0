"""Known-pitfall hints on other tools' error lines (``whylens/errorsChanged``) and
``whylens/explainError`` for pasted error text."""

from __future__ import annotations

import logging

from lsprotocol import types

from whylens.lsp import protocol
from whylens.lsp.guard import guarded
from whylens.lsp.server import WhyLensServer
from whylens.models import Pitfall, Unit
from whylens.render.diagnostics import pitfall_message
from whylens.retrieval.citations import item_url
from whylens.retrieval.pitfalls import explain_error, match_errors

log = logging.getLogger(__name__)

DIAGNOSTIC_CODE = "known-pitfall"
SOURCE = "whylens"


def pitfall_data(pitfall: Pitfall, links) -> dict:
    item = pitfall.item
    kind = item.type if isinstance(item, Unit) else "decision"
    fix = pitfall.fix
    return {
        "id": item.id, "type": kind, "title": item.title, "reason": pitfall.reason,
        "score": round(pitfall.score, 4), "line": pitfall.line, "url": item_url(item, links),
        "fix": {"id": fix.id, "title": fix.title, "url": item_url(fix, links)} if fix else None,
    }


def register(server: WhyLensServer) -> None:
    published: set[str] = set()  # URIs that currently carry WhyLens hints
    reported: dict[str, object] = {}  # uri → the last errorsChanged params, re-matched on updates

    def publish(ls: WhyLensServer, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        if not diagnostics and uri not in published:
            return
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))
        (published.add if diagnostics else published.discard)(uri)

    def rematch(ws) -> None:
        """Errors reported before the index knew enough get their hints once it does."""
        for params in list(reported.values()):
            doc = server.documents.get(params.uri)
            if doc is not None and doc.ws is ws:
                match(server, params)

    server.on_index_updated.append(rematch)

    @server.feature(protocol.ERRORS_CHANGED)
    @guarded
    def errors_changed(ls: WhyLensServer, raw) -> None:
        params = protocol.parse_params(raw, protocol.ErrorsChangedParams)
        if params.errors:
            reported[params.uri] = params
        else:
            reported.pop(params.uri, None)
        match(ls, params)

    def match(ls: WhyLensServer, params) -> None:
        doc = ls.documents.get(params.uri) if ls.settings.pitfalls.enabled else None
        if doc is None or doc.ws.reader is None or not params.errors:
            publish(ls, params.uri, [])
            return
        errors = [{"line": e.range.start.line + 1, "message": e.message, "source": e.source,
                   "code": e.code} for e in params.errors]
        pitfalls = match_errors(doc.ws.reader, doc.path, doc.text, errors,
                                cap=ls.settings.pitfalls.max_per_file, symbols=doc.symbols)
        by_line = {e.range.start.line + 1: e for e in reversed(params.errors)}
        diagnostics = []
        for pitfall in pitfalls[: ls.settings.pitfalls.max_per_file]:
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
        publish(ls, params.uri, diagnostics)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @guarded
    def closed(ls: WhyLensServer, params: types.DidCloseTextDocumentParams) -> None:
        reported.pop(params.text_document.uri, None)
        publish(ls, params.text_document.uri, [])  # hints live only while the editor shows them

    @server.feature(protocol.EXPLAIN_ERROR)
    @guarded
    def explain(ls: WhyLensServer, raw) -> dict | None:
        params = protocol.parse_params(raw, protocol.ExplainErrorParams)
        ws = ls.resolve_workspace(params.uri)
        if ws is None or ws.reader is None:
            return None
        pitfalls = explain_error(ws.reader, params.text)
        return {
            "count": len(pitfalls),
            "pitfalls": [pitfall_data(p, ws.links) for p in pitfalls],
            "markdown": "\n\n".join(f"- {pitfall_message(p, ws.links)}" for p in pitfalls),
        }
