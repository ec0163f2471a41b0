"""The heuristics table: which sentence is a Fact, a Skill or a Pattern, and how much to trust it.

Data first. Each row has a name (``type.what``), the unit type it yields, a prior weight (set by
hand, then ordered by the useful share of its units in the labels under bench/labels/: e.g.
pattern.fails-when 0.84 of 19, skill.recommend 0.33 of 12), and a test: a compiled regex
searched in the cleaned sentence, or a predicate. ``classify`` returns the firing
row with the highest prior; on a tie the earlier row wins, which is why Patterns come first (a
sentence that names a failure and its fix is most useful as a Pattern).

VETOES are sentences that are not knowledge whatever fires: questions, hedges, first-person
discussion, thanks, review chatter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from whylens.knowledge.prefilter import Prefilter

_I = re.IGNORECASE

# A failure with a name: TimeoutError, ConnectionResetError, ... or a well-known failure mode.
# The bare noun "timeout" is left out on purpose: in HTTP code it names a parameter far more
# often than a failure; "timed out" / "ReadTimeout" are failures.
NAMED_FAILURE = re.compile(
    r"\b(?:[A-Z]\w{0,60}(?:Error|Exception|Failure|Fault)|[A-Z]\w{0,40}Timeout"
    r"|(?i:dead-?locks?|deadlocked|race[- ]conditions?|infinite (?:loop|recursion)"
    r"|memory leaks?|(?:connection|socket|resource|file descriptor|fd) leaks?"
    r"|seg(?:mentation )?faults?|segfaulted|timed out|times out"
    r"|data loss|use[- ]after[- ]free|null pointer|double free)|stack overflow)\b"
)
# A word that says something went wrong (used to qualify "due to", "caused by" ...).
NEGATIVE = re.compile(
    r"\b(?:fail\w*|errors?|erroneous\w*|bugs?|buggy|broke\w*|break(?:s|ing)?|crash\w*|hang\w*"
    r"|wrong\w*|incorrect\w*|invalid\w*|unexpected\w*|problem\w*|issues?|corrupt\w*|lost"
    r"|loss|leak\w*|not|never|cannot|unable|missing|exceptions?|warnings?|slow\w*|spurious\w*"
    r"|mismatch\w*|regress\w*|deadlock\w*|ignored|dropped|truncated|duplicated)\b",
    _I,
)
_FAIL_VERB = (
    r"(?:occurs?|occurred|happens?|happened|fails?|failed|failing|breaks?|broke|broken"
    r"|hangs?|hung|hanging|crash(?:es|ed|ing)?|raises?|raised|raising|throws?|threw|thrown"
    r"|errors? out|errored|blows? up|leaks?|leaked|leaking|deadlocks?|times? out|timed out"
    r"|returns? (?:none|nothing|an? (?:empty|wrong|incorrect|invalid|bogus)\b)"
    r"|(?:is|are|was|were|get|gets|got|being) (?:lost|dropped|ignored|stripped|duplicated"
    r"|truncated|corrupted|overwritten|mangled|leaked|swallowed|silently \w+))"
)
_CONDITION = r"(?:when|whenever|if|unless|on|with|during|after|because|under|while|for)"


# ``search(pattern)``: is the pattern found in the sentence at hand (``features`` passes the
# membership test of the patterns its prefilter found there; the answer is the same).
Search = Callable[[re.Pattern], object]


@dataclass(frozen=True)
class Heuristic:
    name: str
    type: str  # fact | skill | pattern
    prior: float
    pattern: re.Pattern | None = None
    predicate: Callable[[str, Search], bool] | None = None

    def fires(self, sentence: str, search: Search | None = None) -> bool:
        search = search or (lambda pattern: pattern.search(sentence))
        if self.pattern is not None and not search(self.pattern):
            return False
        return self.predicate is None or self.predicate(sentence, search)


def _failure_with_cue(sentence: str, search: Search) -> bool:
    """A named failure that something raises, causes or hits (not just a name in a list)."""
    return bool(search(NAMED_FAILURE) and _FAILURE_CUE.search(sentence))


_FAILURE_CUE = re.compile(
    r"\b(?:rais\w+|throw\w*|threw|got|gets?|getting|see|saw|seen|hit|hits|cause[sd]?|causing"
    r"|results? in|resulted in|leads? to|led to|trigger\w*|when|whenever|if|on|because|instead"
    r"|occur\w*|due to|with|from|during|after|while|fail\w*|prevent\w*|avoid\w*|fix\w*)\b",
    _I,
)


def _went_wrong(sentence: str, search: Search) -> bool:
    """The sentence also says something went wrong (qualifies "due to", "leads to" ...)."""
    return bool(search(NEGATIVE) or search(NAMED_FAILURE))


# "This PR should fix it", "tests should pass now": the author's hope, not a rule of the code.
_SHOULD_META = re.compile(
    r"\b(?:this|the|that) (?:pr|pull request|patch|commit|change|mr|fix)\b[^.]{0,30}\bshould"
    r"|\btests? should (?:pass|now|be green)|\bshould (?:now|hopefully|probably)\b"
    r"|\bshould be (?:fixed|good|fine|ok|okay|ready|done|merged)\b", _I)

HEURISTICS: tuple[Heuristic, ...] = (
    # --- Pattern: a failure mode ------------------------------------------------------------
    # "X fails when ...", "raises KeyError if HOME is unset", "hangs on ...", "is lost after ..."
    Heuristic("pattern.fails-when", "pattern", 0.70,
              re.compile(rf"\b{_FAIL_VERB}\b(?:[^.;]{{0,60}}?\s)?{_CONDITION}\b", _I)),
    # a named failure that is raised / hit / caused: "... can raise a KeyError when ..."
    Heuristic("pattern.named-failure", "pattern", 0.60, None, _failure_with_cue),
    # regressions: "regressed in 2.31", "broken since v1.2", "caused by #123", "no longer works"
    Heuristic("pattern.regression", "pattern", 0.60, re.compile(
        r"\b(?:regress(?:ed|ion|ions)\b|broke\b|broken (?:by|in|since)\b|introduced (?:by|in)\b"
        r"|since (?:version |v)?\d+(?:\.\d+)+\b.{0,40}\b(?:fail|break|broke|error|raise)"
        r"|(?:no longer|stopped|doesn't|does not|didn't|did not|won't|will not) work(?:s|ing|ed)?\b"
        r"|not working\b)", _I)),
    # a cause of something going wrong: "... due to the MRO of JSONDecodeError", "leads to ..."
    Heuristic("pattern.cause", "pattern", 0.50, re.compile(
        r"\b(?:due to|because of|caused by|as a result of|results? in|resulted in|leads? to"
        r"|led to|ends? up)\b", _I), _went_wrong),
    # --- Skill: an actionable fix -----------------------------------------------------------
    # "fixed by passing stream=True", "avoid the leak by closing ...", "works around X by ..."
    Heuristic("skill.fixed-by", "skill", 0.70, re.compile(
        r"\b(?:fix(?:ed|es)?|solved?|solves|resolved?|resolves|addressed|avoid(?:ed|s)?"
        r"|prevent(?:ed|s)?|work(?:s|ed)? around|handled?|mitigated?)\b"
        r"(?:[^.;]{0,80}?\s)?by (?:\w+ing\b|not\b|only\b|always\b|explicitly\b)", _I)),
    # "Workaround: ...", "the fix is to ...", "a simple solution is ..."
    Heuristic("skill.solution", "skill", 0.70, re.compile(
        r"^(?:solution|workaround|work-around|remedy|resolution|mitigation)\s*[:-]"
        r"|\b(?:the|a|one|possible|simple|only|proper|correct|right|better) (?:fix|solution"
        r"|workaround|remedy|approach) (?:is|was|would be|here is)\b"
        r"|\b(?:as a|a|the) workaround\b|\bwork around (?:it|this|that|the)\b", _I)),
    # "use X instead of Y", "we recommend ...", "prefer X over Y", "deprecated in favour of X"
    Heuristic("skill.recommend", "skill", 0.45, re.compile(
        r"\b(?:recommend(?:s|ed|ation)?|best practice|(?:is|are) preferred|prefer(?:s|red)?"
        r" (?:to\b|(?:\S+ ){1,3}(?:over|to|instead)\b)|use (?:\S+ ){1,5}(?:instead|rather than)\b"
        r"|instead of (?:\S+ ){1,4}use\b|in favou?r of\b)", _I)),
    # "to do X, set/pass/run Y", "if you need X, call Y"
    Heuristic("skill.instructional", "skill", 0.55, re.compile(
        r"^(?:to|in order to|if you (?:want|need|wish)(?: to)?|when you (?:want|need)(?: to)?)\s"
        r"[^,]{3,100},\s(?:you (?:can|should|must|need to|have to)\s|just\s|simply\s)?"
        r"(?:set|pass|run|use|call|add|install|configure|enable|disable|specify|provide|import"
        r"|wrap|mount|create|override|subclass|register|export|close|catch)\b", _I)),
    # "switch to X", "replace X with Y", "migrate to X"; "you can pass/set X to Y"
    Heuristic("skill.switch", "skill", 0.35, re.compile(
        r"\b(?:switch(?:ed|es|ing)? (?:over )?to|migrat(?:e|ed|es|ing) (?:\S+ )?to"
        r"|replac(?:e|ed|es|ing) (?:\S+ ){1,4}with|(?:you|users?|one|callers?) (?:can|should"
        r"|must|need to|have to|may) (?:pass|set|use|call) (?:\S+ ){1,3}(?:to|with|instead))\b",
        _I)),
    # --- Fact: a constraint ---------------------------------------------------------------
    # "Note: ...", "Important: ...", "Warning: ..."
    Heuristic("fact.annotation", "fact", 0.60, re.compile(
        r"^(?:note|nb|n\.b\.|important|warning|caution|beware|heads[- ]up|caveat)\s*[:!-]", _I)),
    # "must", "must not", "cannot", "may not", "is not allowed", "shall not"
    Heuristic("fact.modal", "fact", 0.55, re.compile(
        r"\b(?:must(?:n't| not)?|shall not|cannot|can ?not|can't|may not"
        r"|(?:is|are) not (?:allowed|permitted|supported|safe))\b", _I)),
    # "always" / "never": "certifi is always used", "that exception was never raised"
    Heuristic("fact.always-never", "fact", 0.50,
              re.compile(r"\b(?:always|never)\b", _I)),
    # "requires", "is only valid when", "only works with", "depends on", "has to be"
    Heuristic("fact.requires", "fact", 0.50, re.compile(
        r"\b(?:requires?|required (?:to|for|by|when)|is required|are required|depends on"
        r"|has to be|have to be|needs to be|need to be"
        r"|(?:is|are) only (?:valid|supported|possible|allowed|safe|used|meaningful|available)"
        r"|only (?:works?|applies|valid|supported|allowed|possible|happens|matters))\b", _I)),
    # defaults and precedence: "defaults to", "takes precedence over", "is ignored unless"
    Heuristic("fact.default", "fact", 0.45, re.compile(
        r"\b(?:defaults? to|by default|takes? precedence|has no effect"
        r"|(?:is|are) ignored (?:when|if|unless|for|by))\b", _I)),
    # equivalences: "X is equivalent to Y", "is an alias for", "means that", "implies that"
    Heuristic("fact.equivalence", "fact", 0.45, re.compile(
        r"\b(?:is equivalent to|are equivalent|is the same as|are the same as|is identical to"
        r"|is an alias (?:for|of)|is shorthand for|(?:means|implies) that)\b", _I)),
    # a rule with "should": "a built wheel should always be universal", "X should not ..."
    Heuristic("fact.should", "fact", 0.40, re.compile(
        r"\b(?:should(?:n't)?|ought to)\s(?:not|never|always|only|be|use|have|return|raise"
        r"|contain|match|accept|work|remain|stay|point|include|respect|honou?r|follow)\b", _I),
        lambda sentence, search: not search(_SHOULD_META)),
)

# The regexes the predicates above ask ``search`` about (a prefilter of the rules' searches
# must cover them); _FAILURE_CUE, asked only after NAMED_FAILURE matched, is searched itself.
PREDICATE_PATTERNS = (NAMED_FAILURE, NEGATIVE, _SHOULD_META)

VETOES: tuple[tuple[str, re.Pattern], ...] = (
    ("question", re.compile(r"\?\s*[\"')]*\s*$")),
    ("hedge", re.compile(
        r"\b(?:i think|i guess|i believe|i suppose|i'm|i am|i was|i've|i'd|i'll|i wonder"
        r"|not sure|maybe|perhaps|imo|imho|afaik|afaict|hopefully|it seems|seems like|apparently"
        r"|(?:would|may|might|could) be (?:nice|good|great|better|worth)"
        r"|(?:we|i) (?:might|may) (?:add|want|consider|also|later)|first pass|not ready for"
        r"|work in progress)\b", _I)),
    ("first-person", re.compile(r"(?:^|[.!;]\s)I\s")),
    ("thanks", re.compile(r"\b(?:thanks|thank you|kudos|cheers|props to)\b", _I)),
    ("review-chatter", re.compile(
        r"\b(?:lgtm|ptal|rebased?|squash(?:ed)?|(?:address|addressing|addressed)"
        r" (?:review|feedback|comments?)|review comments?|as requested|per review)\b", _I)),
)

# The next sentence carries the resolution of a Pattern: absorbed into it.
RESOLUTION = re.compile(
    r"^(?:fix(?:ed)?|solution|workaround|work-around|remedy)\s*[:-]"
    r"|^(?:this is |it is |it's |was |this was |that is )?(?:fixed|solved|resolved|avoided"
    r"|prevented|worked around|addressed)\b"
    r"|^(?:the|a|one) (?:fix|solution|workaround|remedy) (?:is|was)\b"
    r"|^(?:this|the) (?:commit|change|patch|pr|pull request|fix) (?:fixes|solves|resolves"
    r"|avoids|prevents|works around|addresses|makes|ensures|changes|adds|uses|replaces"
    r"|handles|catches|closes)\b"
    r"|^(?:to fix|to avoid|to prevent|to work around) (?:this|it|that|the)\b"
    r"|^(?:now|instead),? (?:we|it|the|requests|flask|this)\b"
    r"|^(?:we|this) now\b",
    _I,
)


_VETO_FILTER = Prefilter(regex for _, regex in VETOES)


@lru_cache(maxsize=4_096)
def vetoed(sentence: str) -> str | None:
    """The name of the veto that rejects this sentence, or None (cached: extraction, the
    classifier's features and the records each ask it of the same sentence)."""
    found = _VETO_FILTER.matches(sentence)
    return next((name for name, regex in VETOES if regex in found), None)


def classify(sentence: str) -> Heuristic | None:
    """The best heuristic firing on a cleaned sentence (highest prior, table order on ties)."""
    if vetoed(sentence):
        return None
    best: Heuristic | None = None
    for heuristic in HEURISTICS:
        if (best is None or heuristic.prior > best.prior) and heuristic.fires(sentence):
            best = heuristic
    return best


def is_resolution(sentence: str) -> bool:
    return bool(RESOLUTION.search(sentence))
