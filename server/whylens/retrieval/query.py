"""A question as typed → what search matches: scaffolding out, identifiers and error names in.

People ask "why does X happen", "how do I X", "what is the reason for X", "what happened to X".
The function words are stop words already (``index.analysis.STOP_WORDS``); what is left of the
scaffolding ("reason", "happened", "possible", "way", ...) is dropped here, because a question
word that no commit contains costs the gate coverage it should not. Nothing that looks like code
is ever dropped: identifiers (``Request.__init__``, ``req.param``, ``getURL``), error names,
versions, paths, upper-case words (``GET``, ``DENIED``) and numbers stay as typed.

A very long query (a pasted log) keeps its head: ``MAX_QUERY_CHARS``.

``asks_reason``: the question asks why ("why does ...", "what is the reason for ...", "how
come ...", "what was wrong with ...") or states a symptom ("X fails / hangs / crashes when ...",
"... returns undefined", "... doesn't work"): its answer is most often a sentence that gives a
cause or a motive (``snippets.REASON``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_QUERY_CHARS = 2_000
# Multi-word scaffolding, removed as phrases before the word filter.
_PHRASES = re.compile(
    r"\b(?:what(?:'s| is| was) the (?:reason|point|purpose|idea)(?: behind| for| of| that| why)?"
    r"|is there (?:a|any) (?:way|reason|option|setting)(?: to| for| why)?"
    r"|is it possible to|how come|any (?:idea|reason)s? why|what happened to"
    r"|i (?:want|need|would like|wanted|'d like) to|(?:can|could|should|would) (?:i|we|you)"
    r"|how (?:do|can|should|would) (?:i|we|you)|why (?:do|does|did|is|are|was|were|would)"
    r"|what (?:does|do|did)|does anyone know|do you know)\b", re.I)
# Single words that only frame a question (after the analyzer's stop words).
SCAFFOLD_WORDS = frozenset("""
    reason reasons happened happen happens happening way ways possible anymore explain explained
    explanation purpose idea someone anyone know want wanted need needed supposed actually
    really please thanks help question wonder wondering understand mean means meant
""".split())
_WORD = re.compile(r"\S+")
# The question asks for a reason or a cause ...
_WHY = re.compile(
    r"\b(?:why|how come|what(?:'s| is| was) the (?:reason|point|purpose|idea|motivation|rationale)"
    r"|(?:any|a|the) reasons? (?:for|why|behind)|what (?:was|is) wrong with|what went wrong"
    r"|what (?:causes|caused))\b", re.I)
# ... or states a symptom, whose answer is its cause ("how do I ..." asks for a way: not one).
_SYMPTOM = re.compile(
    r"\b(?:fail(?:s|ed|ing|ure)?|crash(?:es|ed|ing)?|hang(?:s|ing)?|hung|freez(?:e|es|ing)"
    r"|froze|stuck|break(?:s|ing)?|broke|broken|panic(?:s|ked)?|leak(?:s|ed|ing)?|chokes?"
    r"|blows?|corrupt(?:s|ed)?|wrong|bogus|never|nothing|stops?|stopped|loses?|lost|misses"
    r"|ignor(?:es|ed)|complains?|messed|stays|keeps|(?:does|do|did|is|are|was|were)(?:n't| not)"
    r"|isn't|aren't|won't|can't|cannot|doesn't|don't|didn't|no longer|anymore|slow(?:er|s)?"
    r"|crawls|invalid|refuses|undefined|throws|raised|instead of|rather than|\w*error|\w*exception"
    r")\b", re.I)
_HOW_TO = re.compile(r"^\W*(?:how (?:do|can|should|would) (?:i|we|you)|can (?:i|we)|is there a way)\b",
                     re.I)


@dataclass(frozen=True)
class QueryPlan:
    """``lexical``: the words BM25F and the gate see; ``meaning``: the text that is embedded;
    ``asks_reason``: a why- or symptom-question (see the module docstring)."""

    original: str
    lexical: str
    meaning: str
    asks_reason: bool = False


def asks_reason(question: str, symptoms: bool = True) -> bool:
    """Does the question ask why, or (``symptoms``) state a symptom whose cause answers it?"""
    if _WHY.search(question):
        return True
    return symptoms and not _HOW_TO.match(question) and bool(_SYMPTOM.search(question))


def looks_like_code(token: str) -> bool:
    """An identifier, error name, version, path, number or upper-case word: never dropped."""
    core = token.strip(".,;:!?\"'()[]{}")
    return bool(core) and (
        any(c in core for c in "._/\\:=<>#@$%")
        or any(c.isdigit() for c in core)
        or (core.isupper() and len(core) > 1)
        or re.search(r"[a-z][A-Z]", core) is not None
    )


def plan(query: str) -> QueryPlan:
    """The question with its scaffolding removed (see the module docstring)."""
    text = (query or "")[:MAX_QUERY_CHARS]
    stripped = _PHRASES.sub(" ", text)
    kept = [w for w in _WORD.findall(stripped)
            if looks_like_code(w) or w.strip(".,;:!?\"'()[]").lower() not in SCAFFOLD_WORDS]
    lexical = " ".join(kept)
    return QueryPlan(original=text, lexical=lexical, meaning=lexical or text,
                     asks_reason=asks_reason(text))
