"""A thread (description, comments, review comments, commit messages) → numbered units and claims.

Every paragraph of prose becomes one ``ThreadUnit`` (``U1``, ``U2``, … in the order added); a
list item counts as a paragraph. Every sentence extracted from a unit is a ``Claim`` that keeps
the unit id, so whatever a record says can be cited to the paragraph it came from, and through it
to the commit whose message said it (``ThreadUnit.commit``; None for a PR or issue description,
which speaks for the work as a whole).

Prose is cleaned first with ``knowledge.clean``: code blocks, tracebacks, quoted diffs, trailers,
HTML and PR-template boilerplate are dropped; short inline code spans stay as plain words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from whylens.knowledge.clean import clean_inline, structural_paragraphs
from whylens.knowledge.sentences import split_sentences
from whylens.models import Claim, ThreadUnit

UNIT_KINDS = ("description", "comment", "review", "commit")
MAX_UNIT_CHARS = 1_200  # a runaway paragraph is cut; the claims come from its start
MAX_UNITS = 400  # a thread longer than this keeps its first units (a flame war says no more)

_PR_SUFFIX = re.compile(r"\s*\((?:[\w.-]+/[\w.-]+)?#\d+\)\s*$")


def paragraphs(text: str) -> list[str]:
    """Cleaned prose paragraphs of ``text`` (one line each); never raises on odd input."""
    if not text:
        return []
    out = []
    for raw in structural_paragraphs(text):
        cleaned = clean_inline(raw)
        if cleaned and any(ch.isalpha() for ch in cleaned):
            out.append(cleaned[:MAX_UNIT_CHARS])
    return out


def sentences(text: str) -> list[str]:
    """Split one cleaned paragraph into sentences, by the rule units are split by
    (``knowledge.sentences.split_sentences``), so a record's claim and a unit cut from the same
    prose are the same sentence."""
    return [p for p in split_sentences(text) if any(ch.isalpha() for ch in p)]


def strip_pr_suffix(subject: str) -> str:
    """``"Fix the pool (#123)"`` → ``"Fix the pool"``."""
    return _PR_SUFFIX.sub("", subject).strip()


@dataclass
class ThreadBuilder:
    """Numbers units as they are added, across every source of one record's thread."""

    units: list[ThreadUnit] = field(default_factory=list)

    def add_text(self, text: str, kind: str, author: str = "", url: str | None = None,
                 commit: str | None = None) -> list[str]:
        """Add every paragraph of ``text``; return the new unit ids."""
        ids = []
        for para in paragraphs(text):
            unit_id = self.add_paragraph(para, kind, author, url, commit)
            if unit_id:
                ids.append(unit_id)
        return ids

    def add_paragraph(self, text: str, kind: str, author: str = "", url: str | None = None,
                      commit: str | None = None) -> str | None:
        """Add one already-clean paragraph (a title, a subject); None when the thread is full."""
        if kind not in UNIT_KINDS:
            raise ValueError(f"unknown thread unit kind {kind!r}")
        text = text.strip()[:MAX_UNIT_CHARS]
        if not text or len(self.units) >= MAX_UNITS:
            return None
        unit_id = f"U{len(self.units) + 1}"
        self.units.append(ThreadUnit(id=unit_id, author=author, kind=kind, text=text, url=url,
                                     commit=commit))
        return unit_id

    def extend(self, units) -> None:
        """Append units from another thread, renumbered so ids stay ``U1..Un`` in order."""
        for unit in units:
            self.add_paragraph(unit.text, unit.kind, unit.author, unit.url, unit.commit)

    def freeze(self) -> tuple[ThreadUnit, ...]:
        return tuple(self.units)


def commit_thread(commit, builder: ThreadBuilder | None = None, title: bool = True) -> ThreadBuilder:
    """Add a commit message: the subject as one unit (unless ``title`` is False), then its body."""
    builder = builder or ThreadBuilder()
    if title:
        subject = clean_inline(strip_pr_suffix(commit.subject))
        if subject:
            builder.add_paragraph(subject, "commit", commit.author, commit=commit.sha)
    builder.add_text(commit.body, "commit", commit.author, commit=commit.sha)
    return builder


def claims(units) -> list[Claim]:
    """Every sentence of every unit, in thread order, each citing its unit."""
    return [Claim(text=s, unit=u.id) for u in units for s in sentences(u.text)]
