"""Features of one commit sentence for the sentence classifier (``knowledge.classify``).

Four groups, all sparse (a feature is a name; its value is 1 unless said otherwise):
- words: lower-cased, crudely stemmed words and word pairs, with code-like tokens folded into a
  few shapes (an error name, an identifier, a version, a number), so "KeyError" and
  "TimeoutError" share what they say;
- cues: today's rules as features (every heuristic row that fires, the vetoes, the record cue
  phrases, the substantive filter);
- shape and position: length, punctuation, a pronoun or lower-case start, subject or body, index;
- commit kind: what the commit touched (docs, tests, CI, packaging, code), its conventional
  prefix ("docs:", "chore(deps):"), merge / squash / plain, a body sentence repeating the subject.

Pure Python, deterministic; the same function runs in training (bench/train_sentences.py) and
at run time.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from whylens.knowledge import cues, heuristics
from whylens.knowledge.prefilter import Prefilter
from whylens.knowledge.substance import is_substantive

_TOKEN = re.compile(r"[A-Za-z_$][\w$.:/-]*[\w)]|[A-Za-z]|\d[\w.]*")
_ERROR_NAME = re.compile(r"^[A-Z]\w*(?:Error|Exception|Fault|Failure|Warning|Timeout)$")
_VERSION = re.compile(r"^v?\d+(?:\.\d+)+")
_NUMBER = re.compile(r"^\d")
_IDENT = re.compile(r"[._/:$]|\)$|[a-z][A-Z]|^[A-Z]{2,}[a-z]")
_SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly")
_PRONOUN_START = re.compile(r"^(?:it|this|that|they|these|those|he|she|its|which|then)\b", re.I)
_CONVENTIONAL = re.compile(r"^\s*(?:\[([\w -]{1,20})\]\s*)?([A-Za-z]+)(?:\([^)]{0,40}\))?!?:\s")
CONVENTIONAL_KINDS = frozenset(
    "feat feature fix bugfix docs doc test tests chore ci build refactor style perf revert deps "
    "release lint types typing security".split())
_BRACKET_TAG = re.compile(r"^\s*\[([\w -]{1,20})\]")

# What a changed path is, first match wins (code is anything else).
_PATH_KINDS = (
    ("types", re.compile(r"\.d\.[cm]?ts$|\.pyi$|(?:^|/)py\.typed$", re.I)),  # typing only
    ("ci", re.compile(r"(?:^|/)(?:\.github|\.circleci|\.ci|ci)/|(?:^|/)(?:\.travis\.ya?ml"
                      r"|appveyor\.ya?ml|\.gitlab-ci\.ya?ml|azure-pipelines\.ya?ml|Jenkinsfile"
                      r"|codecov\.ya?ml|\.pre-commit-config\.ya?ml|tox\.ini|noxfile\.py)$", re.I)),
    ("tests", re.compile(r"(?:^|/)(?:tests?|testing|spec|specs|__tests__|testdata|fixtures)/"
                         r"|(?:^|/)test_[^/]*$|_tests?\.\w+$|\.(?:test|spec)\.\w+$"
                         r"|(?:^|/)conftest\.py$|Test\.java$|Tests?\.\w+$", re.I)),
    ("docs", re.compile(r"(?:^|/)(?:docs?|documentation|examples?|man|website|site|artwork)/"
                        r"|\.(?:rst|md|markdown|txt|adoc|png|jpe?g|gif|svg|ico)$"
                        r"|(?:^|/)(?:README|CHANGES|CHANGELOG|HISTORY|NEWS|AUTHORS|CONTRIBUTORS"
                        r"|CONTRIBUTING|LICENSE|NOTICE|COPYING|CODE_OF_CONDUCT)[^/]*$", re.I)),
    ("packaging", re.compile(r"(?:^|/)(?:setup\.py|setup\.cfg|pyproject\.toml|MANIFEST\.in"
                             r"|requirements[^/]*\.txt|package(?:-lock)?\.json|yarn\.lock"
                             r"|Cargo\.(?:toml|lock)|go\.(?:mod|sum)|Gemfile(?:\.lock)?"
                             r"|[^/]*\.gemspec|pom\.xml|build\.gradle[^/]*|Makefile|CMakeLists\.txt"
                             r"|[^/]*\.lock|\.[\w.-]+)$", re.I)),
)


@dataclass(frozen=True)
class CommitKind:
    """What a sentence's commit is, as far as the classifier cares."""

    prefix: str = ""  # conventional type of the subject ("docs", "fix"), "" when none
    touched: frozenset[str] = frozenset()  # path kinds: code types docs tests ci packaging
    shape: str = "plain"  # plain | squash (subject ends "(#N)") | merge (a merged PR)
    subject: str = ""  # the cleaned subject, to spot body sentences that only repeat it


@lru_cache(maxsize=8_192)
def path_kind(path: str) -> str:
    """Cached: a commit's paths are asked for its units, its record and its housekeeping check
    (redis: 55,105 calls for 2,566 distinct paths)."""
    for name, pattern in _PATH_KINDS:
        if pattern.search(path):
            return name
    return "code"


def conventional_prefix(subject: str) -> str:
    """``"docs(api): x"`` → ``"docs"``; ``"[ci] x"`` → ``"ci"``; anything else ``""``."""
    match = _CONVENTIONAL.match(subject)
    if match:
        for group in (match.group(2), match.group(1)):
            if group and group.lower() in CONVENTIONAL_KINDS:
                return _canonical_kind(group.lower())
    tag = _BRACKET_TAG.match(subject)
    if tag and tag.group(1).lower() in CONVENTIONAL_KINDS:
        return _canonical_kind(tag.group(1).lower())
    return ""


