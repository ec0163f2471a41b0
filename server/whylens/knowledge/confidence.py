"""How sure a card is that one item explains one symbol, and the gate an item must pass.

A card item is a unit shown as a pitfall, constraint or fix, or a record's problem, cause,
decision or rejected alternative. A card shows it only when it is confident the item explains
*this* code: an empty card beats a noisy one (the history section still lists the symbol's
changes). Units are gated per symbol when they are anchored (``extract_units``), records' claims
when a card reads them (``records.about``), so every count of what a symbol has agrees.

Never shown (confidence 0):
- a record's title or a sentence repeating it: the decision's heading shows it, the history
  lists it (a title says what was done; a card item should say why);
- a sentence from a commit that did not change the symbol (another commit of the same PR); from
  the description of work that changed other symbols too (a merge PR's description, an issue
  thread: it speaks for every commit of the work) or from a commit that changed more than
  ``WIDE_SYMBOLS`` symbols, unless it names the symbol;
- a sentence that opens with a connective ("However, …", "(Eliminating …"): alone on a card it
  continues a sentence that is not there; and the other kinds ``fragment`` lists (a plan, the
  state before, pasted output, the author's own story in the first person, chit-chat, what the
  change does told like a commit subject, a guess, …);
- a sentence that names another symbol its commit changed — not one holding or held by this
  one — and not this one ("do not call super in Response#finish …" on ``drop_body?``): it is
  that symbol's story (tune card items: 2 noise, 10 marginal, 1 useful).

Otherwise a logistic score of: the sentence classifier's probability that the sentence is
knowledge at all (a constraint, a failure, a fix with its reason; "Add X option" is not), what
the card would show it as, how many symbols its commit changed (a sweeping change speaks for
none of them), whether it names this symbol or only another symbol its commit changed, whether
its commit added the symbol, its length, and whether it opens with a pronoun or speaks of the
change ("This commit …"). The weights (L2 1.0) and ``GATE`` were chosen on hand labels of card
items from the tune repositories only (``bench/tune_cards.py fit``, leave-one-repository-out);
``bench/bench_cards.py`` measures the held-out cards.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from whylens.knowledge.change_told import GIVES_REASON

UNIT_FIELDS = {"pattern": "pitfall", "fact": "constraint", "skill": "fix"}
RECORD_FIELDS = ("problem", "cause", "decision", "rejected")

# Fitted by bench/tune_cards.py fit on the tune repositories' card labels (see the docstring).
WEIGHTS: dict[str, float] = {
    "bias": 0.17, "knowledge": 1.08,
    "field:pitfall": 0.92, "field:fix": 0.51, "field:constraint": -0.21, "field:problem": -0.31,
    "field:cause": -0.21, "field:decision": -0.70,
    "breadth": -0.04,  # log(1 + symbols its commit changed)
    "names_symbol": 0.59, "names_other": -0.30,
    "added": -0.83,  # its commit created the symbol: what it says is often about the whole commit
    "short": -0.53, "long": 1.17,  # 6 words or fewer; 25 or more
    "pronoun": -0.50, "about_change": -0.48,
}
GATE = 0.5
WIDE_SYMBOLS = 15  # a commit that changed more symbols speaks for one only where it names it

# Alone on a card, a sentence that opens like this continues one that is not there.
_FRAGMENT = re.compile(
    r"^\W*(?:said|such|also|however|but|and|or|so|then|thus|therefore|hence|instead|otherwise"
    r"|for instance|for example|in that case|which|whereas|additionally|furthermore|moreover"
    r"|for (?:said|such|these|those)|not that|besides)\b"
    r"|^\s*[(\[]"
    # ... or points at a sentence or change not shown ("The change above ...", "With this patch,
    # ...", "That is, ...", "It also ...", "We can do that because ..."): tune card items 3 noise,
    # 8 marginal, none useful; 2 tune sentences, both no knowledge
    r"|^\W*(?:in\s+turn\b|that\s+is\s*,|not\s+to\s+mention\b|in\s+the\s+above\b"
    r"|with\s+this\s+(?:patch|change|commit|pr)\b|the\s+(?:change|commit|patch|fix)\s+above\b"
    r"|we\s+can\s+do\s+(?:that|this)\b|the\s+difference\s+with\s+this\b"
    r"|(?:it|this|that|they)\s+also\b)", re.I)
# ... or that lost its start: in lower case, a verb with no subject ("was released on ...") or
# a subordinate clause with no main clause after it ("since the names may change ...").
_HEADLESS = re.compile(
    r"^(?:was|were|is|are|has|have|had|does|did|doesn'?t|don'?t|isn'?t|can|will|would|should)\b"
    r"|^(?:since|because|although|though|when|whenever|unless|while|if)\b[^,;:]*$"
    # a point torn from its numbered list ("2- ActiveHelp is printed ...")
    r"|^\s*\d+\s*[-)]\s")
# A sentence about the tests ("This is not done in the test cases, ...", "the test checked only
# the Usage line"): it speaks of the tests, not of the code the card is about.
# A regression or new test, "a test for ..." (tune sentences: 61 no knowledge, 1 knowledge; 1
# noise card item) is the same.
_ABOUT_TESTS = re.compile(r"\b(?:test\s+cases?|the\s+tests?|unit\s+tests?|test\s+suite"
                          r"|tests?\s+(?:fail|pass)\w*"
                          r"|(?:regression|integration|functional|e2e|end-to-end)\s+tests?"
                          r"|(?:a|new|added|adds?|another|the\s+new)\s+tests?"
                          r"|tests?\s+(?:that|which|for|case))\b", re.I)
# ... or names one (TestRoute, test_auth.py, assert.NoError): tune 15 sentences no knowledge,
# 1 noise card item, nothing useful
_NAMES_TEST = re.compile(r"\bTest[A-Z]\w*|\btest_\w+|\w+_test\.\w+|\b(?:assert|require)\.[A-Z]\w*")
# ... or of CI (the tune sentences: 25 of 26 no knowledge)
_CI = re.compile(r"\bCI\b|\b(?:[Tt]ravis|[Aa]pp[Vv]eyor|[Cc]ircle[Cc][Ii]|GitHub [Aa]ctions"
                 r"|(?:GitHub|[Tt]est|CI) [Ww]orkflows?)\b|\bworkflows?/|\.github/")
# ... or says the change is safe, not why the code is so ("the default behavior is unchanged",
# "it shouldn't cause any compatibility issues": tune 2 card items marginal / noise, 1 sentence
# no knowledge)
_SAFE = re.compile(r"\b(?:behaviou?r\s+is\s+unchanged|no\s+(?:functional|behaviou?ral|behaviou?r)"
                   r"\s+changes?|(?:shouldn't|should\s+not|won't|will\s+not)\s+(?:cause|introduce)"
                   r"\s+any\s+(?:compatibility|breaking)|backwards?[- ]compatible\s+for)\b", re.I)
# ... and one that opens like this leans on it, or speaks of the change rather than the code.
_PRONOUN = re.compile(r"^\W*(?:it|its|it's|this|that|these|those|they|them|here|there"
                      r"|in this case|finally)\b", re.I)
# An item that opens "This should ...", "It will ...", "That may ..." tells what a change it does
# not name will do (tune card items 2 noise, 3 marginal, none useful; sentences 7, all no
# knowledge). A record's decision may ("This will check ... before registering them": 2 of 3
# tune decisions so worded are right), so it is not hidden there.
_LEANS_MODAL = re.compile(r"^\W*(?:this|that|it)\s+(?:must|should|will|would|can|may|might|could)\b",
                          re.I)
_SELF = re.compile(r"^\W*(?:this|the) (?:commit|change|patch|pr|pull request|fix|approach"
                   r"|implementation|refactor\w*)\b", re.I)
_WORDS = re.compile(r"\S+")


@dataclass(frozen=True)
class ItemEvidence:
    """What the confidence of one item on one symbol's card is computed from."""

    field: str  # pitfall constraint fix | problem cause decision rejected
    knowledge: float  # the sentence classifier's P(knowledge at all)
    change: str | None  # how the item's commit changed the symbol (an event kind); None: not
    breadth: int  # symbols the item's commit changed
    names_symbol: bool  # the text names this symbol
    names_other: bool  # it names another symbol its commit changed, and not this one
    words: int
    fragment: bool  # opens with a connective ("However, ..."): it continues a missing sentence
    pronoun: bool  # opens with a pronoun ("It is ...", "This ...")
    about_change: bool  # speaks of the change itself ("This commit ...", "The fix ...")
    title: bool = False  # a record's title, or a sentence repeating it
    whole_work: bool = False  # a merge PR's description (no one commit of it)
    about_other: bool = False  # headed by another symbol its commit changed ("dbRandomKey: ...")
    # it names another symbol its commit changed, not one holding or held by this one, and not
    # this one ("do not call super in Response#finish ..." on drop_body?)
    only_other: bool = False


