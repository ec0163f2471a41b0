"""Record fields chosen by the sentence classifier (``knowledge.classify``, role head).

- ``problem``: a sentence of the thread that states the problem, read so by the classifier
  (``PROBLEM_MIN``), and neither a note on the tests nor a sentence about what was done
  ("Avoid duplicating ...", "I also fixed ...", "X now returns ..."). Empty when the history
  does not say: never the title restated ("Fix hang when ..." → "Hang when ..." is the title).
- ``decision``: sentences the classifier reads as what was chosen, the title among them when it
  is one ("Add a timeout to Session.send"); never a note on the tests ("Add tests for X").
- ``cause``: the classifier's causes, sentences that only a cause opens with ("the root cause
  is", "caused by"), and cue-phrase causes ("because", "due to") it reads as what went wrong;
  not a sentence about what was done (its "because" is the reason for the decision).
- ``rejected``: only an alternative that was weighed and not taken ("we considered", "another
  approach would", "didn't work"); "instead of" or "as opposed to" alone names what a decision
  replaced.

A sentence the classifier reads more as no role at all than as any one role is no field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from whylens.knowledge.classify import SentenceModel
from whylens.knowledge.cues import (ACTION_VERBS, BACKGROUND_OPENING, BEFORE, CAUSE, CHOICE_MADE,
                                   DECISION, FAILURE_TITLE, NOT_A_CHOICE, REJECTED,
                                   STRONG_CAUSE)
from whylens.knowledge.features import CommitKind, sentence_features
from whylens.knowledge.heuristics import vetoed
from whylens.knowledge.subjects import housekeeping_text, test_note
from whylens.models import Claim

MAX_CLAIMS = 3
# The least probability a claim needs for a field, and its role must be the most probable one
# but none. Set from the cross-validated role probabilities on the tune repositories
# (bench/train_sentences.py): precision of a single sentence at these points is 0.64-0.68 for
# problem and decision; a record takes the best sentences of a whole thread, which does better.
# A problem needs 0.40 (was 0.30): on 122 labelled fields of tune records, every problem the
# classifier read at 0.30-0.39 was something else (a caveat, a benefit, a fragment).
PROBLEM_MIN = 0.40
DECISION_MIN = 0.40
ACTION_DECISION_MIN = 0.20  # a sentence that opens with an action verb ("Use X", "Drop Y")
CAUSE_MIN = 0.35
# With a cue phrase ("because", "due to") a cause needs less, when the classifier reads the
# sentence more as what went wrong (cause + problem) than as what was done (decision).
CAUSE_CUE_MIN = 0.15
MAX_DECISIONS = 2
SUBJECT_WORDS = 12
Fields4 = tuple[Claim | None, tuple[Claim, ...], tuple[Claim, ...], tuple[Claim, ...]]


def distil(title: Claim | None, claims: Sequence[Claim], kind: CommitKind,
           model: SentenceModel, subjects: Iterable[str] = ()) -> Fields4:
    """(problem, cause, decision, rejected) of a thread; ``title`` is the title's claim (in the
    summary unit), ``claims`` every other candidate sentence, in thread order; ``subjects`` the
    subjects of its commits (with squash bullets and the like, never its problem or decision:
    they name a step, which the history already lists)."""
    steps = {_norm(s) for s in subjects}
    scored: list[tuple[Claim, bool, dict[str, float]]] = []
    knowledge: dict[int, float] = {}  # id(claim) -> P(it is knowledge at all)
    # chatter, hedges and housekeeping are no field of a record (a first-person sentence may be
    # an alternative someone tried: "I tried X, but ...")
    claims = [c for c in claims if vetoed(c.text) in (None, "first-person")
              and not housekeeping_text(c.text)]
    ordered = ([title] if title else []) + [c for c in claims if c != title]
    for index, claim in enumerate(ordered):
        is_title = title is not None and claim is title
        prediction = model.predict(sentence_features(
            claim.text, from_subject=is_title, index=index, kind=kind))
        scored.append((claim, is_title, prediction.role_probs))
        knowledge[id(claim)] = 1.0 - prediction.unit_probs.get("none", 0.0)

    def best(probs: dict[str, float]) -> str:
        top = max((p, c) for c, p in probs.items() if c != "none")
        if probs.get("none", 0.0) >= top[0]:  # read as no field at all
            return "none"
        return top[1]

    rejected = _unique(c for c, is_title, _ in scored if not is_title and _weighed_not_taken(c.text))
    problems = [(p["problem"], c) for c, is_title, p in scored if not is_title
                and c not in rejected and best(p) == "problem" and p["problem"] >= PROBLEM_MIN
                and not _step(c.text, steps) and not test_note(c.text)
                and not _says_what_was_done(c.text) and not _SUBJECTLESS.match(c.text)]
    problem = max(problems, key=lambda pc: pc[0])[1] if problems else None
    cause = _unique(c for c, is_title, p in scored if not is_title and c is not problem
                    and c not in rejected
                    and (STRONG_CAUSE.search(c.text)
                         or not _says_what_was_done(c.text) and (
                             (best(p) == "cause" and p["cause"] >= CAUSE_MIN)
                             or (CAUSE.search(c.text) and p["cause"] >= CAUSE_CUE_MIN
                                 and p["cause"] + p["problem"] > p["decision"]))))
    # a subject-like line (a commit subject, a squash bullet) is the decision only of work whose
    # title does not already say what was done ("Fix pool exhaustion" ← "Guard the pool")
    chosen = [(is_title, p["decision"], c) for c, is_title, p in scored if c is not problem
              and c not in rejected and c not in cause and best(p) == "decision"
              and (is_title or not _step(c.text, steps))
              and p["decision"] >= (ACTION_DECISION_MIN if _opens_with_action(c.text)
                                    else DECISION_MIN)
              and not BEFORE.match(c.text) and not test_note(c.text)]
    # the title when it is the decision, and the one sentence most surely the decision besides
    ranked = sorted(chosen, key=lambda t: (not t[0], -t[1]))
    titled = [c for is_title, _, c in ranked if is_title]
    # the best of the rest, unless it makes no choice (then the thread names none besides: the
    # next one down is rarer still a decision); a title that states the failure holds its place
    # the same way
    others = [c for is_title, _, c in ranked if not is_title][:MAX_DECISIONS - len(titled)]
    decision = _unique([c for c in titled if not _failure_title(c.text)]
                       + [c for c in others if not _no_choice(c.text)])

    def weighed(claim: Claim) -> Claim:  # a card's confidence starts from it (knowledge.confidence)
        origin = title if title is not None and claim.unit == title.unit else claim  # or cut from it
        return replace(claim, weight=round(knowledge.get(id(origin), claim.weight), 3))

    return (weighed(problem) if problem else None, tuple(map(weighed, cause)),
            tuple(map(weighed, decision)), tuple(map(weighed, rejected)))


# "X as opposed to Y" contrasts what was chosen with what it replaced, like "instead of" ("Make
# attr::Field take a attr::Default as opposed to the entire parent attr::Container"): on tune
# labels a rejected alternative 1 time in 3 (a card's Rejected shown 3 times as noise).
_AS_OPPOSED = re.compile(r"\bas opposed to\b", re.IGNORECASE)


def _weighed_not_taken(text: str) -> bool:
    """A rejected alternative's cue, not counting "as opposed to"."""
    return bool(REJECTED.search(_AS_OPPOSED.sub(" ", text)))


