"""Cue phrases for a sentence's part in the story of a change: cause, decision, rejected.

Shared by the sentence classifier (``features``, where they are features) and by records
(``records.extract``, the fallback rules when the classifier's data is unavailable).

``REJECTED`` needs an alternative that was weighed and not taken ("we considered", "another
approach would", "didn't work"); ``REPLACED`` is the weaker "instead of" / "rather than" /
"in favour of", which far more often names what a *decision* replaced ("use a lock instead of a
global flag") than a rejected alternative.
"""

from __future__ import annotations

import re

CAUSE = re.compile(
    r"""\b(?:because|caused\ by|due\ to|root[\ -]cause|as\ a\ result\ of
    | the\ (?:real\ |underlying\ |actual\ )?(?:problem|issue|bug|cause|reason)\ (?:was|is|here\ is)
      (?!\ (?:now\ )?(?:fixed|resolved|solved|addressed|gone|closed|avoided))
    | (?:happens|happened|occurs|occurred|fails|failed|breaks|broke|hangs|crashes)\ (?:only\ )?(?:when|if|because)
    | (?:leads?|led)\ to | resulted\ in | results\ in | this\ (?:was|is)\ because
    | which\ (?:means|meant|caused|causes)
    | (?:was|were|is|are)\ (?:never|not)\ (?:being\ )?(?:closed|released|reset|called|set|handled|checked)
    )\b | ,\ so\ (?!that\b|far\b|much\b|many\b)""",
    re.IGNORECASE | re.VERBOSE,
)
# A motive: why the change was made ("so that", "in order to", "to avoid", "the primary
# motivation", "principally because"); with ``CAUSE``, a sentence that gives a reason
# (``retrieval.snippets.states_reason``).
MOTIVE = re.compile(
    r"""\b(?:so\ that|in\ order\ to|to\ (?:avoid|prevent)|otherwise|motivat\w*|rationale
    | the\ (?:main\ |primary\ |real\ |whole\ )?(?:reason|point|purpose|goal|idea|issue|problem)
      \ (?:is|was|here|for|behind|with)
    | principally | (?:overall\ )?desire\ to | it\ turns\ out | given\ that | is\ a\ problem
    | (?:is|was|were|are)\ (?:\w+\ )?broken
    | since\ (?!v?\d|version|release|then|commit|the\ (?:last|previous|first)\b)
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
# Phrases that only ever introduce a cause: taken as one whatever the classifier reads.
STRONG_CAUSE = re.compile(
    r"\b(?:root[ -]caus\w*|caused by|the (?:real |underlying |actual )?(?:cause|reason) (?:is|was|for)"
    r"|the (?:real|underlying|actual) (?:problem|issue|bug) (?:is|was)"
    r"|this (?:is|was|happens|happened) because)\b", re.IGNORECASE)
DECISION = re.compile(
    r"""\b(?:instead(?!\ of) | switch(?:es|ed|ing)?\ (?:over\ )?to | we\ now | (?:it|this|requests?|now)\ now\ \w+
    | now\ (?:uses?|returns?|raises?|checks?|handles?|accepts?|passes?|calls?|ignores?|supports?
            |defaults?|sends?|reads?|writes?|only|always|never|respects?|keeps?|closes?|falls?\ back)
    | this\ (?:pr|pull\ request|patch|commit|change|changeset|diff)\b | this\ changes
    | (?:we|i)\ (?:changed|moved|replaced|switched|decided|chose|opted|now|instead)
    | (?:the\ )?(?:fix|solution|approach)\ (?:here\ )?(?:is|was)\ to | fixed\ by
    | by\ (?:using|passing|adding|making|switching)
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
# An imperative or past-tense action verb opening a sentence ("Use X", "Removed Y") is a decision.
# "Fix X" and "Improve X" are left out on purpose: they name the problem, not the approach.
ACTION_VERBS = frozenset(
    """use uses used switch switched replace replaced move moved make made add added remove removed
    avoid avoided ensure ensured handle handled allow allowed prevent prevented change
    changed refactor refactored introduce introduced implement implemented drop dropped deprecate
    deprecated support rewrite rewrote simplify simplified raise return pass set convert converted
    keep skip stop stopped only restore restored revert reverted default defaulted respect
    catch caught close closed reuse reused wrap wrapped defer deferred limit limited
    guard guarded cache cached retry retried rename renamed validate validated
    normalize normalise normalized normalised expose exposed""".split()
)
# Sentences about process, not the approach: never a decision on their own.
TRIVIAL = re.compile(
    r"\b(?:typo|lint|flake8|pep8|black|ruff|isort|format(?:ting)?|whitespace|changelog|history\.rst"
    r"|authors|readme|docs?|documentation|tests?|ci|travis|tox|merge|rebase|wip|review|nit|version)\b",
    re.IGNORECASE,
)
REPLACED = re.compile(r"\b(?:instead of|rather than|in favou?r of)\b", re.IGNORECASE)
# An alternative weighed and not taken. "X doesn't work" is left out: it nearly always states the
# problem ("gevent won't work with pypy"), not a road not taken.
REJECTED = re.compile(
    r"""\b(?:(?:we|i)\ (?:also\ |first\ |originally\ |initially\ )?(?:considered|tried|looked\ at
        |thought\ about|explored|evaluated)
    | considered\ (?:using|adding|making|changing|removing)
    | alternatives?\ (?:considered|approach|would|is|was|here)|alternatively
    | another\ (?:option|approach|way)\ (?:would|is|was)|the\ other\ (?:option|approach)
    | (?:was|were)\ rejected | (?:wasn'?t|was\ not|weren'?t|were\ not)\ (?:taken|chosen|accepted|pursued)
    | not\ (?:an\ )?option | (?:we|i)\ could\ (?:have|also)
    | a\ (?:simpler|cleaner|different)\ (?:fix|approach|way)\ would
    | would\ have\ been\ (?:better|nicer|simpler|cleaner|preferable)
    | ideally,?\ (?:we|i|this|it|there)
    | as\ opposed\ to | (?:decided|chose|opted)\ (?:not\ to|against)
    | (?:but|however),?\ [^.]{0,80}\bwould\ (?:break|mean|require|need|cost)
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
BEFORE = re.compile(r"^(?:prior\ to|before|until)\ this\b", re.IGNORECASE)
# A sentence a record's decision never is (records.distil): it states no choice, however the
# classifier reads it. A guess or an aside ("There's probably a better way", "This may still
# fail", "one may argue", "The theory is that ..."); one that says what does not work ("Storing
# the flags there does not work when ...", "... which will mess up the rdb"); the state before
# the change ("we were checking", "had to be", "These are currently ..."); a verdict ("It's
# clearer if ...", "this is an unnecessary maintenance burden"); what the author wanted or
# noticed ("We want ...", "I realized ...").
NOT_A_CHOICE = re.compile(
    r"""\b(?:probably|almost\ certainly|(?:may|might)\ still|should\ be\ able\ to|just\ try\ to
        |in\ general|one\ may\ argue|for\ some\ reason|the\ theory\ is|my\ guess\ is
        |(?:i|we)\ suspect|currently)\b
    | \b(?:(?:does|do|did)\s?n[o']t\s+work|(?:is|are)(?:\s+not|n't)\s+(?:sufficient|enough|possible)
        |no\ (?:good\ )?ways?\ to|mess(?:es)?\ up|there\ is\ no\ requirement)\b
    | \b(?:was|were)\s+\w+ing\b | \bhad\ to\b | (?<!be\ )(?<!been\ )(?<!is\ )(?<!are\ )\bused\ to\b
    | \bthe\ previous\ behaviou?r\b | ^\W*we\ had\b
    | ^\W*(?:it'?s|it\ is|it\ was|this\ is|this\ was|that'?s)\b
    | ^\W*(?:we|i)\s+(?:want|wanted|realized|realised|noticed|found)\b""",
    re.IGNORECASE | re.VERBOSE,
)
# A sentence that opens on the background ("However ...", "Since ...", "Ever since Ruby 2.3 ...",
# "That is ...", "But ...", "So ...", "As it now returns ...", "Previously ..."): no choice
# either, unless what follows its opening clause says what the change does (records.distil):
# a "now" or "we call" inside the clause itself is part of the background ("Given that now the
# offsets agree, ...").
BACKGROUND_OPENING = re.compile(
    r"""^\W*(?:however|while|since|given\ that|ever\ since|that\ is|although|even\ though|but|so
        |as\s+(?:it|this|that|these|they)|previously)\b""", re.IGNORECASE | re.VERBOSE)
# ... unless it also says what the change does ("we create a specialised function", "now it
# checks", "instead of relying on indices, which doesn't work").
CHOICE_MADE = re.compile(r"\b(?:now|instead|in\ lieu\ of|rather\ than|we\ (?:create|add|use|make"
                         r"|keep|move|call|check|skip|return|only))\b", re.IGNORECASE)
# A title that states the failure ("trim_prefix causing --use-strict flag to fail", "the bit
# position ... may overflow"): the problem, not what was chosen.
FAILURE_TITLE = re.compile(
    r"\bcaus(?:e|es|ed|ing)\b[^.]{0,60}\bto\s+(?:fail|crash|hang|break|leak)\b"
    r"|\b(?:may|might|can|could|will)\s+(?:overflow|crash|fail|hang|leak|deadlock|segfault)\b"
    r"|\b(?:fails|crashes|hangs|leaks|overflows|segfaults|deadlocks)\b", re.IGNORECASE)
