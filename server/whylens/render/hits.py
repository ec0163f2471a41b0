"""Search results → the ``search --json`` shape (also ``whylens/search``'s answer)."""

from __future__ import annotations

from typing import Any

from whylens.retrieval.search import SearchResult


def to_json(result: SearchResult) -> dict[str, Any]:
    """``{"query", "abstained", "results": [{"id", "type", "title", "content", "score", "commit",
    "author", "date", "files", "symbols", "source", "url"}]}``. The hits come from
    ``retrieval.search.to_hit``, with their urls (``search(..., links=...)``)."""
    hits = [{
        "id": hit.id, "type": hit.type, "title": hit.title, "content": hit.content,
        "score": round(float(hit.score), 4), "commit": hit.commit, "author": hit.author,
        "date": hit.date, "files": list(hit.files), "symbols": list(hit.symbols),
        "source": hit.source, "url": hit.url,
    } for hit in result.hits]
    return {"query": result.query, "abstained": bool(result.abstained), "results": hits}