def evidence(text: str, field: str, knowledge: float, symbol: str, change: str | None,
             commit_symbols, *, title: bool = False, whole_work: bool = False) -> ItemEvidence:
    """The evidence for ``text`` on the card of ``symbol``; ``commit_symbols`` are the symbols
    its commit changed (for a merge PR's description: the PR's)."""
    names = [s for s in dict.fromkeys(commit_symbols) if s != symbol]
    mine = names_symbol(text, symbol)
    strangers = [s for s in names if not related(s, symbol)]
    words, is_fragment, leans_modal, told, pronoun, about_change, lead = _text_evidence(text)
    about_other = bool(lead) and not names_symbol(lead, symbol) \
        and any(names_symbol(lead, s) for s in names)
    return ItemEvidence(
        field=field, knowledge=knowledge, change=change, breadth=len(names) + 1,
        names_symbol=mine, names_other=not mine and any(names_symbol(text, s) for s in names),
        words=words,
        fragment=is_fragment or (field != "decision" and leans_modal)
        or (field != "fix" and told),
        pronoun=pronoun, about_change=about_change,
        title=title, whole_work=whole_work, about_other=about_other,
        only_other=not mine and any(names_symbol(text, s) for s in strangers))


@lru_cache(maxsize=1_024)
def _text_evidence(text: str) -> tuple[int, bool, bool, bool, bool, bool, str]:
    """What ``evidence`` reads from the text alone: its words, whether it is a fragment, opens
    "This should / will ...", tells the change like a commit subject (``told_like_subject``),
    opens with a pronoun or speaks of the change, and the name heading
    it (cached: a unit or claim is weighed on the card of each symbol its commit changed, one
    after the other)."""
    head = _HEAD.match(text)
    return (len(_WORDS.findall(text)), fragment(text), bool(_LEANS_MODAL.match(text)),
            told_like_subject(text), bool(_PRONOUN.match(text)), bool(_SELF.match(text)),
            head.group(1) if head else "")


