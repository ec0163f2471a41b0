"""Search results → the ``search --json`` shape (also ``whylens/search``'s answer)."""

from __future__ import annotations

from whylens.models import Hit, Record


def _from_item(item, score: float) -> Hit:
    if isinstance(item, Record):
        return Hit(id=item.id, type="decision", title=item.title,
                   content=(item.problem.text if item.problem else item.title), score=score,
                   commit=item.fixing_commits[0] if item.fixing_commits else "",
                   author=item.author, date=item.date, files=item.files, symbols=item.anchors,
                   source=item.kind, url=item.url, extra={"pr": item.number if item.kind == "pr" else None})
    return Hit(id=item.id, type=item.type, title=item.title, content=item.content, score=score,
               commit=item.commit, author=item.author, date=item.date, files=item.files,
               symbols=item.symbols, source=item.source, url=None, extra={"pr": item.pr})


def _url(hit: Hit, links) -> str | None:
    if hit.url:
        return hit.url
    if links is None:
        return None
    pr = (hit.extra or {}).get("pr")
    if pr is not None:
        return links.pr(pr)
    return links.commit(hit.commit) if hit.commit else None


def to_json(result, links=None) -> dict:
    """``{"query", "abstained", "results": [{"id", "type", "title", "content", "score", "commit",
    "author", "date", "files", "symbols", "source", "url"}]}``; hits may be ``Hit`` or
    ``(Unit | Record, score)``."""
    hits = []
    for entry in getattr(result, "hits", ()) or ():
        hit = entry if isinstance(entry, Hit) else _from_item(entry[0], float(entry[1]))
        hits.append({
            "id": hit.id, "type": hit.type, "title": hit.title, "content": hit.content,
            "score": round(float(hit.score), 4), "commit": hit.commit, "author": hit.author,
            "date": hit.date, "files": list(hit.files), "symbols": list(hit.symbols),
            "source": hit.source, "url": _url(hit, links),
        })
    return {"query": result.query, "abstained": bool(result.abstained), "results": hits}
