"""Constraint checks: current Fact units of the touched symbols, matched with the change.

A Fact counts when it states a rule (must / never / always / ensure …), its commit was not
reverted, no record anchored to the symbol marks it superseded or reverted, and no newer Fact
of the symbol restates it (the newest wording wins). It is matched against the added code (comment
lines and docstrings left out) and the change's message; a Fact that names code must share one of
those names with the added code:

- lexically (always): distinctive names both mention, and content words both use (light stemming,
  so "retries" meets ``retry``);
- semantically, when the ``whylens.semantic`` package is there (``embed(texts)`` → unit rows): the
  cosine of the static vectors of the Fact and of (message + added code words). It only counts
  from ``SEMANTIC_MIN``, which is None (off) until it is calibrated on the tune repositories'
  replay labels (bench/tune_review.py over a replay run with it set low).
"""

from __future__ import annotations

import functools
import math
import re
from types import ModuleType

from whylens.models import Record, Unit
from whylens.markup import code, inline
from whylens.retrieval.citations import change_ref
from whylens.retrieval.evidence import item_text, record_outcome
from whylens.retrieval.review_context import ReviewContext
from whylens.retrieval.review_hunks import ChangedSymbol
from whylens.retrieval.review_tokens import code_only
from whylens.retrieval.text import (
    CODE_WORDS, STOP_WORDS, content_words, identifier_hits, identifiers, split_identifier,
)

_semantic: ModuleType | None
try:  # the semantic layer (static embedding vectors); optional
    from whylens import semantic as _semantic
except ImportError:  # not installed: lexical matching only
    _semantic = None

SEMANTIC_MIN: float | None = None  # cosine from which a Fact counts as about the change (off)
NORMATIVE = re.compile(
    r"\b(must|never|always|should|shouldn't|required?|requires|needs? to|has to|have to|ensure"
    r"|don't|do not|cannot|can't|only if|only when|is not allowed|not allowed)\b", re.I)
RESTATED = 0.6  # share of content words a newer Fact repeats to supersede an older one
# A Fact of a file-wide anchor (``review_hunks.file_wide``: ``module.exports`` holding the file,
# a module or a test class wrapping it) is a rule about anything in the file. With WIDE_SHIFT set,
# it only counts when it names code the added code names too, shifted by WIDE_SHIFT; None: such
# anchors carry no constraint. Chosen by bench/tune_review.py as ``constraint@wide`` (review4:
# requests, express, sinatra): off. Both such comments at the gate were noise (sinatra's
# HelpersTest, a test class spanning its file); requests and express had none.
WIDE_SHIFT: float | None = None


def stem(word: str) -> str:
    """A light English stem: retries → retry, delays → delay, fixed → fix, blocking → block."""
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "es" and not word[:-2].endswith(("s", "x", "ch", "sh", "z")):
                continue
            if suffix == "s" and word.endswith("ss"):
                continue
            return word[: len(word) - len(suffix)] + repl
    return word


# Error-text stop words that name code in a constraint ("a fixed delay", "the file type"),
# and normative words that every constraint uses.
_KEEP = frozenset("fixed value values type line lines file files error errors exception exceptions".split())
_STOP = (STOP_WORDS - _KEEP) | CODE_WORDS | frozenset(
    "because always never ensure must should need needs required require requires allowed allow".split())


@functools.lru_cache(maxsize=4096)
def stems(text: str) -> frozenset[str]:
    """Stemmed content words of prose or code (identifiers split), without stop words (cached:
    the change's message and a symbol's Facts are met once per changed symbol)."""
    return frozenset(stem(w) for w in content_words(text, _STOP))


