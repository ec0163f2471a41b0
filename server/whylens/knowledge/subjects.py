"""What a commit's subject says about the code: housekeeping, bare edits, and the fallback type.

A commit that only touches docs, tests, CI or packaging yields no unit (what it says lives in
those files). A subject about docs, tests, CI, typos or versions yields no unit from the subject
and no fallback; the body's sentences still count.

The subject fallback must say something about behaviour: a condition, an edge case, a rule, a
change of behaviour, a named failure, or come with a body sentence giving the reason. "Add X" or
"Fix X" alone only repeats the subject, which the symbol history and the commit's decision
record already show. Set ``FALLBACK_NEEDS_BEHAVIOUR = False`` to give every substantive commit a
fallback unit regardless.
"""

from __future__ import annotations

import re

from whylens.history.filters import is_release
from whylens.knowledge.features import conventional_prefix, path_kind
from whylens.knowledge.heuristics import NAMED_FAILURE, NEGATIVE

FALLBACK_NEEDS_BEHAVIOUR = True

_HOUSEKEEPING_WORDS = re.compile(
    r"\b(?:typos?|spelling|misspell\w*|grammar|wording|phrasing|rephrase\w*|docs?|documentation"
    r"|document(?:ed|ing)?|docstrings?|readme|changelog|changes\.rst|history\.rst|authors?"
    r"|contributors?|license|copyright|badges?|tests?|testing|testcases?|unittests?|pytest"
    r"|py\.test|coverage|fixtures?|ci|travis|tox|appveyor|circleci|workflows?|github actions"
    r"|pre-commit|lint\w*|flake8|pylint|black|isort|mypy|pyright|ruff|pep ?8|whitespace"
    r"|formatting|indentation|style|cleanup|clean up|tidy|cosmetic\w*|comments?"
    r"|(?:broken|dead|doc|docs) (?:links?|urls?)|examples?|tutorial|quickstart|version|versions"
    r"|release|releases|pin|pinned|unpin|bump\w*|requirements|dependenc(?:y|ies)|setup\.py"
    r"|manifest|packaging|wheel|sdist|import order|unused|merge|revert\w*|sphinx|rst|markdown"
    r"|gitignore|editorconfig|typing|type hints?|annotations?|typed|tabs?|spaces|newer"
    r"|upgrade\w*|downgrade\w*|vendor\w*|test ?suite|notes?)\b", re.I)
# Subject decoration that is not content: "Merge pull request #1 from a/b", "docs: ", "[cli] ",
# "fix(parser)!: ", "fix/", "manual.yml: ". A component prefix ("Sentinel: ", "redis-cli: ") says
# which part of the code the sentence is about, so it stays.
_MERGE_SUBJECT = re.compile(r"^Merge (?:pull request|branch|remote-tracking branch|tag)\b")
_KINDS = (r"(?:feat|feature|fix|fixes|bugfix|hotfix|docs?|tests?|chore|ci|build|refactor|style"
          r"|perf|revert|deps|dev-deps|release|lint|types?|typing|security|wip|misc|cleanup)")
_PREFIX = re.compile(
    r"^(?:\[[^\]]{1,30}\]\s*"
    rf"|{_KINDS}(?:\([^)]{{0,30}}\))?!?(?::\s*|/(?=[A-Z]))"
    r"|[\w-]{0,24}[./][\w./-]{1,40}:\s+"
    r"|(?:fix(?:es|ed|ing)?|close[sd]?|resolve[sd]?|issue|refs?|gh)\s*[#-]?\d+\s*[:-]\s+)+", re.I)
_MIN_SUBJECT = 12

# "Use X instead of Y" as a subject is a refactor unless it says when or why.
_CHOICE = re.compile(r"^(?:use[sd]?|using|switch\w*|replace[sd]?|replacing|prefer\w*)\b", re.I)
_WHEN_OR_WHY = re.compile(
    r"\b(?:when|whenever|if|unless|for|on|because|since|so|as|to avoid|to prevent|to allow"
    r"|to support|to ensure|to make|otherwise)\b", re.I)