# A sentence headed by a name and a colon ("RM_ZsetRem: delete the key if empty") is about that
# name (tune: on another symbol's card 1 marginal, 1 noise; "BZMPOP: ..." names no symbol, and
# "res.location: ..." is shown on res.location's card)
_HEAD = re.compile(r"^\W*([A-Za-z_$][\w.#$]*(?:\(\))?):\s")


# A plan, not the code as it is: "we should go over ...", "TODO", "at some point", "for now" (the
# 11 such sentences of the tune sentence labels are all no knowledge).
_PLAN = re.compile(
    r"\b(?:(?:we|i|you)\s+(?:should|could|might|will|need\s+to|have\s+to|may\s+want\s+to)\s+"
    r"(?:go\s+over|revisit|look\s+(?:into|at)|consider|eventually|later|investigate|think\s+about"
    r"|clean\s+up|follow\s+up)|todo|fixme|in\s+(?:a|the)\s+(?:future|follow[- ]up)|at\s+some\s+point"
    r"|for\s+now|later\s+on"
    # a proposal or a wish ("let's also make it nil-able", "we should add a new metric"): tune
    # cards 2 marginal, sentences 3 no knowledge, none of either useful
    r"|let['’]s|(?:we|i|you|one)\s+should\s+(?:also\s+)?(?:have|add|provide|offer|introduce"
    r"|support))\b", re.I)