def current_facts(ctx: ReviewContext, facts: list[Unit], records: list[Record]) -> list[Unit]:
    """The Facts that still hold (newest first): not reverted, not superseded, not restated."""
    outcome_of_commit: dict[str, str] = {}
    for record in records:
        outcome = record_outcome(ctx.reader, record, records)
        for sha in record.fixing_commits:
            outcome_of_commit[sha] = outcome
    kept: list[Unit] = []
    for fact in sorted(facts, key=lambda u: u.date, reverse=True):
        if not NORMATIVE.search(item_text(fact)):
            continue  # a description of a change, not a rule it must keep
        if ctx.reverted(fact.commit) or outcome_of_commit.get(fact.commit) in ("superseded", "reverted"):
            continue
        words = stems(fact.content or fact.title)
        if any(len(words & stems(newer.content or newer.title)) >= RESTATED * max(1, len(words))
               for newer in kept):
            continue  # a newer Fact says the same thing
        kept.append(fact)
    return kept


def constraints(ctx: ReviewContext, where: ChangedSymbol, facts: list[Unit], message: str) -> None:
    """0.4 + 0.15 per shared name (two) + 0.15 for three shared words with the added code (0.05
    for two) + 0.1 when the change's message shares two words with the Fact (+ 0.1 semantic, when
    calibrated). Only the added code counts (comment lines and docstrings do not: a reworded
    docstring keeps every rule). A Fact that names code (distinctive identifiers) needs the added
    code to name one of them; a Fact in plain words needs three shared words, or words shared with
    the code that the message completes to three. A file-wide anchor carries none (``WIDE_SHIFT``
    None), or only Facts naming code the added code names (+ ``WIDE_SHIFT``)."""
    own = set(split_identifier(where.symbol.name)) if where.symbol else set()
    own_names = {where.symbol.name.lower(), where.symbol.short_name.lower()} if where.symbol else set()
    added = code_only(where.added, where.path)
    code_words = stems(added) - own
    message_words = stems(message) - own
    added_ids = identifiers(added, distinct_only=True) - own_names
    if where.wide and WIDE_SHIFT is None:
        return  # the file's rules, not this code's: no constraint from a file-wide anchor
    for fact in facts:
        text = item_text(fact)
        fact_ids = identifiers(text, distinct_only=True) - own_names
        names = identifier_hits(fact_ids, added_ids)
        fact_words = stems(text) - own
        with_code = fact_words & code_words
        with_message = fact_words & message_words
        semantic = False
        if SEMANTIC_MIN is not None:  # off until calibrated: no vectors computed for nothing
            cosine = semantic_similarity(text, f"{message}\n{' '.join(sorted(code_words))}")
            semantic = cosine is not None and cosine >= SEMANTIC_MIN
        if fact_ids and not names or where.wide and not names:
            continue  # the rule is about code this change does not name (or about the whole file)
        if not (names or len(with_code) >= 3 or semantic
                or with_code and len(with_code | with_message) >= 3):
            continue
        confidence = (0.4 + 0.15 * min(len(names), 2)
                      + (0.15 if len(with_code) >= 3 else 0.05 if len(with_code) == 2 else 0)
                      + (0.1 if len(with_message) >= 2 else 0) + (0.1 if semantic else 0)
                      + (WIDE_SHIFT or 0 if where.wide else 0))
        words = sorted(with_code | with_message)[:4]
        why = (f" It shares {', '.join(code(n) for n in names[:3])} with the added lines." if names
               else f" Shared words: {', '.join(words)}." if words else "")
        body = (f"A constraint recorded for {code(where.symbol.name if where.symbol else where.path)}: "
                f"“{inline(fact.content or fact.title, 180)}” "
                f"({change_ref(fact.commit, fact.pr, ctx.links)}).{why} Does this change keep it?")
        ctx.add(where.path, where.line, where.side, "constraint", body, confidence,
                (fact.id, fact.commit), where.symbol)


def semantic_similarity(a: str, b: str) -> float | None:
    """Cosine of ``a`` and ``b`` from ``whylens.semantic.embed`` (unit rows: their dot product),
    or None when the package is absent, its data cannot be loaded, or a text has no known token."""
    if _semantic is None:
        return None
    try:
        va, vb = (list(map(float, row)) for row in _semantic.embed([a, b]))
        norm = math.sqrt(sum(x * x for x in va)) * math.sqrt(sum(x * x for x in vb))
        return sum(x * y for x, y in zip(va, vb)) / norm if norm else None
    except Exception:  # noqa: BLE001 - an optional layer never breaks a review
        return None
