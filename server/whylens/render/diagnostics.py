"""Known-pitfall diagnostics: the message text and the link behind it (LSP ``codeDescription``).

Diagnostic messages are plain text in every client, so references here are ``#123`` or a short
sha, never markdown links; the link goes into ``pitfall_link``.
"""

from __future__ import annotations

from whylens.history.links import WebLinks
from whylens.models import Pitfall, Record
from whylens.retrieval.citations import item_url, one_line, short


def _where(item) -> str:
    if isinstance(item, Record):
        if item.number is not None:
            return f"#{item.number}"
        return short(item.fixing_commits[0]) if item.fixing_commits else item.id
    return f"#{item.pr}" if item.pr is not None else short(item.commit)


def _what(item) -> str:
    if isinstance(item, Record):
        return one_line(item.problem.text if item.problem else item.title, 120)
    return one_line(item.content or item.title, 120)


def _how(pitfall: Pitfall) -> str:
    if pitfall.fix is not None:
        return one_line(pitfall.fix.content or pitfall.fix.title, 100)
    item = pitfall.item
    if isinstance(item, Record) and item.decision:
        return one_line(item.decision[0].text, 100)
    return ""  # a Skill item is itself the fix; a Pattern without a known fix says only where


def pitfall_message(pitfall: Pitfall, links: WebLinks | None = None) -> str:
    """"Known pitfall: <pattern> — fixed before in #123 by <skill>"."""
    how, what = _how(pitfall), _what(pitfall.item)
    text = f"Known pitfall: {what} — fixed before in {_where(pitfall.item)}"
    if not how or how.rstrip(". ").lower() == what.rstrip(". ").lower():
        return text  # a record whose decision repeats its problem says nothing more
    return f"{text} by {how}"


def pitfall_link(pitfall: Pitfall, links: WebLinks | None = None) -> str | None:
    """The PR / issue / commit URL a diagnostic's ``codeDescription.href`` points at."""
    return item_url(pitfall.item, links)