# Subjects that name an edit, not a behaviour: a fallback only with a reason from the body.
_EDIT = re.compile(
    r"(?:remove[sd]?|removing|delete[sd]?|drop(?:s|ped|ping)?|better|improve[sd]?|improving"
    r"|refactor\w*|simplif\w*|tweak\w*|rework\w*|reorgani[sz]\w*|rename[sd]?|renaming"
    r"|move[sd]?|moving|cache[sd]?|caching|optimi[sz]\w*|speed up|clarif\w*|cleaner|new"
    r"|use[sd]?|using|switch\w*|replace[sd]?|replacing|prefer\w*)\b", re.I)
# Words that say something about behaviour (see the module docstring).
_BEHAVIOUR = re.compile(
    r"\b(?:when|whenever|if|unless|only|now|no longer|anymore|any more|by default|instead"
    r"|without|always|never|may|can|cannot|can't|don't|doesn't|do not|does not|must|should"
    r"|automatically|respect\w*|honou?r\w*|preserve\w*|keeps?|so that|in order to|because"
    r"|guard\w* against|protect\w* against|reject\w*|refus\w*|disallow\w*|forbid\w*"
    r"|prevent\w*|avoid\w*|work(?:s|ed)? ?around|crash\w*|hang\w*|deadlock\w*|leak\w*"
    r"|regress\w*|race|segfault\w*|infinite|corrupt\w*|wrong\w*|incorrect\w*|broken"
    r"|deprecat\w*|rather than|(?:for|with) (?:easier|better|faster|safer)|to (?:avoid|allow"
    r"|prevent|support|ensure|match|keep|handle|be able)|(?:on|for|with|of) (?:an? )?(?:empty"
    r"|missing|invalid|unknown|partial\w*|large|long|closed|relative|absolute|non-\w+))\b",
    re.I)
# The fallback's type follows the subject's wording.
_FAILURE_WORDS = re.compile(
    r"\b(?:crash\w*|hang\w*|deadlock\w*|leak\w*|regress\w*|broken|race|segfault\w*"
    r"|infinite|corrupt\w*|fail\w*|errors?|exceptions?|bugs?|wrong|incorrect\w*)\b", re.I)
_FIX_WORDS = re.compile(
    r"^(?:fix\w*|bug ?fix\w*|work(?:s|ed)? ?around|avoid\w*|prevent\w*|handle\w*|ensure\w*"
    r"|make sure|guard\w*|catch\w*|correct\w*|restore\w*|repair\w*|stop\w*|don'?t|do not"
    r"|never|always|properly|explicitly|close\w*|release\w*)\b", re.I)


def subject_text(subject: str) -> str:
    """The subject without merge boilerplate and conventional prefixes (refs go in cleaning)."""
    subject = subject.strip()
    if _MERGE_SUBJECT.match(subject):
        return ""
    stripped = strip_prefix(subject)
    return stripped if len(stripped) >= _MIN_SUBJECT else subject


def strip_prefix(text: str) -> str:
    """``"fix(parser): x"`` → ``"x"``, ``"[ci] x"`` → ``"x"``, ``"fix/Avoid x"`` → ``"Avoid x"``;
    a component prefix ("Sentinel: x") stays."""
    return _PREFIX.sub("", text.strip())


def housekeeping_paths(paths: tuple[str, ...]) -> bool:
    """Every changed path is docs, tests, CI, packaging or repository metadata."""
    return bool(paths) and all(path_kind(p) != "code" for p in paths)


# Work that is never a symbol's decision, by its title: AUTHORS, lint, formatting, typing, CI,
# docs (releases and version bumps: ``history.filters.is_release``).
_HOUSEKEEPING_TITLE = re.compile(
    r"\b(?:authors|contributors|changelog|typos?|spelling|lint\w*|flake8|pylint|mypy|pyright|ruff"
    r"|black|isort|prettier|eslint|gofmt|rustfmt|clippy|(?:re)?format(?:s|ted|ting)?|whitespace"
    r"|type (?:hints?|annotations?|stubs?|check\w*)|typing|ci|github actions|workflows?|travis"
    r"|appveyor|circleci|pre-commit|readme|docs?|documentation|docstrings?|code style|copyright"
    r"|licen[cs]e|dependabot)\b", re.I)
_HOUSEKEEPING_KINDS = frozenset("docs test ci chore style build release lint types deps".split())
_HOUSEKEEPING_SCOPES = frozenset(
    "types typing typings docs doc test tests ci build deps lint style release changelog".split())
