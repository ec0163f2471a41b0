"""Provenance as markdown: a commit, PR or issue as a link when the web base is known, else plain.

``links`` is a ``history.links.WebLinks`` (or None: plain short shas and ``#N``).
"""

from __future__ import annotations


def short(sha: str) -> str:
    return (sha or "")[:7]


def web_links_from_meta(meta: dict | None):
    """The WebLinks the pipeline recorded in the index meta, or None."""
    from whylens.history.links import WebLinks

    meta = meta or {}
    base, kind = meta.get("web_base"), meta.get("web_kind")
    if not (base and kind):
        return None
    return WebLinks.from_base(str(base), str(kind))  # None for values it does not know


def commit_ref(sha: str, links=None) -> str:
    label = f"`{short(sha)}`"
    if links is None or not sha:
        return label
    return f"[{label}]({links.commit(sha)})"


def pr_ref(number: int | None, links=None) -> str:
    if number is None:
        return ""
    if links is None:
        return f"#{number}"
    return f"[#{number}]({links.pr(number)})"


def issue_ref(number: int | None, links=None) -> str:
    if number is None:
        return ""
    if links is None:
        return f"#{number}"
    return f"[#{number}]({links.issue(number)})"


def record_ref(record, links=None) -> str:
    """``#12`` (PR or issue) or the fixing commit; the record's own url wins."""
    if record.number is not None:
        if record.url:
            return f"[#{record.number}]({record.url})"
        return (pr_ref if record.kind == "pr" else issue_ref)(record.number, links)
    if record.fixing_commits:
        return commit_ref(record.fixing_commits[0], links)
    return f"`{record.id}`"


def change_ref(sha: str, pr: int | None, links=None) -> str:
    """``#123 (`abc1234`)`` or just the commit."""
    if pr is not None:
        return f"{pr_ref(pr, links)} ({commit_ref(sha, links)})"
    return commit_ref(sha, links)


def item_url(item, links=None) -> str | None:
    """Where a unit or record was learnt: its own url, else the PR or issue, else the commit
    (None when no web host is known)."""
    url = getattr(item, "url", None)
    if url:
        return url
    if links is None:
        return None
    if hasattr(item, "fixing_commits"):  # a Record
        if item.number is not None:
            return links.pr(item.number) if item.kind == "pr" else links.issue(item.number)
        return links.commit(item.fixing_commits[0]) if item.fixing_commits else None
    return links.pr(item.pr) if item.pr is not None else links.commit(item.commit)


def one_line(text: str, limit: int = 160) -> str:
    """Collapse whitespace, cut at ``limit`` with an ellipsis; markdown-safe enough for a card."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
