"""The MCP server: four read-only tools over stdio, built on the official SDK (``mcp`` 2.x).

Each tool returns concise markdown (``content``) and the CLI's JSON (``structuredContent``);
a WhyLens error (bad input, a path outside the repository, no repository) is a tool error
(``isError``) with its message; arguments that do not match the schema are refused by the SDK
the same way. Tools run one at a time on a worker thread, so the event loop keeps reading (a
cancelled call or a closed connection is noticed while a review runs).
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import sys
from typing import Annotated

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from whylens import __version__
from whylens.errors import WhyLensError
from whylens.mcp.answers import Answer, indexing, review_answer, with_building
from whylens.mcp.budget import DEFAULT_TOKENS, MAX_TOKENS, MIN_TOKENS, char_budget
from whylens.mcp.keeper import IndexBuilding, IndexKeeper
from whylens.mcp.review import review_command, run_review
from whylens.mcp.tools import explain_error_tool, search_tool, why_tool
from whylens.models import SEARCH_TYPES

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "WhyLens answers 'why is this code like this?' from this repository's own git history: "
    "decisions, known pitfalls, constraints and reverted attempts, each cited by commit. Call "
    "`why` on code before you change it, `explain_error` on a failure, `search` for a topic, and "
    "`review_diff` on your change before you finish. An answer marked abstained means the "
    "history holds nothing confident: do not read more into it."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)

MaxTokens = Annotated[int | None, Field(description=(
    f"cap on the answer's text, about 4 characters a token (default {DEFAULT_TOKENS}; "
    f"{MIN_TOKENS}–{MAX_TOKENS}, larger values are capped); the most useful items come first"))]


def _result(answer: Answer) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=answer.text)],
                          structured_content=answer.data, is_error=answer.error)


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


class Tools:
    """Runs tool bodies one at a time on a worker thread and turns outcomes into results."""

    def __init__(self, keeper: IndexKeeper) -> None:
        self.keeper = keeper
        self._limiter: anyio.CapacityLimiter | None = None

    async def in_worker(self, fn, *args):
        if self._limiter is None:  # made inside the event loop
            self._limiter = anyio.CapacityLimiter(1)
        return await anyio.to_thread.run_sync(functools.partial(fn, *args), limiter=self._limiter)

    async def call(self, fn, *args) -> CallToolResult:
        try:
            return _result(await self.in_worker(fn, self.keeper, *args))
        except IndexBuilding as building:
            return _result(indexing(self.keeper.root.name, building.progress))
        except WhyLensError as exc:
            return _error(str(exc))

    async def review(self, base, head, diff, max_tokens) -> CallToolResult:
        try:
            limit = char_budget(max_tokens)
            command, data = review_command(self.keeper, base, head, diff)
            ready = await self.in_worker(self.keeper.acquire)
            out = await run_review(self.keeper, command, data)
        except IndexBuilding as building:
            return _result(indexing(self.keeper.root.name, building.progress))
        except WhyLensError as exc:
            return _error(str(exc))
        return _result(with_building(review_answer(out, limit), ready.building))


def build_server(keeper: IndexKeeper) -> MCPServer:
    app = MCPServer("whylens", version=__version__, instructions=INSTRUCTIONS,
                    log_level="WARNING")
    tools = Tools(keeper)

    @app.tool(annotations=READ_ONLY)
    async def why(
        path: Annotated[str, Field(description="a file, relative to the repository root "
                                               "(`path:LINE` works too)")],
        line: Annotated[int | None, Field(description="a 1-based line: the symbol around it")] = None,
        symbol: Annotated[str | None, Field(description="or a qualified symbol name in the file, "
                                                        "e.g. Session.send")] = None,
        max_tokens: MaxTokens = None,
    ) -> CallToolResult:
        """Why is this code like this: the decisions, known pitfalls, constraints and recent
        changes behind a symbol (or a file), from the repository's history, each with its commit.
        Ask before editing code."""
        return await tools.call(why_tool, path, line, symbol, max_tokens)

    @app.tool(annotations=READ_ONLY)
    async def search(
        query: Annotated[str, Field(description="a few words: a behaviour, an error, a name")],
        k: Annotated[int | None, Field(description="at most this many results (default 10)")] = None,
        path: Annotated[str | None, Field(description="only knowledge about files under this "
                                                      "path")] = None,
        type: Annotated[str | list[str] | None, Field(description=(
            f"only these types: {', '.join(SEARCH_TYPES)} (one, comma-separated, or a list)"))] = None,
        max_tokens: MaxTokens = None,
    ) -> CallToolResult:
        """Search what the history knows (pitfalls, constraints, fixes, decisions), best first;
        abstains instead of returning weak matches."""
        return await tools.call(search_tool, query, k, path, type, max_tokens)

    @app.tool(annotations=READ_ONLY)
    async def explain_error(
        text: Annotated[str, Field(description="a stack trace or error message (long logs: the "
                                               "end is read)")],
        max_tokens: MaxTokens = None,
    ) -> CallToolResult:
        """Known pitfalls behind an error: failures this repository has seen and fixed before,
        with the commit that fixed each."""
        return await tools.call(explain_error_tool, text, max_tokens)

    @app.tool(annotations=READ_ONLY)
    async def review_diff(
        base: Annotated[str | None, Field(description="compare from this revision (default: the "
                                                      "merge base with the default branch)")] = None,
        head: Annotated[str | None, Field(description="compare to this revision (default: the "
                                                      "working tree, uncommitted work "
                                                      "included)")] = None,
        diff: Annotated[str | None, Field(description="or a unified diff to review (at most "
                                                      "1 MB), applied to the working tree or "
                                                      "not yet")] = None,
        max_tokens: MaxTokens = None,
    ) -> CallToolResult:
        """Review a change against the history of the code it touches: reverted attempts,
        reintroduced failures, recorded constraints and decisions. Silent when nothing applies."""
        return await tools.review(base, head, diff, max_tokens)

    return app


def _terminate(keeper: IndexKeeper) -> None:
    keeper.kill_child()
    sys.stderr.flush()
    os._exit(0)


def serve(repo: str | os.PathLike, index_dir: str | os.PathLike | None = None,
          auto_index: bool = True) -> int:
    """Run the server over stdio until the client closes the connection."""
    keeper = IndexKeeper(repo, index_dir, auto_index)
    if keeper.problem is not None:
        log.warning("%s (every tool will answer with this)", keeper.problem)
    # Hosts stop a stdio server by closing its stdin, then SIGTERM: both end here, so an index
    # child never outlives the server. SIGTERM exits at once: raising SystemExit inside the SDK's
    # task group printed an exception group's traceback when the signal came mid-request.
    signal.signal(signal.SIGTERM, lambda _sig, _frame: _terminate(keeper))
    try:
        build_server(keeper).run("stdio")
    finally:
        keeper.close()
    return 0
