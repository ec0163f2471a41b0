"""A literal prefilter for many regexes searched in the same sentence (the sentence cues).

``features`` searches ~40 cue regexes in every sentence and most of them fail. Each regex's
parse tree says what any match must contain (``needed``: up to three needs, each a set of
literals one of which is in the match: the strings a run of literal items can spell, or one of
a group's alternatives' needs); one scan of the lower-cased sentence (``_scanner``, a regex of
every such literal) finds the literals present, and a regex with a need none of whose literals
is there cannot match, so it is not searched. The answer is the regex's own: a prefilter only
skips searches that would fail.

Exact for ASCII text (there ``IGNORECASE`` matching is lower-case comparison); any other
sentence runs every search. A regex whose needs cannot be read from its tree (or are shorter
than ``MIN_LITERAL``, so present nearly everywhere) is always searched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from re import _constants as _c  # type: ignore[attr-defined]
from re import _parser as _p  # type: ignore[attr-defined]

MIN_LITERAL = 2  # a need shorter than this is in nearly every sentence: not worth a check
MAX_STRINGS = 256  # an exact set of strings larger than this is not spelt out
MAX_NEEDS = 3  # needs kept per pattern (the longest literals)
_ZERO_WIDTH = (_c.AT, _c.ASSERT, _c.ASSERT_NOT)

Need = frozenset  # of lower-case literals: a match contains one of them


def _exact(op, arg) -> set[str] | None:
    """Every string one parsed item can consume (lower case; a zero-width item consumes ""),
    or None when there are too many or they are not literal."""
    if op is _c.LITERAL:
        return {chr(arg).lower()}
    if op in _ZERO_WIDTH:
        return {""}  # it only restricts where a match may be: what is consumed is the same
    if op is _c.IN and all(o is _c.LITERAL for o, _ in arg):
        return {chr(a).lower() for _, a in arg}
    if op is _c.SUBPATTERN:
        return _exact_seq(arg[-1])
    if op is _c.BRANCH:
        out: set[str] = set()
        for alt in arg[1]:
            strings = _exact_seq(alt)
            if strings is None or len(out) + len(strings) > MAX_STRINGS:
                return None
            out |= strings
        return out
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and arg[0] == 0 and arg[1] == 1:
        body = _exact_seq(arg[2])
        return None if body is None else body | {""}
    return None


def _exact_seq(items) -> set[str] | None:
    out = {""}
    for op, arg in items:
        strings = _exact(op, arg)
        if strings is None or len(out) * len(strings) > MAX_STRINGS:
            return None
        out = {a + b for a in out for b in strings}
    return out


def _needs(items) -> list[Need]:
    """Needs all of which any match of the parsed sequence meets (each: one literal of it)."""
    found: list[Need] = []
    stretch: set[str] = {""}  # the strings the exact items since the last other one consume

    def close() -> None:
        nonlocal stretch
        if min(len(s) for s in stretch) >= MIN_LITERAL:
            found.append(frozenset(stretch))
        stretch = {""}

    for op, arg in items:
        strings = _exact(op, arg)
        if strings is not None and len(stretch) * len(strings) <= MAX_STRINGS:
            stretch = {a + b for a in stretch for b in strings}
            continue
        close()
        if strings is not None:  # too many to join to the stretch: a stretch of its own
            stretch = strings
            continue
        if op is _c.SUBPATTERN:
            found.extend(_needs(arg[-1]))
        elif op is _c.ATOMIC_GROUP:
            found.extend(_needs(arg))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and arg[0] >= 1:
            found.extend(_needs(arg[2]))
        elif op is _c.BRANCH:  # one of the alternatives' (best) needs
            best = [max(_needs(alt), key=_score, default=None) for alt in arg[1]]
            if all(best):
                found.append(frozenset().union(*best))  # type: ignore[arg-type]
    close()
    return found


def _score(literals: frozenset[str]) -> tuple[int, int]:
    """Longer literals first (a space around a word adds little), then fewer of them."""
    return min(len(s.strip()) for s in literals), -len(literals)


def needed(pattern: re.Pattern) -> list[Need]:
    """What any match of ``pattern`` contains (each need: one of its literals, lower case);
    [] when nothing is known."""
    needs = [n for n in _needs(_p.parse(pattern.pattern, pattern.flags))
             if min(len(s) for s in n) >= MIN_LITERAL and all(s.isascii() for s in n)]
    # (a non-ASCII literal may match ASCII text case-insensitively: "K" the Kelvin sign)
    return sorted(set(needs), key=_score, reverse=True)[:MAX_NEEDS]


class Prefilter:
    """``Prefilter(patterns).matches(sentence)``: the patterns that match the sentence (those
    whose ``search`` finds something), with only the searches that may succeed run."""

    def __init__(self, patterns: Iterable[re.Pattern]) -> None:
        self._patterns = tuple(dict.fromkeys(patterns))
        needs = [(p, needed(p)) for p in self._patterns]
        literals = {s for _, pattern_needs in needs for need in pattern_needs for s in need}
        # The scan finds the literals of a prefix-free set (at most one begins at any position):
        # those with no other literal as a prefix; a need is met by its literals' shortest
        # prefixes in the set (a literal's shortest prefix among the literals is in it).
        shortest = {s: next(s[:k] for k in range(1, len(s) + 1) if s[:k] in literals)
                    for s in literals}
        minimal = set(shortest.values())
        self._meets: dict[str, int] = dict.fromkeys(minimal, 0)  # literal -> needs it meets
        self._requires: list[tuple[re.Pattern, int]] = []  # pattern -> needs it has (bits)
        bit = 1
        for pattern, pattern_needs in needs:
            required = 0
            for need in pattern_needs:
                for s in need:
                    self._meets[shortest[s]] |= bit
                required |= bit
                bit <<= 1
            self._requires.append((pattern, required))
        self._scan = _scanner(minimal)

    def matches(self, sentence: str) -> set[re.Pattern]:
        if not sentence.isascii():
            return {p for p in self._patterns if p.search(sentence)}
        met = 0
        meets = self._meets
        for literal in self._scan.findall(sentence.lower()):
            met |= meets[literal]
        return {p for p, required in self._requires
                if met & required == required and p.search(sentence)}


def _scanner(literals: set[str]) -> re.Pattern:
    """A regex whose ``findall`` lists every literal of the (prefix-free) set found, once per
    place it starts: a lookahead at every position over a trie of the literals."""
    return re.compile(f"(?=({_trie(sorted(literals))}))" if literals else r"(?!)", re.DOTALL)


def _trie(literals: list[str]) -> str:
    heads: dict[str, list[str]] = {}
    for s in literals:
        heads.setdefault(s[0], []).append(s[1:])
    parts = []
    for head, tails in heads.items():
        if tails == [""]:
            parts.append(re.escape(head))
        else:
            parts.append(re.escape(head) + _group(tails))
    return "|".join(parts)


def _group(tails: list[str]) -> str:
    if len(tails) == 1:
        return re.escape(tails[0])
    return f"(?:{_trie(tails)})"
