"""Commit prose → typed knowledge units (Fact / Skill / Pattern), each cited to its commit.

Steps: the commit's sentences (``sentences.commit_sentences``) are classified by the learned
sentence classifier (``classify``; its probability that the sentence is knowledge at all becomes
the unit's weight); a Pattern absorbs the next sentence when that one carries the resolution; a
lead-in (a sentence ending in ":") or one that says too little (``substance``) is never a unit;
ids dedupe within the commit; at most ``MAX_UNITS`` are kept (the highest weights). A unit is
anchored only to the symbols whose card it confidently explains (``confidence``): not to every
symbol its commit changed.

When the classifier's data cannot be loaded (or ``use_model=False``), the rules decide instead:
the heuristics table, with one low-prior unit from the subject when nothing fires (see
``subjects`` for when a subject is worth one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterable

from whylens.knowledge import classify, heuristics, subjects
from whylens.knowledge.confidence import UNIT_FIELDS, evidence, shown
from whylens.knowledge.features import CommitKind, commit_kind, sentence_features
from whylens.knowledge.ids import normalise, unit_id
from whylens.knowledge.sentences import Sentence, commit_sentences, split_sentences
from whylens.knowledge.substance import is_substantive
from whylens.models import Commit, SymbolEvent, Unit

MAX_UNITS = 8  # per commit
SWEEPING_SYMBOLS = 25  # a commit changing more symbols anchors its units to none (p95: ~20)
MAX_WITH_RESOLUTION = 520  # characters of a Pattern plus the sentence that resolves it
TITLE_CHARS = 80
NAMED_FAILURE_BONUS = 0.05
RESOLUTION_BONUS = 0.10
MAX_WEIGHT = 0.95

FALLBACK_PRIOR = 0.25
FALLBACK_MAX_CHARS = 300
FALLBACK_LOOKAHEAD = 6  # body sentences searched for the reason behind the subject
_REASON = re.compile(
    r"\b(?:because|so that|in order to|to (?:avoid|prevent|allow|ensure|make sure|support|fix)"
    r"|otherwise|previously|before this|which (?:caused|meant|broke|led)|this (?:fixes|prevents"
    r"|avoids|allows|ensures|makes|means|way)|since|as (?:it|they|the)|without this)\b", re.I)

@dataclass(frozen=True)
class _Draft:
    type: str
    heuristic: str
    content: str
    context: str
    weight: float
    from_subject: bool


def extract_units(
    commit: Commit, files: Iterable[str] = (), symbols: Iterable[str] = (), *,
    use_model: bool = True, events: Iterable[SymbolEvent] = (),
) -> list[Unit]:
    """The knowledge units of one commit ([] for a filtered commit). ``symbols`` are the symbols
    it changed (default: those of ``events``, its symbol events, which say how it changed each)."""
    if commit.skip_reason is not None:
        return []
    unit_files = tuple(files) or tuple(change.path for change in commit.changes)
    if subjects.housekeeping_paths(unit_files):
        return []  # docs, tests, CI or packaging only: what it says already lives in those files
    sentences = commit_sentences(commit)
    model = classify.default_model() if use_model else None
    if model is not None:
        drafts = _model_drafts(sentences, commit, unit_files, model)
    else:
        drafts = _rule_drafts(sentences)
    events = [e for e in events if e.kind != "deleted"]
    unit_symbols = tuple(symbols) or tuple(dict.fromkeys(e.symbol for e in events))
    if len(unit_symbols) > SWEEPING_SYMBOLS:
        unit_symbols = ()  # a sweeping change: what it says is no one symbol's story
    kinds = {e.symbol: e.kind for e in events}
    return [replace(unit, symbols=tuple(
        s for s in unit.symbols if shown(evidence(
            unit.content, UNIT_FIELDS[unit.type], unit.weight, s, kinds.get(s, "body"),
            unit_symbols))))
        for unit in _units(drafts, commit, unit_files, unit_symbols)]


def _units(drafts: list[_Draft], commit: Commit, unit_files, unit_symbols) -> list[Unit]:
    units: list[Unit] = []
    seen: set[str] = set()
    for draft in drafts:
        uid = unit_id(draft.type, draft.content)
        if uid in seen:
            continue
        seen.add(uid)
        units.append(Unit(
            id=uid, type=draft.type, title=short_title(draft.content), content=draft.content,
            weight=round(draft.weight, 3), context=draft.context, commit=commit.sha,
            author=commit.author, date=commit.date, files=unit_files, symbols=unit_symbols,
            source="commit", heuristic=draft.heuristic, pr=commit.pr,
        ))
    if len(units) > MAX_UNITS:  # keep the strongest, in the order they were written
        keep = set(sorted(range(len(units)), key=lambda i: -units[i].weight)[:MAX_UNITS])
        units = [u for i, u in enumerate(units) if i in keep]
    return units


def sentence_kind(commit: Commit, sentences: list[Sentence], paths) -> CommitKind:
    """The commit-kind features shared by every sentence of ``commit``."""
    subject = sentences[0].clean if sentences and sentences[0].from_subject else ""
    return commit_kind(commit.subject, paths, commit.pr, len(commit.parents) > 1, subject)


def _model_drafts(sentences: list[Sentence], commit: Commit, paths, model) -> list[_Draft]:
    kind = sentence_kind(commit, sentences, paths)
    drafts: list[_Draft] = []
    i = 0
    while i < len(sentences):
        sentence = sentences[i]
        i += 1
        if sentence.clean.endswith(":") or not is_substantive(sentence.clean) or \
                heuristics.vetoed(sentence.clean):
            continue  # a lead-in whose block is gone, too little, or chatter and hedges
        prediction = model.predict(sentence_features(
            sentence.clean, from_subject=sentence.from_subject, index=sentence.index, kind=kind))
        if prediction.unit == "none":
            continue
        content, context = sentence.clean, sentence.raw
        weight = 1.0 - prediction.unit_probs.get("none", 0.0)
        if prediction.unit == "pattern" and i < len(sentences) and _resolves(sentences[i], content):
            content = f"{_end_sentence(content)} {sentences[i].clean}"
            context = f"{_end_sentence(context)} {sentences[i].raw}"
            i += 1
        drafts.append(_Draft(prediction.unit, f"model.{prediction.unit}", content, context,
                             min(weight, MAX_WEIGHT), sentence.from_subject))
    return drafts


def _rule_drafts(sentences: list[Sentence]) -> list[_Draft]:
    """Today's rules: the heuristics table, then the subject fallback."""
    drafts = _heuristic_drafts(sentences)
    headline = sentences[0].clean if sentences else ""  # a merge's headline is its PR title
    if subjects.housekeeping_subject(headline):  # its subject says nothing about the code
        return [d for d in drafts if not d.from_subject]
    if not drafts:
        fallback = _fallback_draft(sentences)
        return [fallback] if fallback else []
    return drafts