def _canonical_kind(kind: str) -> str:
    return {"feature": "feat", "bugfix": "fix", "doc": "docs", "tests": "test",
            "typing": "types"}.get(kind, kind)


def commit_kind(subject: str, paths: Iterable[str], pr: int | None, merge: bool,
                clean_subject: str = "") -> CommitKind:
    touched = frozenset(path_kind(p) for p in paths)
    shape = "merge" if merge else ("squash" if pr is not None else "plain")
    return CommitKind(conventional_prefix(subject), touched, shape, clean_subject)


def words(text: str) -> list[str]:
    """Folded word tokens of a sentence (see the module docstring)."""
    out = []
    for token in _TOKEN.findall(text):
        bare = token.rstrip(".:/-")
        if _ERROR_NAME.match(bare):
            out.append("<error>")
        elif _VERSION.match(bare):
            out.append("<version>")
        elif _NUMBER.match(bare):
            out.append("<number>")
        elif _IDENT.search(bare) and len(bare) > 1:
            out.append("<ident>")
        else:
            out.append(stem(bare.lower()))
    return out


def stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def sentence_features(sentence: str, *, from_subject: bool, index: int,
                      kind: CommitKind) -> set[str]:
    """The feature names of one cleaned sentence in its commit."""
    feats = set(_text_features(sentence))
    where = "subject" if from_subject else "body"
    feats.add(f"pos:{where}")
    feats.add(f"pos:{where}:{min(index, 4)}")
    _kind_features(sentence, from_subject, kind, feats)
    return feats


@lru_cache(maxsize=16_384)
def _text_features(sentence: str) -> tuple[str, ...]:
    """The features of the sentence's own text (cached: a commit's sentences are classified
    for its units and again, up to ``pipeline.records``' two windows of commits later, for the
    decision record its work becomes; kept as tuples, a third of a frozenset's memory)."""
    feats = {"bias"}
    tokens = words(sentence)
    feats.update(f"w:{t}" for t in tokens)
    feats.update(f"b:{a}_{b}" for a, b in zip(tokens, tokens[1:]))
    if tokens:
        feats.add(f"first:{tokens[0]}")
        if len(tokens) > 1:
            feats.add(f"first2:{tokens[0]}_{tokens[1]}")
    _cue_features(sentence, feats)
    _shape_features(sentence, tokens, feats)
    return tuple(sys.intern(f) for f in feats)  # the cached features share their strings


_CUES = (("cause", cues.CAUSE), ("decision", cues.DECISION), ("rejected", cues.REJECTED),
         ("replaced", cues.REPLACED), ("trivial", cues.TRIVIAL), ("before", cues.BEFORE),
         ("resolution", heuristics.RESOLUTION))
# Every regex _cue_features may search, for one literal scan per sentence (knowledge.prefilter)
_PREFILTER = Prefilter([*(row.pattern for row in heuristics.HEURISTICS if row.pattern),
                        *heuristics.PREDICATE_PATTERNS, heuristics.NAMED_FAILURE,
                        heuristics.NEGATIVE, *(pattern for _, pattern in _CUES)])
_FIRST_WORD = re.compile(r"[A-Za-z']+")


def _cue_features(sentence: str, feats: set[str]) -> None:
    veto = heuristics.vetoed(sentence)
    if veto:
        feats.add(f"veto:{veto}")
    search = _PREFILTER.matches(sentence).__contains__  # as bool(pattern.search(sentence))
    for row in heuristics.HEURISTICS:
        if row.fires(sentence, search):
            feats.add(f"rule:{row.name}")
            feats.add(f"rule-type:{row.type}")
    if search(heuristics.NAMED_FAILURE):
        feats.add("cue:named-failure")
    if search(heuristics.NEGATIVE):
        feats.add("cue:negative")
    for name, pattern in _CUES:
        if search(pattern):
            feats.add(f"cue:{name}")
    first = _FIRST_WORD.search(sentence[:60])
    if first and first[0].lower() in cues.ACTION_VERBS:
        feats.add("cue:action-verb")
    if not is_substantive(sentence):
        feats.add("cue:not-substantive")


def _shape_features(sentence: str, tokens: list[str], feats: set[str]) -> None:
    n = len(tokens)
    feats.add("len:" + ("1-3" if n <= 3 else "4-6" if n <= 6 else "7-12" if n <= 12
                        else "13-25" if n <= 25 else "26+"))
    stripped = sentence.rstrip()
    if stripped.endswith("?"):
        feats.add("end:question")
    elif stripped.endswith(":"):
        feats.add("end:colon")
    elif not stripped.endswith((".", "!", ")", '"', "'")):
        feats.add("end:none")
    if sentence[:1].islower():
        feats.add("start:lower")
    if _PRONOUN_START.match(sentence):
        feats.add("start:pronoun")
    if any(t in ("<ident>", "<error>") for t in tokens):
        feats.add("has:code")


def _kind_features(sentence: str, from_subject: bool, kind: CommitKind, feats: set[str]) -> None:
    feats.add(f"commit:{kind.shape}")
    if kind.prefix:
        feats.add(f"prefix:{kind.prefix}")
    touched = kind.touched or frozenset({"none"})
    for name in touched:
        feats.add(f"files:{name}")
    if "code" not in touched:
        feats.add("files:no-code")
        if len(touched) == 1:
            feats.add(f"files:only-{next(iter(touched))}")
    if not from_subject and kind.subject and _same(sentence, kind.subject):
        feats.add("repeats-subject")


def _same(a: str, b: str) -> bool:
    norm = lambda s: re.sub(r"\W+", " ", s.lower()).strip()  # noqa: E731
    return norm(a) == norm(b)