# The state before the change, not the code as it is: "Today, the loop prints ...", "Currently
# ...", "The code recognized that ..." (tune: 3 marginal card items, 4 sentences no knowledge;
# "The current code follows ..." (present tense) is knowledge and is not matched).
_BEFORE = re.compile(
    r"^\W*(?:today|currently|at\s+the\s+moment|right\s+now|until\s+now|so\s+far)\b"
    r"|^\W*the\s+(?:old\s+|previous\s+|original\s+|existing\s+|former\s+)?code\s+"
    r"(?:\w+ed|was|were|had|did)\b", re.I)
# Release housekeeping: the changelog, release notes, HISTORY (the 7 such tune sentences are
# all no knowledge).
_RELEASE_NOTES = re.compile(r"\b(?:change\s?log|release\s+notes?|history\.(?:md|rst|txt))\b",
                            re.I)


# Pasted code, a template or a table, not prose: six or more of these, over 4% of the text (the
# 7 such sentences of the tune sentence labels are all no knowledge).
_CODE_MARKS = re.compile(r"[{};=$|&]")
CODE_MARKS_MIN, CODE_MARKS_SHARE = 6, 0.04
# ... a pasted diagram (box-drawing characters, arrows: ripgrep's thread-stack picture, tune 1
# noise card item) ...
_DRAWING = re.compile(r"[\u2190-\u21ff\u2500-\u259f]")
DRAWING_MIN = 3
# ... or pasted tool output: a line that opens with an error's name or a tool's "error:" ("error:
# proc-macro derive panicked --> ...", "NameError: uninitialized constant ...": the 3 such tune
# sentences are no knowledge; "may raise TypeError: ..." inside prose is not matched).
_PASTED_ERROR = re.compile(r"^\W*(?:[A-Za-z_][\w.]*(?:Error|Exception)|error(?:\[\w+\])?"
                           r"|warning|fatal|panic(?:ked)?)\s*:", re.I)
# ... or two commit subjects run together (a squash body's lines glued with no stop: "Add tests
# for regexp variables in query strings Fix how regular expression gets built ..."): a subject's
# verb, capitalised, straight after a lower-case word (the 3 such tune sentences are no
# knowledge; no tune card item matches)
_GLUED = re.compile(
    r"[a-z0-9)'\"`]\s+(?:Add|Adds|Added|Fix|Fixes|Fixed|Update|Updates|Updated|Remove|Removes"
    r"|Removed|Refactor|Bump|Revert|Improve|Implement|Introduce|Replace|Ensure|Avoid|Prevent"
    r"|Simplify|Rename|Document|Drop|Allow|Support|Move|Change|Changed|Make|Handle|Correct)"
    r"\s+[a-z`'\"]")
# Review housekeeping: "Addresses comments in r481", "Apply suggestions from code review" (tune:
# 1 noise card item, 2 sentences no knowledge).
_REVIEW = re.compile(r"\baddress(?:es|ed|ing)?\s+(?:the\s+|some\s+|all\s+|more\s+|my\s+|your\s+)?"
                     r"(?:(?:code\s+)?review(?:er)?(?:'s)?\s+|pr\s+)?(?:comments?|feedback|nits?"
                     r"|suggestions?|remarks?)\b|\b(?:suggestions?|comments?|feedback)\s+from\s+"
                     r"(?:the\s+)?(?:code\s+)?review\b|\breview\s+comments?\b", re.I)