def _heuristic_drafts(sentences: list[Sentence]) -> list[_Draft]:
    drafts: list[_Draft] = []
    i = 0
    while i < len(sentences):
        sentence = sentences[i]
        i += 1
        heuristic = heuristics.classify(sentence.clean)
        if heuristic is None or not is_substantive(sentence.clean):
            continue
        if sentence.from_subject and subjects.bare_choice(sentence.clean):
            continue  # "Use X instead of Y": the diff says as much
        content, context, weight = sentence.clean, sentence.raw, heuristic.prior
        if heuristics.NAMED_FAILURE.search(content) and heuristic.name != "pattern.named-failure":
            weight += NAMED_FAILURE_BONUS
        if heuristic.type == "pattern" and i < len(sentences) and _resolves(sentences[i], content):
            content = f"{_end_sentence(content)} {sentences[i].clean}"
            context = f"{_end_sentence(context)} {sentences[i].raw}"
            weight += RESOLUTION_BONUS
            i += 1
        drafts.append(_Draft(heuristic.type, heuristic.name, content, context,
                             min(weight, MAX_WEIGHT), sentence.from_subject))
    return drafts


def _resolves(following: Sentence, content: str) -> bool:
    """The next sentence says how the failure was fixed (and the pair stays short)."""
    if following.from_subject or heuristics.vetoed(following.clean):
        return False
    if len(content) + 1 + len(following.clean) > MAX_WITH_RESOLUTION:
        return False
    if heuristics.is_resolution(following.clean):
        return True
    fired = heuristics.classify(following.clean)
    return fired is not None and fired.name in ("skill.fixed-by", "skill.solution")


def _fallback_draft(sentences: list[Sentence]) -> _Draft | None:
    """One low-prior unit from the subject (or a merge's first body sentence), with the body
    sentence that gives the reason when there is one (else the first body sentence)."""
    if not sentences:
        return None
    head = sentences[0]
    if heuristics.vetoed(head.clean) or not is_substantive(head.clean, strict=True):
        return None
    reason = _reason_sentence(head, sentences[1:FALLBACK_LOOKAHEAD + 1])
    type_ = subjects.fallback_type(head.clean, has_reason=reason is not None)
    if type_ is None:
        return None
    content, context = head.clean, head.raw
    if reason is not None:
        content = f"{_end_sentence(content)} {reason.clean}"
        context = f"{_end_sentence(context)} {reason.raw}"
    return _Draft(type_, f"{type_}.subject-fallback", content, context, FALLBACK_PRIOR, True)


def _reason_sentence(head: Sentence, following: list[Sentence]) -> Sentence | None:
    usable = [
        s for s in following
        if len(head.clean) + 2 + len(s.clean) <= FALLBACK_MAX_CHARS
        and not heuristics.vetoed(s.clean) and is_substantive(s.clean)
        and not _same_text(s.clean, head.clean)
    ]
    for sentence in usable:
        if _REASON.search(sentence.clean):
            return sentence
    return usable[0] if usable and head.from_subject and following[0] is usable[0] else None


def _same_text(a: str, b: str) -> bool:
    a, b = normalise(a), normalise(b)
    return a.startswith(b) or b.startswith(a)


def short_title(content: str, limit: int = TITLE_CHARS) -> str:
    """The unit's title: its first sentence, cut at a word boundary to ``limit`` chars."""
    first = split_sentences(content)[0] if content else content
    first = first.rstrip(" .")
    if len(first) <= limit:
        return first
    cut = first[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:-")
    return f"{cut}…"


def _end_sentence(text: str) -> str:
    text = text.rstrip()
    return text if text[-1:] in ".!?:" else f"{text}."
