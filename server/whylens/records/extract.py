"""Record fields from a numbered thread: problem, cause, decision, rejected, supersedes.

Each field is a list of sentences, each keeping the thread unit it came from. The sentence
classifier chooses them (``records.distil``); the marker phrases of ``knowledge.cues`` are the
rules used when its data is unavailable. Deterministic: the same thread always gives the same
fields.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from whylens.knowledge.classify import default_model
from whylens.knowledge.cues import ACTION_VERBS, BEFORE, CAUSE, DECISION, REJECTED, TRIVIAL
from whylens.knowledge.features import CommitKind
from whylens.models import Claim
from whylens.records.distil import distil
from whylens.records.thread import sentences

MAX_CLAIMS = 3  # per field: a record is a summary, the thread is one click away
MAX_CLAIM_CHARS = 400
MIN_CLAIM_WORDS = 4

SUPERSEDES = re.compile(
    r"\b(?:supersed(?:es|ed|ing)|replac(?:es|ed|ing)|obsoletes?|in\ favou?r\ of|follow[- ]up\ (?:to|of))"
    r"\s+(?:(?:pr|pull\ request|issue|the\ (?:fix|change|approach)\ (?:in|from))\s+)?"
    r"(?:(?:[\w.-]+/[\w.-]+)?#(\d+)|`([A-Za-z_][\w.]*)`)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Fields:
    problem: Claim | None
    cause: tuple[Claim, ...]
    decision: tuple[Claim, ...]
    rejected: tuple[Claim, ...]


def extract_fields(title: str, units, summary_unit: str | None = "U1", opening: bool = True,
                   kind: CommitKind | None = None, use_model: bool = True,
                   subjects: Iterable[str] = ()) -> Fields:
    """The fields of a thread whose title sits in unit ``summary_unit``: chosen by the sentence
    classifier (``records.distil``; ``kind`` says what the work touched, ``subjects`` are its
    commits' subjects), or by the rules when its data is unavailable (or ``use_model`` is False):

    problem: the title, plus (``opening``) the first sentence of the description when there is
    one (a commit record's problem is its subject alone);
    decision: marker sentences, else the title when it names an action (the PR summary).
    """
    title = next((u.text for u in units if u.id == summary_unit), title)  # the cleaned title
    model = default_model() if use_model else None
    if model is not None:
        title_claim = Claim(_cap(title), summary_unit) if summary_unit and title.strip() else None
        claims = [c for c in _claims(units) if c.unit != summary_unit]
        return Fields(*distil(title_claim, claims, kind or CommitKind(), model, subjects))
    candidates = _claims(units)
    cause = _pick(candidates, lambda s: CAUSE.search(s))
    rejected = _pick(candidates, lambda s: REJECTED.search(s))
    decision = _pick(candidates, _is_decision)
    problem = _problem(title, units if opening else [], summary_unit, decision)
    if not decision and summary_unit and _opens_with_action(title) and _says_something(title):
        decision = (Claim(_cap(title), summary_unit),)
    return Fields(problem, cause, decision, rejected)


def explains(title: str, fields: Fields) -> bool:
    """The work says something beyond its title: a problem, a cause, a rejected alternative, or
    a decision that is not the title again. Work known only by its title is a change in the
    history, never a symbol's decision (it is left unanchored)."""
    words = lambda text: re.findall(r"[^\W\d_]+", strip_refs(text).lower())  # noqa: E731
    return bool(fields.problem or fields.cause or fields.rejected or any(
        words(c.text) != words(title) for c in fields.decision))


def strip_refs(text: str) -> str:
    """A title without its issue / PR references: "x (fix #533)" is "x"."""
    return _TITLE_REFS.sub(" ", text)


_TITLE_REFS = re.compile(
    r"[(\[;,]?\s*(?:(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?|see)\s*)?"
    r"(?:[\w.-]+/[\w.-]+)?#\d+\s*[)\]]?", re.I)


def supersedes_refs(raw_text: str) -> tuple[str, ...]:
    """What the raw text says it supersedes or replaces: ``#N`` refs and `code` names."""
    found = []
    for match in SUPERSEDES.finditer(raw_text or ""):
        found.append(f"#{match.group(1)}" if match.group(1) else match.group(2))
    return tuple(dict.fromkeys(found))


def thread_shape(units, fields: Fields) -> str:
    """investigation: a thread that explains a cause; review_stream: many units, no diagnosis;
    thin: little more than a title."""
    words = sum(len(u.text.split()) for u in units)
    if len(units) <= 2 or words < 40:
        return "thin"
    explains = fields.cause or any(CAUSE.search(u.text) for u in units)
    if explains or (fields.rejected and len({u.author for u in units}) > 1):
        return "investigation"
    return "review_stream"


# A sentence ending like this lost its object in cleaning ("This change is in response to #12").
_DANGLING = re.compile(r"\b(?:to|for|of|in|with|by|from|the|a|an|see|and|or|at|on|per)\W*$", re.IGNORECASE)


_CONTENT_WORD = re.compile(r"[A-Za-z]{3,}")  # ". as [$i, $j] | ..." is code, not a claim


def _claims(units) -> list[Claim]:
    out = []
    for unit in units:
        for text in sentences(unit.text):
            if len(text.split()) >= MIN_CLAIM_WORDS and not _DANGLING.search(text) \
                    and len(_CONTENT_WORD.findall(text)) >= MIN_CLAIM_WORDS - 1 \
                    and not text.rstrip().endswith(":"):  # a lead-in whose block is gone
                out.append(Claim(_cap(text), unit.id))
    return out


def _pick(candidates: list[Claim], test) -> tuple[Claim, ...]:
    chosen: list[Claim] = []
    seen = set()
    for claim in candidates:
        key = claim.text.lower()
        if key in seen or not test(claim.text):
            continue
        seen.add(key)
        chosen.append(claim)
        if len(chosen) >= MAX_CLAIMS:
            break
    return tuple(chosen)


def _is_decision(text: str) -> bool:
    if BEFORE.match(text):
        return False  # "Prior to this patch, X happened" tells the problem, not the approach
    if DECISION.search(text):
        return True
    return _opens_with_action(text) and not _is_trivial(text)


def _opens_with_action(text: str) -> bool:
    words = re.findall(r"[A-Za-z']+", text[:60])
    return bool(words) and words[0].lower() in ACTION_VERBS


def _is_trivial(text: str) -> bool:
    return len(text.split()) < 8 and bool(TRIVIAL.search(text))


def _problem(title: str, units, summary_unit: str | None, decision) -> Claim | None:
    title = title.strip()
    if not _says_something(title):  # "Fix #972": the first substantive sentence says more
        first = next((c for c in _claims(units) if c.unit != summary_unit), None)
        if first is not None:
            return first
    opening = _opening(units, summary_unit)
    if opening and not _same(opening.text, title) and opening not in decision:
        return Claim(_cap(f"{title} — {opening.text}" if title else opening.text), opening.unit)
    if title:
        return Claim(_cap(title), summary_unit or (units[0].id if units else "U1"))
    return opening


def _opening(units, summary_unit: str | None) -> Claim | None:
    """The first sentence of the first unit after the title of the title's own kind (the
    description of a PR or issue, the body of a commit message)."""
    kind = next((u.kind for u in units if u.id == summary_unit), "description")
    for unit in units:
        if unit.id == summary_unit:
            continue
        if unit.kind != kind:
            return None
        for text in sentences(unit.text):
            if len(text.split()) >= MIN_CLAIM_WORDS:
                return Claim(_cap(text), unit.id)
        return None
    return None


_REFERENCE = re.compile(r"(?:[\w.-]+/[\w.-]+)?#+\d+|\bgh-\d+|\bissue\b|\bbug\b", re.IGNORECASE)


def _says_something(title: str) -> bool:
    """More than a verb and a reference ("Fix #972", "fix for ##6604")."""
    words = re.findall(r"[A-Za-z]{2,}", _REFERENCE.sub(" ", title))
    return len([w for w in words if w.lower() not in ("fix", "fixes", "fixed", "for", "closes", "the")]) >= 1


def _same(a: str, b: str) -> bool:
    norm = lambda s: re.sub(r"\W+", " ", s.lower()).strip()  # noqa: E731
    return norm(a) == norm(b) or norm(a).startswith(norm(b)) and len(norm(b)) > 20


def _cap(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_CLAIM_CHARS else text[: MAX_CLAIM_CHARS - 1].rstrip() + "…"