# The author's own story, not the code's reason: a sentence in the first person singular ("The
# issue was that I got a bit overzealous ...", "At least on my Linux system, ...": the 9 distinct
# such tune card texts are 5 marginal, 4 noise, none useful; tune sentences 32 no knowledge, 4
# knowledge). "I/O" is no pronoun.
_FIRST_PERSON = re.compile(r"(?<![\w'/])(?:I|I'm|I've|I'd|I'll|[Mm]y|myself|me|mine)(?![\w'/])")
# ... chit-chat: an emoticon, "kinda", "sorta", "lol" (tune card texts 3 marginal, 1 noise;
# sentences 5 no knowledge, 1 knowledge) ...
_CHATTER = re.compile(r"(?<!\S)[:;]-?[)(DP](?!\w)|(?<=\w)[:;]-?\)"
                      r"|\b(?:[Kk]inda|[Ss]orta|[Ll]ol|[Hh]aha|[Hh]eh|[Hh]ehe)\b")
# ... or a sentence about a comment or docstring ("... so the comment doesn't really need to
# clarify anymore"): it speaks of the documentation (tune card texts 1 marginal, 3 noise; the one
# such tune sentence is no knowledge).
_ABOUT_COMMENT = re.compile(r"\b(?:the|this|that)\s+(?:code\s+)?(?:comments?|docstrings?"
                            r"|doc\s+comments?)\b", re.I)


# What the change does, told like a commit subject ("Add a setting ...", "Change the exclusion
# order ...", "Let the status helper accept ...", "The change introduces ...", "Resolved the
# issue by ...") with no reason: the history line's subject says what was done (issue 13, round
# 27: tune card items 4 marginal and no useful outside fixes, distinct labelled tune card texts
# 34 marginal + 7 noise, no useful; tune sentences 346 no knowledge, 6 knowledge, 4 of them
# fixes). A fix may say it so ("Use ... substitution ..."); "Fix ..." is not matched: of those,
# as many are useful as not.
_TOLD_LIKE_SUBJECT = re.compile(
    r"^\W*(?:(?:add|change|let|make|introduce|allow|support|use|update|implement|refactor|rework"
    r"|extend|expose|switch|convert|replace|resolved?\s+(?:the|this)\s+(?:issue|problem|bug)"
    r"\s+by)\b|(?:internally,?\s+)?(?:this|the)\s+(?:change|commit|patch|pr)\s+(?:introduces"
    r"|modifies|adds|changes|makes|allows|switches|replaces|uses)\b)", re.I)
# ... or a guess, a hope or a wish, not what the code is ("probably ...", "Ideally we'd ...",
# "... may have been due to ...", "did not seem to ...": tune card items 6 marginal, texts 7
# marginal + 1 noise, no useful; tune sentences 5 no knowledge, 3 knowledge).
_GUESS = re.compile(
    r"\b(?:probably|ideally|suspected|(?:may|might)\s+have\s+been|perhaps|maybe|presumably"
    r"|hopefully|(?:do|does|did)(?:n't|\s+not)\s+(?:really\s+)?seem"
    r"|(?:could|may|might)\s+be\s+a\s+regression)\b", re.I)


def fragment(text: str) -> bool:
    """Alone on a card the sentence continues one that is not there, lost its start, speaks of
    the tests, CI or the review, says the change is safe, is a plan or a wish, tells the state
    before the change, speaks of the release notes, is pasted code, a diagram or tool output,
    runs two commit subjects together, tells the author's own story, chats, speaks of a
    comment, or guesses (never shown)."""
    marks = len(_CODE_MARKS.findall(text))
    return bool(_FRAGMENT.match(text) or _HEADLESS.match(text) or _ABOUT_TESTS.search(text)
                or _NAMES_TEST.search(text) or _CI.search(text) or _SAFE.search(text)
                or _PLAN.search(text) or _BEFORE.match(text) or _RELEASE_NOTES.search(text)
                or (marks >= CODE_MARKS_MIN and marks > CODE_MARKS_SHARE * len(text))
                or len(_DRAWING.findall(text)) >= DRAWING_MIN or _PASTED_ERROR.match(text)
                or _REVIEW.search(text) or _GLUED.search(text) or _FIRST_PERSON.search(text)
                or _CHATTER.search(text) or _ABOUT_COMMENT.search(text) or _GUESS.search(text))


