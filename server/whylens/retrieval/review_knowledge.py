"""Checks that read the distilled knowledge of a changed symbol (no diff of the past needed).

- ``reverted-before``: an earlier change to this symbol was reverted (or its record was);
- ``reintroduces-pitfall`` (known failure modes): the added lines use the code a Pattern unit
  of this symbol, or of another symbol of the same file, names as its trigger;
- ``decision-context``: a record anchored to this symbol rejected what the added lines name, or
  its decision names what they change.

Each confidence is set out next to its check; the gate in ``review`` drops the rest.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from whylens.models import HistoryEntry, Record, Unit
from whylens.markup import code, inline
from whylens.retrieval.citations import change_ref, commit_ref, record_ref
from whylens.retrieval.evidence import item_text, record_outcome, reverting_commits
from whylens.retrieval.review_context import ReviewContext
from whylens.retrieval.review_hunks import ChangedSymbol
from whylens.retrieval.text import (
    CODE_WORDS, code_span_identifiers, content_words, identifier_hits, identifiers,
    split_identifier,
)

MAX_HISTORY = 60  # history entries checked for reverts per symbol (newest first)
MAX_NEIGHBOURS = 30  # symbols of the same file whose pitfalls are matched against added lines


@dataclass(frozen=True)
class Relevance:
    """What the added lines share with a piece of knowledge (beyond the symbol's own name)."""

    names: tuple[str, ...]  # distinctive identifiers both mention
    words: tuple[str, ...]  # content words both use

    @property
    def relevant(self) -> bool:
        return bool(self.names) or len(self.words) >= 3


def relevance(texts: Iterable[str], where: ChangedSymbol, extra: str = "") -> Relevance:
    """Names and words ``texts`` share with the added lines (and ``extra``, e.g. the message)."""
    own = {where.symbol.name.lower(), where.symbol.short_name.lower()} if where.symbol else set()
    own_parts = set(split_identifier(where.symbol.name)) if where.symbol else set()
    text = "\n".join(t for t in texts if t)
    added_ids = identifiers(where.added, distinct_only=True) - own
    names = identifier_hits(identifiers(text, distinct_only=True) - own, added_ids)
    theirs = content_words(where.added) | (content_words(extra) if extra else set())
    words = (content_words(text) & theirs) - own_parts - CODE_WORDS
    return Relevance(tuple(names), tuple(sorted(words)))


def shared(rel: Relevance) -> str:
    if rel.names:
        return "code: " + ", ".join(code(n) for n in rel.names[:3])
    return "subject: " + inline(", ".join(rel.words[:4]))


def reverted_before(ctx: ReviewContext, where: ChangedSymbol, name: str,
                    history: list[HistoryEntry], units: list[Unit]) -> None:
    """0.45, +0.25 when the added lines share names or words with the reverted change or its
    revert, +0.1 when the revert is recent (≤ 180 days before the review's clock).
    Recency alone stays under the gate: on the replay labels 4 of 23 such were useful."""
    for entry in history[:MAX_HISTORY]:
        reverts = reverting_commits(ctx.reader, entry.commit)
        if not reverts:
            continue
        revert = reverts[0]
        info = ctx.reader.commit_info(revert)
        texts = [entry.subject, info.subject if info else ""]
        texts += [item_text(u) for u in units if u.commit in (entry.commit, revert)]
        rel = relevance(texts, where)
        stamp = info.timestamp if info else entry.timestamp
        confidence = 0.45 + (0.1 if ctx.recent(stamp) else 0) + (0.25 if rel.relevant else 0)
        also = f" It touches the same {shared(rel)}." if rel.relevant else ""
        body = (f"An earlier change to {code(name)} was reverted: “{inline(entry.subject, 100)}” "
                f"{change_ref(entry.commit, entry.pr, ctx.links)} was undone by "
                f"{commit_ref(revert, ctx.links)}.{also} Check that this change does not "
                "bring back what made it fail.")
        ctx.add(where.path, where.line, where.side, "reverted-before", body, confidence,
                (entry.commit, revert), where.symbol)
        return  # the newest reverted change speaks for the symbol


def known_failures(ctx: ReviewContext, where: ChangedSymbol, patterns: list[tuple[Unit, bool]]) -> None:
    """Added lines use code a Pattern names: inside a code span (`pool.get()`) a name weighs
    0.3, in prose 0.1 (two names at most); anchored to this very symbol +0.1. Only
    distinctive names count (dotted, snake_case, camelCase; never an exception class)."""
    added_ids = identifiers(where.added, distinct_only=True)
    if not added_ids:
        return
    for unit, own in patterns:
        spans = code_span_identifiers(unit.context)
        hits = identifier_hits(identifiers(item_text(unit), distinct_only=True) | spans, added_ids)
        if not hits:
            continue
        strong = [h for h in hits if h in spans]
        weights = sorted((0.3 if h in strong else 0.1 for h in hits), reverse=True)[:2]
        confidence = 0.35 + sum(weights) + (0.1 if own else 0.0)
        names = ", ".join(code(h) for h in (strong or hits)[:3])
        scope = "this symbol" if own else code(", ".join(unit.symbols[:2]) or unit.files[0])
        body = (f"This adds {names}, which a known pitfall of {scope} names: "
                f"“{inline(unit.content or unit.title, 160)}” "
                f"({change_ref(unit.commit, unit.pr, ctx.links)}). "
                "Make sure the earlier failure does not come back.")
        ctx.add(where.path, where.line, where.side, "reintroduces-pitfall", body, confidence,
                (unit.id, unit.commit), where.symbol)


def decisions(ctx: ReviewContext, where: ChangedSymbol, name: str, records: list[Record]) -> None:
    """A reverted record scores like ``reverted_before``; a rejected alternative the added
    lines name 0.7 (+0.1 per name); a decision whose names the added lines change 0.55+."""
    for record in records:
        outcome = record_outcome(ctx.reader, record, records)
        ref = record_ref(record, ctx.links)
        if outcome == "reverted":
            rel = relevance([record.title, _decision(record)], where)
            recent = ctx.recent(_timestamp(record.date))
            confidence = 0.45 + (0.1 if recent else 0) + (0.25 if rel.relevant else 0)
            body = (f"{ref} “{inline(record.title, 100)}” changed {code(name)} and was reverted; "
                    "check this change does not repeat it.")
            # its fixing commits are evidence too: the same revert is never cited twice
            ctx.add(where.path, where.line, where.side, "reverted-before", body, confidence,
                    (record.id, *record.fixing_commits), where.symbol)
            continue
        decided = {c.text.strip() for c in record.decision} | {record.title.strip()}
        for claim in record.rejected:
            if claim.text.strip() in decided:
                continue  # a distillation that put the same sentence on both sides
            rel = relevance([claim.text], where)
            if rel.names:
                body = (f"{ref} considered and rejected this: “{inline(claim.text, 160)}”. "
                        f"It decided: “{inline(_decision(record), 160)}” (distilled, unreviewed).")
                ctx.add(where.path, where.line, where.side, "decision-context", body,
                        0.7 + 0.1 * min(len(rel.names), 2), (record.id,), where.symbol)
                break
        else:
            rel = relevance([_decision(record)], where)
            if len(rel.names) >= 2 or (outcome == "superseded" and rel.names):
                body = (f"{code(name)} is as it is because of {ref}: “{inline(_decision(record), 180)}” "
                        "(distilled, unreviewed). This change touches what it decided.")
                ctx.add(where.path, where.line, where.side, "decision-context", body,
                        0.55 + 0.05 * min(len(rel.names), 3), (record.id,), where.symbol)


def _timestamp(date: str) -> int:
    try:
        return int(datetime.fromisoformat(date).timestamp())
    except (TypeError, ValueError):
        return 0


def _decision(record: Record) -> str:
    if record.decision:
        return " ".join(c.text for c in record.decision[:2])
    return record.title
