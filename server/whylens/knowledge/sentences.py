"""Sentence splitting for commit prose.

A boundary is ``.``, ``!`` or ``?`` (plus closing quotes/brackets) followed by whitespace and a
capital letter, digit, quote, bracket or backtick. Not a boundary: abbreviations (``e.g.``,
``i.e.``, ``etc.`` before a lowercase word, ``vs.``, ``cf.``), a single-letter initial, and
anything without whitespace after the dot, so versions (``2.31.0``) and dotted names
(``requests.Session.send``) stay whole. A paragraph is never joined with the next one.
"""

from __future__ import annotations

import re

# Lowercased words that end with a dot without ending the sentence.
ABBREVIATIONS = frozenset(
    "e.g i.e eg ie cf vs v viz approx incl esp resp al ca mr mrs ms dr prof st jr sr nos fig"
    " figs".split()
)
_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*\s+(?=[A-Z0-9\"'(\[`*])")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)[.!?]+[\"')\]]*\s*$")

MAX_SENTENCES = 200  # per commit: a huge generated body is not read to the end


def split_sentences(paragraph: str) -> list[str]:
    """The sentences of one paragraph (already unwrapped onto one line)."""
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(paragraph):
        head = paragraph[start:match.end()]
        if _is_abbreviation(head) or _inside_code_span(paragraph[start:match.start()]):
            continue
        sentences.append(head.strip())
        start = match.end()
        if len(sentences) >= MAX_SENTENCES:
            return sentences
    tail = paragraph[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def _is_abbreviation(head: str) -> bool:
    word = _WORD_BEFORE.search(head)
    if not word:
        return False
    token = word.group(1).lower().rstrip(".")
    if token in ABBREVIATIONS:
        return True
    return len(token) == 1 and word.group(1).isupper()  # an initial: "J. Smith"


def _inside_code_span(text: str) -> bool:
    return text.count("`") % 2 == 1