def told_like_subject(text: str) -> bool:
    """What the change does, told like a commit subject, with no reason (never shown, but as a
    fix: a fix says what to do, "Use ${variable:-} substitution ...")."""
    return bool(_TOLD_LIKE_SUBJECT.match(text)) and not GIVES_REASON.search(text)


def confidence(item: ItemEvidence) -> float:
    """The probability that the item, alone on the card, explains the symbol (0 for what a card
    never shows; see the module docstring)."""
    if never_shown(item):
        return 0.0
    score = sum(WEIGHTS.get(name, 0.0) * value for name, value in features(item).items())
    return 1.0 / (1.0 + math.exp(-score))


def never_shown(item: ItemEvidence) -> bool:
    if item.title or item.fragment or item.about_other or item.only_other or item.change is None:
        return True
    # the description of wider work, or a wide change, speaks for this symbol only where it
    # names it
    return ((item.whole_work and item.breadth > 1) or item.breadth > WIDE_SYMBOLS) \
        and not item.names_symbol


def features(item: ItemEvidence) -> dict[str, float]:
    """The terms of the logistic score (``WEIGHTS`` has one weight per name)."""
    return {
        "bias": 1.0, "knowledge": item.knowledge, f"field:{item.field}": 1.0,
        "breadth": math.log1p(item.breadth), "names_symbol": float(item.names_symbol),
        "names_other": float(item.names_other), "added": float(item.change == "added"),
        "short": float(item.words <= 6), "long": float(item.words >= 25),
        "pronoun": float(item.pronoun), "about_change": float(item.about_change),
    }


def shown(item: ItemEvidence) -> bool:
    return confidence(item) >= GATE


@lru_cache(maxsize=8_192)
def names_symbol(text: str, symbol: str) -> bool:
    """The text names the symbol: its qualified tail ("Session.send", "req.accepts"), or its
    bare name when that reads as an identifier (``cert_verify``, ``getURLQuery``, ``json()``)
    rather than a word ("match", "get"). Cached: a card's item is weighed for each symbol its
    commit changed, and each time against every other one (``names_other``)."""
    parts = _parts(symbol)
    if not parts:
        return False
    bare = parts[-1]
    if len(parts) > 1 and (_word_in(f"{parts[-2]}.{bare}", text)
                           or _word_in(f"{parts[-2]}#{bare}", text)):  # Ruby's Class#method
        return True
    identifier = bool(_IDENTIFIER.search(bare))
    if identifier and len(bare) > 3 and _word_in(bare, text):
        return True
    return _word_in(bare, text, then="(")


def related(a: str, b: str) -> bool:
    """One of two qualified names holds the other (``routeRegexp`` and ``(*routeRegexp).Match``,
    ``Sinatra.Base`` and ``Sinatra.Base.new``): naming one speaks of the other too."""
    pa, pb = _parts(a), _parts(b)
    n = min(len(pa), len(pb))
    return n > 0 and pa[:n] == pb[:n]


def _parts(name: str) -> list[str]:
    return [p for p in _SEPARATORS.split(_DECORATION.sub("", name)) if p]


_SEPARATORS = re.compile(r"[.:]+")
_DECORATION = re.compile(r"[()*&]")
_IDENTIFIER = re.compile(r"[_\d]|[a-z][A-Z]")


def _word_in(name: str, text: str, then: str = "") -> bool:
    r"""``name`` occurs in ``text`` as a whole word (no word character or ``$`` either side),
    or, with ``then``, followed by it: what ``(?<![\w$])name(?![\w$])`` and
    ``(?<![\w$])name\(`` find, by ``str.find`` (a pattern per name overflowed re's cache:
    each call compiled two)."""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or not _word_char(text[at - 1])) and (
                text.startswith(then, end) if then
                else end == len(text) or not _word_char(text[end])):
            return True
        at = text.find(name, at + 1)
    return False


def _word_char(char: str) -> bool:
    return char.isalnum() or char in "_$"  # re's \w on str is isalnum() or "_"
