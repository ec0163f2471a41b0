"""Known-pitfall hints on other tools' error lines (``whylens/errorsChanged``) and
``whylens/explainError`` for pasted error text."""

from __future__ import annotations

import asyncio
import logging
import time
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
from whylens.retrieval.pitfalls import choose, explain_error, match_errors, per_line

log = logging.getLogger(__name__)

DIAGNOSTIC_CODE = "known-pitfall"
SLICE_SECONDS = 0.02  # the longest the matcher holds the event loop at a time (about)
PAUSE_SECONDS = 0.005  # then it lets the loop read and answer for this long
MAX_MATCHED_ERRORS = 100  # distinct errors of one document matched (the client sends ≤ 500)
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
    documents that carry WhyLens hints.

    Matching never blocks the event loop for long: a report only records the document's latest
    errors (a burst of reports for one document coalesces into its last one); one background task
    matches the documents that wait, in slices of about ``SLICE_SECONDS`` with the loop free in
    between (hovers are answered meanwhile), each document's errors bounded by
    ``MAX_MATCHED_ERRORS`` distinct ones. The reader is used on the loop's thread only.
    """

    name: ClassVar[str] = "pitfalls"

    def __init__(self, server: WhyLensServer) -> None:
        super().__init__(server)
        self.published: set[str] = set()  # URIs that currently carry WhyLens hints
        self.reported: dict[str, protocol.ErrorsChangedParams] = {}  # uri → its last report
        self.waiting: dict[str, None] = {}  # URIs whose report is not matched yet, in order
        self._drain: asyncio.Task | None = None

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
                self.waiting[params.uri] = None
        self._kick()

    def shutdown(self) -> None:
        if self._drain is not None:
            self._drain.cancel()

    # ---- handlers ---------------------------------------------------------------------------

    def errors_changed(self, raw: Any) -> None:
        params = protocol.parse_params(raw, protocol.ErrorsChangedParams)
        if not params.errors:  # cleared: no matching needed
            self.reported.pop(params.uri, None)
            self.waiting.pop(params.uri, None)
            self.publish(params.uri, [])
            return
        self.reported[params.uri] = params  # a newer report replaces one still waiting
        self.waiting[params.uri] = None
        self._kick()

    def closed(self, params: types.DidCloseTextDocumentParams) -> None:
        self.reported.pop(params.text_document.uri, None)
        self.waiting.pop(params.text_document.uri, None)
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

    def _kick(self) -> None:
        """Start the background matcher unless it runs (no event loop: match right here)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # called outside the server (tests): synchronously
            while self.waiting:
                uri = next(iter(self.waiting))
                del self.waiting[uri]
                if uri in self.reported:
                    self.match(self.reported[uri])
            return
        if self._drain is None or self._drain.done():
            self._drain = self.server.run_task(self._match_waiting(), "pitfalls.match")

    async def _match_waiting(self) -> None:
        while self.waiting:
            uri = next(iter(self.waiting))
            del self.waiting[uri]
            params = self.reported.get(uri)
            if params is not None:
                await self._match_sliced(params)
            await asyncio.sleep(0)

    async def _match_sliced(self, params: protocol.ErrorsChangedParams) -> None:
        """``match`` in slices; gives up (the newer report waits) when one arrives meanwhile."""
        found = self._prepare(params)
        if found is None:
            return
        doc, errors, settings = found
        pitfalls: list[Pitfall] = []
        at = 0
        while at < len(errors):
            deadline = time.monotonic() + SLICE_SECONDS
            while at < len(errors) and time.monotonic() < deadline:
                pitfalls += per_line(doc.ws.reader, doc.path, doc.text, errors[at:at + 1],
                                     symbols=doc.symbols)
                at += 1
            # hovers and other requests run here; a real pause, not sleep(0): pygls reads stdin
            # on a thread, and each message takes a few loop turns to arrive
            await asyncio.sleep(PAUSE_SECONDS)
            if self.reported.get(params.uri) is not params or doc.ws.reader is None:
                return  # superseded, cleared, or the index moved: the newer state is handled
        self._publish_hints(params, doc, choose(pitfalls, settings.max_per_file))

    def match(self, params: protocol.ErrorsChangedParams) -> None:
        """Publish the hints for one document's reported errors (or clear them), at once."""
        found = self._prepare(params)
        if found is None:
            return
        doc, errors, settings = found
        pitfalls = match_errors(doc.ws.reader, doc.path, doc.text, errors,
                                cap=settings.max_per_file, symbols=doc.symbols)
        self._publish_hints(params, doc, pitfalls)

    def _prepare(self, params: protocol.ErrorsChangedParams):
        """(document, its errors as match input, settings), or None after clearing the hints."""
        settings = self.server.settings.pitfalls
        doc = self.server.documents.get(params.uri) if settings.enabled else None
        if doc is None or doc.ws.reader is None or not params.errors:
            self.publish(params.uri, [])
            return None
        errors = list({(e.range.start.line + 1, e.message, e.source, str(e.code)): {
            "line": e.range.start.line + 1, "message": e.message, "source": e.source,
            "code": e.code} for e in params.errors}.values())[:MAX_MATCHED_ERRORS]
        return doc, errors, settings

    def _publish_hints(self, params: protocol.ErrorsChangedParams, doc, pitfalls: list[Pitfall]
                       ) -> None:
        settings = self.server.settings.pitfalls
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
