"""A card says each thing once: when two texts say the same thing, and a symbol's current
knowledge with what its decisions or other items already say left out, so the hover, the card,
the code lens and ``whylens why`` show and count the same items (``Story.counts``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from whylens.knowledge.subjects import strip_prefix
from whylens.models import Claim, Record, Unit
from whylens.records.extract import strip_refs
from whylens.retrieval.text import content_words

SAID_BY_UNITS = ("pattern", "fact")  # the units a hover shows beside its decisions


def _words(text: str) -> list[str]:
    """The words a reader compares (numbers too: "4K" is not "8K"), without issue refs or a
    conventional prefix ("fix(x): ")."""
    return re.findall(r"[^\W_]+", strip_refs(strip_prefix(text)).lower())


def same_text(a: str, b: str) -> bool:
    """The same words, whatever the markup, case, punctuation or issue references (a cleaned
    title is the title)."""
    return _words(a) == _words(b)


MIN_RUN_WORDS = 4  # fewer words in common are a phrase two items may share, not a repetition


def repeats(text: str, said: Iterable[str]) -> bool:
    """``text`` says nothing that one of ``said`` does not: the same words (``same_text``), or
    its words are a run of another's (a sentence of a two-sentence pitfall, a claim cut short
    at "FORK ..." of "FORK ... BACKTRACK"). A card says each thing once."""
    words = _words(text)
    if not words:
        return False
    run = f" {' '.join(words)} "
    for other in said:
        theirs = _words(other)
        if theirs == words or (len(words) >= MIN_RUN_WORDS and len(theirs) > len(words)
                               and run in f" {' '.join(theirs)} "):
            return True
    return False


def said_once(texts: list[str], said: list[str]) -> list[bool]:
    """Which of ``texts`` to show: not one that repeats ``said`` or another of ``texts`` (of two
    that say the same, the first is kept; of one inside another, the longer)."""
    keep: list[bool] = []
    for i, text in enumerate(texts):
        longer = [o for j, o in enumerate(texts) if j != i and not same_text(o, text)]
        keep.append(not (repeats(text, said) or repeats(text, longer) or any(
            same_text(text, o) for o, kept in zip(texts, keep) if kept)))
    return keep


def summary_parts(record: Record, shown_below: Callable[[str], bool] = lambda text: False
                  ) -> tuple[str, str, str]:
    """What ``render.cards.record_summary`` says: (problem or decision or title, a decision,
    a rejected alternative), "" for a part it leaves out; not a field that ``shown_below`` (what
    the units a card shows under its decisions read) says."""
    problem = record.problem.text if record.problem and not shown_below(
        record.problem.text) else ""
    decisions = [c.text for c in record.decision
                 if not repeats(c.text, [problem]) and not shown_below(c.text)]
    rejected = [c.text for c in record.rejected if not shown_below(c.text)]
    head = problem or (decisions.pop(0) if decisions else record.title)
    return head, decisions[0] if decisions else "", rejected[0] if rejected else ""


def without_fix_verb(title: str) -> str:
    """"Fix memory leaks" → "memory leaks": a problem that only repeats the title."""
    return re.sub(r"^\W*(?:fix(?:es|ed|ing)?|bug ?fix(?:es)?)\s+", "", title.strip(), flags=re.I)


FIELDS = ("Problem", "Cause", "Decision", "Rejected")


def shown_fields(record: Record, said: Iterable[str]) -> list[tuple[str, str]]:
    """(field name, text) of each field a card shows of ``record``, each said once: not its
    title again (with or without a fix verb), not a field above again, not one of ``said``
    (what the card's units say)."""
    seen = [record.title, *said]
    plain = without_fix_verb(record.title)
    shown: list[tuple[str, str]] = []
    for name, group in zip(FIELDS, _claims(record)):
        for claim in group:
            if repeats(claim.text, seen) or same_text(claim.text, plain):
                continue
            seen.append(claim.text)
            shown.append((name, claim.text))
    return shown


def distinct(units: Sequence[Unit], records: Sequence[Record]
             ) -> tuple[tuple[Unit, ...], tuple[Record, ...]]:
    """``units`` and ``records`` each saying something the others do not: a decision known only
    by a title that a pitfall or constraint says (in its words, or of its commit in other words:
    ``same_claim``) is left out (the unit, typed, cites the same change); a record's field that
    a unit says gives way to the unit; then a unit that a decision's title or remaining fields
    say, or another unit says, is left out."""
    texts = [u.content or u.title for u in units]
    told = [(u, t) for u, t in zip(units, texts) if u.type in SAID_BY_UNITS]
    kept = tuple(r for r in records if not (title_only(r) and any(
        repeats(r.title, [t]) or (u.commit in r.fixing_commits and same_claim(r.title, t))
        for u, t in told)))
    said = [r.title for r in kept] + [text for r in kept for text in _fields(r)
                                      if not repeats(text, texts)]
    shown = [(u, t) for u, t, k in zip(units, texts, said_once(texts, said)) if k]
    return tuple(u for i, (u, t) in enumerate(shown) if not any(
        u.commit == other.commit and same_claim(t, theirs) for other, theirs in shown[:i])), kept


def title_only(record: Record) -> bool:
    """A record whose summary says nothing but its title."""
    head, decision, rejected = summary_parts(record)
    return head == record.title and not decision and not rejected


SAME_CLAIM = 0.6  # content-word Jaccard of two sentences of one commit that say one thing


def same_claim(text: str, other: str) -> bool:
    """Two sentences (of one commit) saying one thing in other words, as a subject and its
    bullet often do (httpx ed94950: "Files without a filename should not set a Content-Type in
    multipart data." and "File upoads with no filename should not set a Content-Type in their
    multipart data."). Of the 201 pairs of one commit's units on the tune cards, the two such
    pairs reach 0.67 and 0.78 content-word Jaccard, every other pair at most 0.57."""
    mine, theirs = content_words(text), content_words(other)
    return bool(mine) and len(mine & theirs) / len(mine | theirs) >= SAME_CLAIM


def _claims(record: Record) -> tuple[Sequence[Claim], ...]:
    """A record's claims by field, in ``FIELDS`` order."""
    return ((record.problem,) if record.problem else (), record.cause, record.decision,
            record.rejected)


def _fields(record: Record) -> list[str]:
    return [c.text for group in _claims(record) for c in group if c.text]
