"""A sentence that only tells what a change did: no reason, rule, condition or failure.

"Document that 'params' can also be a list of tuples", "Developers can now extract the query
templates and regexps from a router ...": true, but it says what the commit did,
which is what a symbol's history is. A card shows it on that commit's history line
(``retrieval.why``), not as a constraint or pitfall; the explanatory items stay in their
sections.

Chosen on tune labels only (``bench/labels``): of the 1,000 tune body sentences with a unit
label, 124 match, 123 of them labelled no knowledge; of the 163 distinct labelled tune card
units, 5 match (4 marginal, 1 useful).
"""

from __future__ import annotations

import re

_CHANGE_VERBS = (
    r"adds?|added|adding|allows?|allowed|modif(?:y|ies|ied)|documents?|documented|introduc\w+"
    r"|makes?|made|supports?|uses?|used|changes?|changed|removes?|removed|renames?|renamed|moves?"
    r"|moved|replaces?|replaced|updates?|updated|refactor\w*|implements?|implemented|switch\w*"
    r"|exposes?|exposed|improves?|improved|simplif\w+|optimi[sz]\w+|extends?|extended|enables?"
    r"|enabled|defaults?|returns?|accepts?|takes?|converts?")
# It speaks of a change: "now", an opening change verb ("Adds ...", "Document that ..."), a
# passive change ("is modified to", "was switched"), "this commit / PR / change".
CHANGE = re.compile(
    rf"\bnow\b|^\W*(?:this\s+(?:pr|patch|commit|change)\s+)?(?:{_CHANGE_VERBS})\b"
    r"|\b(?:is|was|were|are|has\s+been|have\s+been)\s+(?:now\s+)?(?:modified|changed|switched"
    r"|added|updated|renamed|moved|replaced|introduced|removed)\b"
    r"|\bthis\s+(?:pr|patch|commit|change)\b", re.IGNORECASE)

_REASON = (
    r"because|since|so\s+that|so\s+as\s+to|in\s+order\s+to|to\s+(?:avoid|prevent|ensure|allow"
    r"|make\s+sure|keep|support|fix)|otherwise|due\s+to|as\s+a\s+result|which\s+(?:means|meant"
    r"|caused|causes|would\s+(?:cause|break|mean|make|fail|lead))|hence|thus|therefore|the\s+reason|why|without\s+(?:this|it|that)"
    r"|or\s+else|else|for\s+(?:compatibility|security|performance)|ensur\w+|needed|necessary"
    r"|required?s?|requiring|instead\s+of|rather\s+than")
_RULE = (
    r"must|cannot|can'?t|can\s+not|should(?:n'?t|\s+not)?|never|always|only|need(?:s|ed)?\s+to"
    r"|has\s+to|have\s+to|not\s+(?:allowed|supported|possible|recommended|valid)"
    r"|does(?:n'?t|\s+not)\s+support|may\s+not|unless|if|when|whenever|but|depends?\s+on"
    r"|expects?|rfc\s*\d*|spec(?:ification)?|standard")
_FAILURE = (
    r"fail\w*|errors?|erroneous\w*|rais\w+|throws?|crash\w*|hang\w*|break\w*|broke|broken|leak\w*"
    r"|exceptions?|panic\w*|segfault\w*|overflow\w*|wrong\w*|incorrect\w*|invalid\w*|bugs?"
    r"|regression|deadlock\w*|infinite|race|issues?|problems?|not\s+work\w*|doesn'?t\s+work"
    r"|did(?:n'?t|\s+not)\s+work|unbound|chokes?|mismatch\w*|undefined|null|nil|none|missing|lost"
    r"|ignored|corrupt\w*|slow\w*|allocations?|timed\s+out|times\s+out|vulnerab\w*|unsafe|insecure|previously"
    r"|fix\w*")
# A reason alone ("because", "so that", "to avoid", "instead of", ...): ``confidence`` hides a
# change told like a commit subject only when it gives none.
GIVES_REASON = re.compile(rf"\b(?:{_REASON})\b", re.IGNORECASE)
# A reason, a rule or condition, or a failure: the sentence explains something.
EXPLAINS = re.compile(rf"\b(?:{_REASON}|{_RULE}|{_FAILURE})\b|,\s*to\s+\w+", re.IGNORECASE)


def only_what_changed(text: str) -> bool:
    """The sentence tells what a change did and explains nothing (see the module docstring)."""
    return bool(CHANGE.search(text)) and not EXPLAINS.search(text)
