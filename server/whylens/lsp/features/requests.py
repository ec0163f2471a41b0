"""Custom requests: ``whylens/search``, ``whylens/why``, ``whylens/prSuggestions``."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from typing import Any, ClassVar

from whylens import child_command
from whylens.history.links import WebLinks
from whylens.lsp import positions, protocol
from whylens.lsp.guard import guarded
from whylens.lsp.server import Feature
from whylens.models import Story
from whylens.render.rationale import rationale
from whylens.render.hits import to_json
from whylens.retrieval.search import search
from whylens.retrieval.why import file_story, symbol_story

log = logging.getLogger(__name__)

REVIEW_TIMEOUT_S = 120


def story_data(story: Story, links: WebLinks | None) -> dict[str, Any]:
    """The story as JSON-able data, plus its full rationale as markdown."""
    data = dataclasses.asdict(story)
    data["known"] = story.known
    data["markdown"] = rationale(story, links)
    return data


class RequestsFeature(Feature):
    """WhyLens's own requests; stateless (the review runs in a child process)."""

    name: ClassVar[str] = "requests"

    def register(self) -> None:
        server = self.server
        server.feature(protocol.SEARCH)(guarded(self.search_request))
        server.feature(protocol.WHY)(guarded(self.why_request))
        server.feature(protocol.PR_SUGGESTIONS)(guarded(self.pr_suggestions))

    def search_request(self, raw: Any) -> dict[str, Any] | None:
        params = protocol.parse_params(raw, protocol.SearchParams)
        ws = self.server.resolve_workspace(params.uri)
        if ws is None or ws.reader is None or not params.query.strip():
            return None
        result = search(ws.reader, params.query, k=params.k,
                        types=list(params.types) if params.types else None, links=ws.links)
        return to_json(result)

    def why_request(self, raw: Any) -> dict[str, Any] | None:
        params = protocol.parse_params(raw, protocol.WhyParams)
        ls = self.server
        doc = ls.documents.get(params.uri)
        if doc is None or doc.ws.reader is None:
            return None
        line, column = positions.to_server(ls.workspace.position_codec, doc.lines, params.position)
        symbol = doc.symbol_under_cursor(line, column) or doc.innermost(line)
        now = time.time()
        if symbol is None:
            story = file_story(doc.ws.reader, doc.path, now=now)
        else:
            story = symbol_story(doc.ws.reader, doc.path, symbol, now=now)
        return story_data(story, doc.ws.links) if story.known else None

    async def pr_suggestions(self, raw: Any) -> dict[str, Any] | None:
        params = protocol.parse_params(raw, protocol.PrSuggestionsParams)
        ws = self.server.resolve_workspace(params.uri)
        if ws is None or ws.reader is None:
            return None
        # The review diffs with git: GitPython runs in a child process, never in the server.
        command = child_command("pr-comments", "--repo", str(ws.root),
                                "--index-dir", str(ws.index_dir), "--format", "json")
        if params.base:
            command += ["--base", params.base]
        if params.head:
            command += ["--head", params.head]
        proc = await asyncio.create_subprocess_exec(
            *command, cwd=str(ws.root), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            out, err = await asyncio.wait_for(proc.communicate(), REVIEW_TIMEOUT_S)
        except asyncio.TimeoutError:
            log.warning("pr-comments took longer than %ss; stopped", REVIEW_TIMEOUT_S)
            return None
        finally:  # timed out, or the request was cancelled: never leave the child running
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        if proc.returncode != 0:
            log.warning("pr-comments failed: %s", err.decode("utf-8", "replace").strip()[-500:])
            return None
        data = json.loads(out.decode("utf-8", "replace") or "null")
        if isinstance(data, list):
            return {"suggestions": data}
        return data if isinstance(data, dict) else None
