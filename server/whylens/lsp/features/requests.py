"""Custom requests: ``whylens/search``, ``whylens/why``, ``whylens/prSuggestions``."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import sys
import time

from whylens.lsp import positions, protocol
from whylens.lsp.guard import guarded
from whylens.lsp.server import WhyLensServer
from whylens.models import Story
from whylens.render.cards import rationale
from whylens.render.hits import to_json
from whylens.retrieval.search import search
from whylens.retrieval.why import file_story, symbol_story

log = logging.getLogger(__name__)

REVIEW_TIMEOUT_S = 120


def story_data(story: Story, links) -> dict:
    """The story as JSON-able data, plus its full rationale as markdown."""
    data = dataclasses.asdict(story)
    data["known"] = story.known
    data["markdown"] = rationale(story, links)
    return data


def register(server: WhyLensServer) -> None:
    @server.feature(protocol.SEARCH)
    @guarded
    def search_request(ls: WhyLensServer, raw) -> dict | None:
        params = protocol.parse_params(raw, protocol.SearchParams)
        ws = ls.resolve_workspace(params.uri)
        if ws is None or ws.reader is None or not params.query.strip():
            return None
        result = search(ws.reader, params.query, k=params.k,
                        types=list(params.types) if params.types else None)
        return to_json(result, ws.links)

    @server.feature(protocol.WHY)
    @guarded
    def why_request(ls: WhyLensServer, raw) -> dict | None:
        params = protocol.parse_params(raw, protocol.WhyParams)
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

    @server.feature(protocol.PR_SUGGESTIONS)
    @guarded
    async def pr_suggestions(ls: WhyLensServer, raw) -> dict | None:
        params = protocol.parse_params(raw, protocol.PrSuggestionsParams)
        ws = ls.resolve_workspace(params.uri)
        if ws is None or ws.reader is None:
            return None
        # The review diffs with git: GitPython runs in a child process, never in the server.
        command = [sys.executable, "-m", "whylens", "pr-comments", "--repo", str(ws.root),
                   "--index-dir", str(ws.index_dir), "--format", "json"]
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
