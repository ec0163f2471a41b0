"""Sentence splitting for commit prose.

A boundary is ``.``, ``!`` or ``?`` (plus closing quotes/brackets) followed by whitespace and a
capital letter, digit, quote, bracket or backtick. Not a boundary: abbreviations (``e.g.``,
``i.e.``, ``etc.`` before a lowercase word, ``vs.``, ``cf.``), a single-letter initial, an
ellipsis standing between two words (``FORK ... BACKTRACK``), and anything without whitespace
after the dot, so versions (``2.31.0``) and dotted names
(``requests.Session.send``) stay whole. A paragraph is never joined with the next one.

``commit_sentences(commit)`` gives a commit's sentences as extraction and the classifier see them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from whylens.knowledge.clean import clean_inline, structural_paragraphs
from whylens.knowledge.subjects import strip_prefix, subject_text
from whylens.models import Commit

# Lowercased words that end with a dot without ending the sentence.
ABBREVIATIONS = frozenset(
    "e.g i.e eg ie cf vs v viz approx incl esp resp al ca mr mrs ms dr prof st jr sr nos fig"
    " figs".split()
)
_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*\s+(?=[A-Z0-9\"'(\[`*])")
# "... by removing FORK ... BACKTRACK": an ellipsis standing between two words leaves
# something out of a sentence; it does not end one.
_ELISION = re.compile(r"\s\.{3}\s+$")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)[.!?]+[\"')\]]*\s*$")

MAX_SENTENCES = 200  # per commit: a huge generated body is not read to the end


def split_sentences(paragraph: str) -> list[str]:
    """The sentences of one paragraph (already unwrapped onto one line)."""
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(paragraph):
        head = paragraph[start:match.end()]
        if _is_abbreviation(head) or _inside_code_span(paragraph[start:match.start()]) \
                or _ELISION.search(head):
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


# -- a commit's sentences, as extraction and the classifier see them ---------------------------

MAX_SUBJECT_CHARS = 1_000  # a subject longer than this is a pasted body; the rest is ignored
_MIN_WORDS = 2  # fewer is a fragment left by cleaning ("Fixes", "Ref", "/cc")
_ALPHA_WORD = re.compile(r"[A-Za-z]{2,}")
_NORM = re.compile(r"\W+")


@dataclass(frozen=True)
class Sentence:
    raw: str  # with inline markup: a unit's context
    clean: str  # cleaned: a unit's content, what the classifier reads
    from_subject: bool  # the subject (or a merge's PR title)
    index: int = 0  # position among the commit's sentences


def commit_sentences(commit: Commit) -> list[Sentence]:
    """The subject's sentences, then the cleaned body's; a merge's PR title opens the body and
    counts as the subject. Body lines that only repeat the subject (squash-merge bodies) and
    fragments of fewer than two words are left out; conventional prefixes ("fix(x): ") are
    stripped from body lines as from the subject."""
    out: list[Sentence] = []
    raw_subject = commit.subject[:MAX_SUBJECT_CHARS].strip()
    subject = subject_text(raw_subject)
    if subject:
        for raw in split_sentences(subject):
            clean = clean_inline(raw)
            if _enough(clean):
                out.append(Sentence(raw if len(out) else raw_subject, clean, True))
    headline = not out
    seen = {_norm(s.clean) for s in out}
    for paragraph in structural_paragraphs(commit.body):
        paragraph = strip_prefix(paragraph)
        for raw in split_sentences(paragraph):
            clean = clean_inline(raw)
            key = _norm(clean)
            if not _enough(clean) or key in seen:
                continue
            seen.add(key)
            out.append(Sentence(raw, clean, headline))
            headline = False
    return [Sentence(s.raw, s.clean, s.from_subject, i) for i, s in enumerate(out)]


def _enough(clean: str) -> bool:
    return len(_ALPHA_WORD.findall(clean)) >= _MIN_WORDS


def _norm(text: str) -> str:
    return _NORM.sub(" ", text.lower()).strip()
