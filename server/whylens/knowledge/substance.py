"""The substantive filter: does a cleaned sentence say enough to stand on its own?"""

from __future__ import annotations

import re
from functools import lru_cache

from whylens.knowledge.heuristics import NAMED_FAILURE

MIN_CHARS = 12  # shorter says nothing on its own ("Fix KeyError" is the shortest that passes)
MAX_CHARS = 400  # longer is a run-on list or pasted output, not a sentence
MIN_CONTENT_WORDS = 3

# Issue/PR references, shas (with at least one digit, so "defaced" is a word) and URLs.
REF = re.compile(
    r"(?:[\w.-]+/[\w.-]+)?#\d+|\bgh-\d+\b|\b(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b|https?://\S+", re.I)
# A sentence cut off where a code span, link or list used to continue it: "broken due to".
_DANGLING = re.compile(
    r"\b(?:to|by|with|of|in|on|for|from|the|a|an|and|or|as|via|like|than|e\.g|i\.e|such as"
    r"|because|see|is|are|following)\W*$|[:,(]\s*$", re.I)
# ... or whose start was cut: a lowercase "but ..." continues a sentence that is gone.
_CONTINUATION = re.compile(r"^(?:but|and|or|so|which|then|also|because|whereas)\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z'_-]+")
STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers him his how if in into is it its itself just
me more most my no nor not now of off on once only or other our out over own same she so
some such than that the their them then there these they this those through to too under
until up very was we were what when where which while who whom why will with would you your
yet via per etc get got one two lot lots thing things stuff bit issue issues pr see ref refs
closes close fixes fix fixed commit commits patch change changes changed update updated
updates add added adds remove removed removes minor small
""".split())


def content_words(text: str) -> list[str]:
    """Words that carry meaning: refs, shas, URLs and stop words removed."""
    words = _WORD.findall(REF.sub(" ", text))
    return [w for w in words if len(w) >= 3 and w.lower() not in STOPWORDS]


@lru_cache(maxsize=4_096)
def is_substantive(text: str, strict: bool = False) -> bool:
    """Long enough, not cut off, not dominated by issue/PR refs, at least three content words
    (a named failure such as TimeoutError is substantive on its own, unless ``strict``).
    Cached: extraction and the classifier's features ask it of the same sentence."""
    if len(text) < MIN_CHARS or len(text) > MAX_CHARS:
        return False
    if _DANGLING.search(text) or _CONTINUATION.match(text):
        return False
    words = content_words(text)
    refs = len(REF.findall(text))
    if refs and refs >= len(words):
        return False
    if len(words) >= MIN_CONTENT_WORDS:
        return True
    return not strict and bool(NAMED_FAILURE.search(text))
