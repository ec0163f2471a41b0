"""Known-pitfall diagnostics: the message text and the link behind it (LSP ``codeDescription``).

Diagnostic messages are plain text in every client, so references here are ``#123`` or a short
sha, never markdown links; the link goes into ``pitfall_link``.
"""

from __future__ import annotations

from whylens.history.links import WebLinks
from whylens.models import COMMIT_TYPE, Pitfall, Record
from whylens.retrieval.citations import item_url, one_line, short
from whylens.retrieval.snippets import is_reference

MIN_WORDS = 3  # a commit's line shorter than this ("Before:", "ex: res.status(500)") names no failure


def _where(item) -> str:
    if isinstance(item, Record):
        if item.number is not None:
            return f"#{item.number}"
        return short(item.fixing_commits[0]) if item.fixing_commits else item.id
    return f"#{item.pr}" if item.pr is not None else short(item.commit)


def _what(item) -> str:
    if isinstance(item, Record):
        return one_line(item.problem.text if item.problem else item.title, 120)
    if item.type == COMMIT_TYPE:  # its prose, a sentence a line, less the lines that say nothing
        told = [s for s in (item.content or "").splitlines()
                if len(s.split()) >= MIN_WORDS and not is_reference(s)]
        return one_line(" ".join(told) or item.title, 120)
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
    if pitfall.reverted_by:  # what the history undid is never told as current
        return (f"Known pitfall: {what} — fixed in {_where(pitfall.item)}, then reverted in "
                f"{short(pitfall.reverted_by)}: not fixed in the code today")
    text = f"Known pitfall: {what} — fixed before in {_where(pitfall.item)}"
    if not how or how.rstrip(". ").lower() == what.rstrip(". ").lower():
        return text  # a record whose decision repeats its problem says nothing more
    return f"{text} by {how}"


def pitfall_link(pitfall: Pitfall, links: WebLinks | None = None) -> str | None:
    """The PR / issue / commit URL a diagnostic's ``codeDescription.href`` points at."""
    return item_url(pitfall.item, links)
