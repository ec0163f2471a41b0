"""knowledge.prefilter: the patterns it says match are exactly those whose search finds
something, on sentences built to hit every cue, in any case, with non-ASCII letters."""

from __future__ import annotations

import itertools
import random
import re

from whylens.knowledge import features, heuristics
from whylens.knowledge.prefilter import Prefilter, needed

PHRASES = [
    "the connection fails when the proxy is unset", "because of a race condition", "caused by #12",
    "use a lock instead of a global flag", "we considered adding a retry", "Note: this must not be",
    "it now uses the pool", "Fix the leak by closing the socket", "TimeoutError is raised",
    "the root-cause was a stale fd", "defaults to True", "is equivalent to x", "should never raise",
    "I think so?", "thanks @bob", "lgtm, rebased", "this PR should fix it", "Before this change",
    "switched over to httpx", "regressed in 2.31", "no longer works", ", so the pool is reused",
    "A simpler fix would be to skip it", "fixed: the parser", "Workaround - pass stream=True",
    "if you want retries, set max_retries", "update the docs and CHANGELOG", "ci: bump tox",
    "segfaulted on exit", "requires Python 3.8", "is only valid when set", "depends on urllib3",
]


def _corpus() -> list[str]:
    rng = random.Random(7)
    out = [" ".join(pair) for pair in itertools.combinations(PHRASES[:12], 2)]
    for phrase in PHRASES:
        out += [phrase, phrase.upper(), phrase.swapcase(), phrase.capitalize() + ".",
                phrase.replace("a", "\u212a"), phrase.replace("s", "\u017f"), phrase + " caf\u00e9"]
        i = rng.randrange(len(phrase))
        out.append(phrase[:i] + rng.choice(PHRASES) + phrase[i:])
    return out


def test_matches_are_the_searches_that_succeed() -> None:
    patterns = [*(p for _, p in features._CUES), *heuristics.PREDICATE_PATTERNS,
                *(row.pattern for row in heuristics.HEURISTICS if row.pattern),
                *(regex for _, regex in heuristics.VETOES)]
    prefilter = Prefilter(patterns)
    hits = 0
    for sentence in _corpus():
        expected = {p for p in patterns if p.search(sentence)}
        assert prefilter.matches(sentence) == expected, sentence
        hits += len(expected)
    assert hits > 200  # the corpus does hit the cues


def test_the_cue_features_are_those_of_plain_searches() -> None:
    def plain(sentence: str) -> set[str]:
        feats: set[str] = set()
        search = lambda pattern: pattern.search(sentence)  # noqa: E731
        for row in heuristics.HEURISTICS:
            if row.fires(sentence, search):
                feats.add(f"rule:{row.name}")
        for name, pattern in features._CUES:
            if pattern.search(sentence):
                feats.add(f"cue:{name}")
        return feats

    for sentence in _corpus():
        feats: set[str] = set()
        features._cue_features(sentence, feats)
        assert {f for f in feats if f.startswith(("rule:", "cue:"))} - {
            "cue:named-failure", "cue:negative", "cue:action-verb", "cue:not-substantive"} \
            == plain(sentence), sentence


def test_predicates_ask_only_about_the_prefiltered_patterns() -> None:
    allowed = set(heuristics.PREDICATE_PATTERNS)

    def search(pattern: re.Pattern) -> bool:
        assert pattern in allowed, pattern.pattern
        return True

    for row in heuristics.HEURISTICS:
        if row.predicate is not None:
            row.predicate("TimeoutError raised when x should be set", search)


def test_needs_of_a_pattern() -> None:
    assert needed(re.compile(r"\b(?:due to|caused by)\b", re.I)) == [frozenset({"due to", "caused by"})]
    assert needed(re.compile(r"\w+ing\b")) == [frozenset({"ing"})]
    assert needed(re.compile(r"\bx?\b")) == []  # nothing a match must contain
    # a non-ASCII literal may match ASCII text case-insensitively ("\u017f" ~ "s", the Kelvin
    # sign ~ "k"): the answer is still the search's
    for pattern in (re.compile("\u017fave", re.I), re.compile("\u212aelvin", re.I)):
        for text in ("save", "SAVE", "kelvin", "KELVIN", "shave"):
            assert Prefilter([pattern]).matches(text) == ({pattern} if pattern.search(text) else set())