_SCOPE = re.compile(r"^\s*[A-Za-z]+\(([\w-]+)\)!?:")


def housekeeping_work(title: str, paths) -> bool:
    """A release, version bump, AUTHORS, lint / formatting / typing-only, CI or docs-only piece
    of work: by the files it touched, its conventional prefix, or its title (a title that also
    names something going wrong, "Fix crash when formatting dates", is not housekeeping)."""
    if housekeeping_paths(tuple(paths)) or conventional_prefix(title) in _HOUSEKEEPING_KINDS:
        return True
    scope = _SCOPE.match(title)
    if scope and scope.group(1).lower() in _HOUSEKEEPING_SCOPES:  # "fix(types): …"
        return True
    text = strip_prefix(title)
    return is_release(text) or housekeeping_text(text)


# Tools whose findings are housekeeping even when they say "error": clang-tidy, an analyzer.
_TOOL_FINDINGS = re.compile(
    r"\b(?:clang-tidy|static analy[sz]er|scan-build|coverity|cppcheck|compiler warnings?"
    r"|-W[\w-]+|warning:|lint(?:er|ing)?|flake8|mypy|golangci-lint|clippy)\b", re.I)


def housekeeping_text(text: str) -> bool:
    """A sentence about housekeeping (lint, formatting, typing, docs, CI, a tool's findings),
    never a record's problem or decision."""
    if _TOOL_FINDINGS.search(text):
        return True
    return bool(_HOUSEKEEPING_TITLE.search(text)) and not (
        NEGATIVE.search(text) or NAMED_FAILURE.search(text))


# A sentence about the work on tests: "Add tests for X", "This commit adds two regex based tests",
# "Made blockedonkeys.tcl tests a bit more aggressive" (not "Add X (w/ tests)", nor "Add a test
# for this case and fix X").
_TEST_NOTE = re.compile(
    r"^(?:(?:this|the)\s+(?:commit|pr|patch|change)\s+|additionally,?\s+|also,?\s+"
    r"|(?:i|we)(?:'re|\s+are)?\s+)?(?:also\s+)?(?:add(?:s|ed|ing)?|made|make|makes|update[sd]?"
    r"|updating|modif(?:y|ies|ied)|change[sd]?|improve[sd]?|improving|extend(?:s|ed)?|fix(?:es|ed)?"
    r"|include[sd]?|writes?|wrote)\b(?:\W+(?!(?:w|with|and|plus)\b)\w+){0,6}?\W+"
    r"(?:unit\s+|regression\s+|integration\s+)?(?:tests?|test\s*cases?|test\s+modules?"
    r"|test\s*suite)\b(?![^.]{0,30}\band\s+(?:fix|make|change|use|handle)\w*\b)", re.I)


# ... or on how the change was checked: "It was verified that after the fix ...".
_CHECKED = re.compile(r"^(?:it|this)\s+(?:was|has\s+been)\s+(?:verified|tested|confirmed|checked)\b"
                      r"|^(?:verified|tested|confirmed)\s+(?:that|with|on|against|by|locally)\b", re.I)


def test_note(text: str) -> bool:
    """A sentence about the work on the tests or how the change was checked, never a record's
    problem or decision (the tests of the change are in its diff)."""
    text = text.strip()
    return bool(_TEST_NOTE.search(text) or _CHECKED.search(text))


def housekeeping_subject(subject: str) -> bool:
    return bool(_HOUSEKEEPING_WORDS.search(subject))


def bare_choice(subject: str) -> bool:
    """"Use X instead of Y" with no when or why: a refactor the diff already shows."""
    return bool(_CHOICE.match(subject)) and not _WHEN_OR_WHY.search(subject)


def fallback_type(subject: str, has_reason: bool) -> str | None:
    """The type of the fallback unit for this (cleaned) subject, or None for no fallback."""
    named = NAMED_FAILURE.search(subject)
    if FALLBACK_NEEDS_BEHAVIOUR and not has_reason and (
        _EDIT.match(subject) or not (named or _BEHAVIOUR.search(subject))
    ):
        return None
    if named or _FAILURE_WORDS.search(subject):
        return "pattern"
    return "skill" if _FIX_WORDS.search(subject) else "fact"
