"""The tools' bodies, synchronous: the server runs them one at a time on a worker thread.

Arguments are checked before the index is touched (bad input never starts indexing); then the
same core calls and JSON builders as the CLI's ``why``, ``search`` and ``explain-error``.
"""

from __future__ import annotations

from whylens.cli.indexing import parse_types
from whylens.cli.why import pitfalls_json, split_target
from whylens.errors import InvalidInputError
from whylens.mcp.answers import (
    Answer, pitfalls_answer, search_answer, why_answer, with_building,
)
from whylens.mcp.budget import char_budget
from whylens.mcp.keeper import IndexKeeper
from whylens.mcp.paths import confine
from whylens.render.cards import story_json
from whylens.render.hits import to_json
from whylens.retrieval.errortext import MAX_ERROR_CHARS
from whylens.retrieval.pitfalls import explain_error
from whylens.retrieval.search import search
from whylens.retrieval.why import why

DEFAULT_K = 10
MAX_K = 50
MAX_QUERY_CHARS = 1_000


def why_tool(keeper: IndexKeeper, path: str, line: int | None, symbol: str | None,
             max_tokens: int | None) -> Answer:
    limit = char_budget(max_tokens)
    if line is None and not symbol:
        path, line = split_target(path)  # "src/a.py:12", as agents often write it
    if line is not None and symbol:
        raise InvalidInputError("give either line or symbol, not both")
    if line is not None and line < 1:
        raise InvalidInputError(f"line {line} is not a line number (lines start at 1)")
    if symbol is not None and not symbol.strip():
        raise InvalidInputError("the symbol name is empty; pass a qualified name such as "
                                "`Session.send`, or a line instead")
    rel = confine(keeper.root, path)
    ready = keeper.acquire()
    story = why(ready.reader, rel, line=line, symbol=symbol, repo_root=keeper.root)
    answer = why_answer(story, story_json(story, ready.links), ready.links, limit)
    return with_building(answer, ready.building)


def search_tool(keeper: IndexKeeper, query: str, k: int | None, path: str | None,
                types: str | list[str] | None, max_tokens: int | None) -> Answer:
    limit = char_budget(max_tokens)
    if not query.strip():
        raise InvalidInputError("the query is empty; search with a few words")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInputError(f"the query is {len(query):,} characters; search with a few "
                                f"words (at most {MAX_QUERY_CHARS:,}), or use explain_error for "
                                "an error text")
    k = DEFAULT_K if k is None else k
    if k < 1:
        raise InvalidInputError(f"k must be 1 or more (got {k})")
    wanted = parse_types([types] if isinstance(types, str) else types)
    where = None
    if path is not None and path.strip() not in ("", ".", "./"):
        where = confine(keeper.root, path)
    ready = keeper.acquire()
    result = search(ready.reader, query, k=min(k, MAX_K), types=wanted, links=ready.links,
                    path=where)
    return with_building(search_answer(to_json(result), limit), ready.building)


def explain_error_tool(keeper: IndexKeeper, text: str, max_tokens: int | None) -> Answer:
    limit = char_budget(max_tokens)
    if not text.strip():
        raise InvalidInputError("the error text is empty; pass a stack trace or error message")
    cut = max(len(text) - MAX_ERROR_CHARS, 0)  # the end of a log holds the error
    ready = keeper.acquire()
    pitfalls = explain_error(ready.reader, text[cut:])
    answer = pitfalls_answer(pitfalls_json(pitfalls, ready.links), limit, cut)
    return with_building(answer, ready.building)
