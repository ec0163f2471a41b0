"""Search results → the ``search --json`` shape (also ``whylens/search``'s answer and the MCP
``search`` tool's structured content)."""

from __future__ import annotations

import re
from typing import Any

from whylens.markup import flatten
from whylens.retrieval.search import SearchResult


def to_json(result: SearchResult) -> dict[str, Any]:
    """``{"query", "abstained", "results": [{"id", "type", "title", "content", "score", "commit",
    "author", "date", "files", "symbols", "source", "url", "snippet"}]}``; a decision record's
    hit also has ``problem``, ``cause``, ``decision``, ``rejected`` and ``outcome`` (landed,
    reverted, superseded, unresolved); ``also`` lists the other commits of the change the
    hit stands for (a cherry-pick, a PR's own commits: ``search.fold_changes``), when there are
    any; a hit that a standing revert undid has ``outcome`` "reverted" (a commit or unit hit
    too) and ``reverted_by`` (the revert's sha). ``notice`` is there when search ran lexical only
    (why, and the fix). The hits come from ``retrieval.search.to_hit``, with their urls."""
    hits = []
    for hit in result.hits:
        data: dict[str, Any] = {
            "id": hit.id, "type": hit.type, "title": hit.title, "content": hit.content,
            "score": round(float(hit.score), 4), "commit": hit.commit, "author": hit.author,
            "date": hit.date, "files": list(hit.files), "symbols": list(hit.symbols),
            "source": hit.source, "url": hit.url, "snippet": hit.snippet,
        }
        if hit.type == "decision":
            data.update(problem=hit.problem, cause=list(hit.cause), decision=list(hit.decision),
                        rejected=list(hit.rejected), outcome=hit.outcome)
        if hit.reverted_by:  # any hit, a decision's outcome says "reverted" already
            data.update(outcome=hit.outcome, reverted_by=hit.reverted_by)
        if hit.also:
            data["also"] = list(hit.also)
        hits.append(data)
    out: dict[str, Any] = {"query": result.query, "abstained": bool(result.abstained),
                           "results": hits}
    if result.notice:
        out["notice"] = result.notice
    return out


def human_lines(data: dict[str, Any]) -> list[str]:
    """The ``whylens search`` text output of ``to_json``'s data: each hit's type and title,
    its answer sentences under it, then its commit, author, date and link. History text is
    flattened (no control characters: a commit subject cannot drive the terminal)."""
    if data["abstained"] or not data["results"]:
        return ["nothing confident enough to show (WhyLens stays silent rather than guess)"]
    lines = []
    for hit in data["results"]:
        title = flatten(hit["title"])
        lines.append(f"[{hit['type']}] {title}")
        snippet = without_title(flatten(hit.get("snippet")), title)
        if snippet:
            lines.append(f"    {snippet}")
        if hit.get("reverted_by"):
            lines.append(f"    reverted by {flatten(hit['reverted_by'])[:12]}: not the code today")
        elif hit.get("outcome"):
            lines.append(f"    outcome: {flatten(hit['outcome'])}")
        also = _also(hit.get("also") or ())
        lines.append(f"    {hit['commit'][:12]}{also} · {flatten(hit['author'])} · "
                     f"{hit['date'][:10]} · score {hit['score']:.2f}"
                     + (f" · {hit['url']}" if hit.get("url") else ""))
    return lines


SHOWN_ALSO = 2  # folded commits printed by sha; the rest are counted


def _also(shas) -> str:
    """" (also 4882ce5359c0, b2bc3354ac22 and 8 more)": the first folded commits, then a count
    (axios's cherry-picks folded eleven shas into one line)."""
    if not shas:
        return ""
    named = ", ".join(str(sha)[:12] for sha in shas[:SHOWN_ALSO])
    more = len(shas) - SHOWN_ALSO
    return f" (also {named}{f' and {more} more' if more > 0 else ''})"


def without_title(snippet: str, title: str) -> str:
    """The snippet less the title printed above it: its first sentence when that is the title,
    in any case (a record's title is its subject less trailing PR numbers: "… (#3938)
    (#3945)"), or a window cut out of a long title ("…its prose one sentence per line (split …")."""
    if not title:
        return snippet
    head, sep, rest = snippet.partition(" … ")
    if head.startswith("…") and head.strip("… ") in title:  # a window of the title
        return rest if sep else ""
    if not head.lower().startswith(title.lower()):
        return snippet
    if _REFS_ONLY.match(head[len(title):]):
        return rest if sep else ""
    return snippet  # a longer sentence that opens with the title reads best whole


_REFS_ONLY = re.compile(r"^[\s(),#\d]*$")