def _failure_title(text: str) -> bool:
    """A title that only states what fails: the work's problem, not its decision."""
    return bool(FAILURE_TITLE.search(text)) and not _opens_with_action(text) \
        and not DECISION.search(text)


def _no_choice(text: str) -> bool:
    """A guess, the background, what does not work, the state before, a verdict: no choice
    (``cues.NOT_A_CHOICE``), unless it also says what the change does; a sentence that opens on
    the background (``cues.BACKGROUND_OPENING``) says so only after its opening clause."""
    opening = BACKGROUND_OPENING.match(text)
    if opening:  # the clause ends at the first comma after the connective's own ("So, if ...,")
        start = len(text) - len(text[opening.end():].lstrip(" ,"))
        clause_end = _CLAUSE_END.search(text, start)
        return not (clause_end and CHOICE_MADE.search(text, clause_end.end()))
    return bool(NOT_A_CHOICE.search(text)) and not CHOICE_MADE.search(text)


_CLAUSE_END = re.compile(r"[,;:]|\s[-—–]\s")


def _step(text: str, subjects: set[str]) -> bool:
    """A commit subject, or a line like one (a squash bullet: no full stop, a few words): a
    step of the work, already in the history; a problem or decision is a sentence that says
    more."""
    if _norm(text) in subjects:
        return True
    return not text.rstrip().endswith((".", "!", ":")) and len(text.split()) <= SUBJECT_WORDS


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


_DID = re.compile(r"^(?:i|we)\s+(?:also\s+|then\s+|just\s+)?(?:\w+ed|made|wrote|rewrote|took)\b"
                  r"|^\W*(?:a\s+)?(?:small|minor|quick|trivial)\s+(?:fix|change|cleanup|refactor)\b"
                  r"|^\W*(?:this|the)\s+(?:commit|change|patch|pr|pull\s+request|fix|approach|solution"
                  r"|implementation)\b", re.I)


# A sentence whose subject was cut off ("doesn't work with redirects, we try ..."): a fragment of
# the one before, never a record's problem on its own (lower case only: "Is" opens a question).
_SUBJECTLESS = re.compile(r"^(?:doesn'?t|does\s+not|don'?t|do\s+not|isn'?t|is\s+not|aren'?t|fails?"
                          r"|breaks?|can'?t|cannot|won'?t|will\s+not)\b")


def _says_what_was_done(text: str) -> bool:
    """A sentence about the change, not the problem: it opens with an action ("Avoid
    duplicating ...", "I also fixed ...") or with the change itself ("The fix, designed by ...,
    uses ..."), or carries a decision cue ("now returns", "this PR")."""
    if BEFORE.match(text):  # "Prior to this commit, X failed": the problem it fixed
        return False
    return _opens_with_action(text) or bool(_DID.match(text) or DECISION.search(text))


def _opens_with_action(text: str) -> bool:
    words = re.findall(r"[A-Za-z']+", text[:60])
    return bool(words) and words[0].lower() in ACTION_VERBS


def _unique(claims) -> tuple[Claim, ...]:
    out: list[Claim] = []
    for claim in claims:
        if claim.text.lower() not in {c.text.lower() for c in out}:
            out.append(claim)
    return tuple(out[:MAX_CLAIMS])
