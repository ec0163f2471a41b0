"""Provenance: where a unit, record or change was learnt, as a URL or as markdown.

``links`` is a ``history.links.WebLinks`` (or None: no URLs, plain short shas and ``#N``).

The one link rule (every URL WhyLens shows comes from ``item_url`` or ``change_url``):
- a record links to its own ``url`` (a tracker export's page), else to its PR or issue page by
  its kind (an issue record → the issue), else to its first fixing commit;
- a unit, like a change in a history, links to its PR when it has one, else to its commit.
"""

from __future__ import annotations

from typing import Any

from whylens import markup
from whylens.history.links import WebLinks
from whylens.models import Record, Unit


def short(sha: str) -> str:
    return (sha or "")[:7]


def web_links_from_meta(meta: dict[str, Any] | None) -> WebLinks | None:
    """The WebLinks the pipeline recorded in the index meta, or None."""
    meta = meta or {}
    base, kind = meta.get("web_base"), meta.get("web_kind")
    if not (base and kind):
        return None
    return WebLinks.from_base(str(base), str(kind))  # None for values it does not know


def change_url(sha: str, pr: int | None, links: WebLinks | None) -> str | None:
    """A change (a unit's commit, a history entry): its PR when it has one, else its commit."""
    if links is None:
        return None
    if pr is not None:
        return links.pr(pr)
    return links.commit(sha) if sha else None


def item_url(item: Unit | Record, links: WebLinks | None = None) -> str | None:
    """Where a unit or record was learnt, by the rule in the module docstring (None when it has
    no url of its own and no web host is known)."""
    if isinstance(item, Unit):
        return change_url(item.commit, item.pr, links)
    if item.url:
        return item.url
    if links is None:
        return None
    if item.number is not None:
        return links.issue(item.number) if item.kind == "issue" else links.pr(item.number)
    return links.commit(item.fixing_commits[0]) if item.fixing_commits else None


def commit_ref(sha: str, links: WebLinks | None = None) -> str:
    label = markup.code(short(sha))
    if links is None or not sha:
        return label
    return markup.link(label, links.commit(sha))


def pr_ref(number: int | None, links: WebLinks | None = None) -> str:
    if number is None:
        return ""
    if links is None:
        return f"#{number}"
    return markup.link(f"#{number}", links.pr(number))


def record_ref(record: Record, links: WebLinks | None = None) -> str:
    """``#12`` (PR or issue), else the fixing commit, linked by ``item_url``."""
    if record.number is not None:
        label = f"#{record.number}"
    elif record.fixing_commits:
        label = markup.code(short(record.fixing_commits[0]))
    else:
        return markup.code(record.id)
    return markup.link(label, item_url(record, links))


def change_ref(sha: str, pr: int | None, links: WebLinks | None = None) -> str:
    """``#123 (`abc1234`)`` or just the commit."""
    if pr is not None:
        return f"{pr_ref(pr, links)} ({commit_ref(sha, links)})"
    return commit_ref(sha, links)


def one_line(text: str, limit: int = 160) -> str:
    """Plain text on one line, cut at ``limit`` with an ellipsis (diagnostics, terminals). In
    markdown, history text goes through ``markup.inline`` instead, which also escapes it."""
    return markup.flatten(text, limit)
