"""Which commits carry no intent: bots, releases, trivial edits, ignored revisions, bare merges.

A filtered commit stays counted in the history; it only yields no knowledge. ``classify``
returns one of ``models.SKIP_REASONS`` or None.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from whylens.history import links
from whylens.history.trailers import body_without_trailers
from whylens.models import Commit

_BOT_NAMES = re.compile(
    r"\[bot\]|\b(?:dependabot(?:-preview)?|renovate(?:-bot)?|pre-commit-ci|github-actions|"
    r"greenkeeper(?:io)?|snyk-bot|imgbot|mergify|pyup-bot|allcontributors|deepsource-autofix|"
    r"web-flow-bot|weblate)\b|bot@renovateapp\.com",
    re.I,
)
# Branches bots open PRs from; the merge commit's author is a human, its subject names the bot.
_BOT_BRANCH = re.compile(
    r"^Merge pull request #\d+ from [\w.-]+/(?:dependabot|renovate|pre-commit-ci|"
    r"greenkeeper|snyk-|imgbot|pyup-)",
    re.I,
)

# One character per repetition: `(?:[-.+]?[0-9A-Za-z]+)*` backtracks exponentially on a subject
# like "v2.0.0-alpha.1.<40 hex> fix" and hung indexing on one commit.
_VERSION = r"v?\d+(?:\.\d+)+(?:[-.+]?[0-9A-Za-z])*"
_BUMP = r"bump(?:s|ed|ing)?"
_RELEASE = re.compile(
    "|".join([
        rf"^{_VERSION}\.?$",  # "v2.34.2", "2.31.0"
        rf"^(?:release[sd]?|releasing|version|tag(?:ged|ging)?|cut)\b:?\s*(?:the\s+)?"
        rf"(?:of\s+|version\s+)?{_VERSION}\b",  # "Release 1.2.0", "Release the v0.5.0!"
        rf"^{_VERSION}\s+(?:release|released)\b",
        rf"^{_BUMP}\b.*\bfrom\s+\S+\s+to\s+\S+",  # "Bump urllib3 from 1.26 to 2.0"
        rf"^{_BUMP}\s+(?:\S+\s+)?https?://",  # "Bump https://github.com/x/y from …"
        rf"^{_BUMP}\s+(?:the\s+)?(?:package\s+|project\s+)?version\b",
        rf"^{_BUMP}\s+(?:to\s+)?{_VERSION}\b",
        r"^(?:update|updated|set|sets|change)\s+(?:the\s+)?version\s+(?:to|number)\b",
        r"^version\s+bump\b",
        r"^(?:prepare[sd]?|preparing|prep)\s+(?:for\s+)?(?:the\s+)?(?:\S+\s+)?release\b",
        r"\bfor\s+(?:the\s+)?next\s+release$",  # "Setup HISTORY for next release"
        rf"^(?:add|update|updated|write)?\s*release\s+notes?\b(?:\s+for\s+{_VERSION})?$",
        rf"^(?:add\s+|update\s+|updated\s+)?(?:the\s+)?release\s+notes?\s+for\s+{_VERSION}",
        rf"^(?:update|updated)\s+(?:changelog|history|version)\b.*\bfor\s+{_VERSION}\b",
        rf"^(?:update\s+)?changelog\s+(?:for\s+)?{_VERSION}\b",
        r"^\[?release\]?:?\s*$",
        r"^(?:chore|build)(?:\([^)]*\))?!?:\s*(?:release|bump version|prepare release)\b",
        r"^(?:chore|build)\(release\)!?:",
        # a crate or package released by name: "termcolor-0.3.3", "grep-matcher: release 0.1.3",
        # "changelog: 12.1.1", "[maven-release-plugin] prepare release gson-2.2.2"
        rf"^[A-Za-z][\w.-]{{0,40}}-{_VERSION}$",
        rf"^[\w.-]{{1,40}}:\s*(?:release|version|bump)\s+(?:to\s+)?{_VERSION}\b",
        rf"^changelog:?\s+{_VERSION}\b",
        r"^\[maven-release-plugin\]",
        r"^(?:prepare[sd]?|preparing)\s+(?:for\s+)?(?:the\s+)?next\s+development\s+iteration",
        r"^(?:increase|increment|bump|update)[sd]?\s+[\w:.]*version\.?$",  # "Increase Sinatra::VERSION."
    ]),
    re.I,
)

# Subjects that say nothing when there is no body to explain them. Matched after dropping a
# conventional-commit prefix, a trailing "(#123)" and trailing punctuation, lower-cased.
_DOC_FILES = r"(?:readme|changelog|authors|history|contributors|docs?|documentation)(?:\.\w+)?"
_A_FEW = r"(?:(?:a|an|the|some|more|small|minor|few|couple(?: of)?|unfortunate|obvious|silly)\s+)*"
_TYPO = (rf"{_A_FEW}(?:doc\s+|docs\s+|comment\s+|readme\s+)?"
         r"(?:typos?|spelling(?:\s+(?:errors?|mistakes?))?)")
_IN_FEW_WORDS = r"(?:\s+in\s+(?:the\s+)?\S+(?:\s+\S+){0,2})?"
_TRIVIAL = re.compile(
    "|".join([
        r"^(?:wip|tmp|temp|oops|fixup|squash|tidy(?: up)?|cleanup|clean ?up|clean-up|style|pep8"
        r"|flake8|misc|stuff|more|changes|update|updates|updated|fix|fixes|readme|changelog"
        r"|docs|\.+)$",
        r"^minor(?:\s+(?:fix|fixes|change|changes|edit|edits|tweak|tweaks|cleanup|update"
        r"|updates))?$",
        r"^small\s+fix(?:es)?$",
        # "fix typo", "Fixed a small typo in the Support docs", "typos fixed", "spelling"
        rf"^(?:(?:fix(?:ed|es|ing)?|correct(?:ed|s|ing)?)\s+)?{_TYPO}"
        rf"(?:(?:,|\s+and)\s+{_TYPO})?(?:\s+fix(?:ed|es)?)?{_IN_FEW_WORDS}$",
        rf"^{_TYPO}\s+(?:fix(?:ed|es)?|corrected)$",
        r"^(?:(?:fix(?:ed)?|apply|run|ran)\s+)?(?:formatting|format|reformat|reformatted|black"
        r"|isort|prettier)(?:\s+code)?$",
        r"^(?:fix(?:ed)?\s+)?lint(?:ing)?(?:\s+(?:errors|issues|warnings))?$",
        r"^(?:(?:fix(?:ed)?|remove[sd]?)\s+)?(?:trailing\s+)?whitespaces?$",
        # "Update README.md", "revised readme", "readme update"
        rf"^(?:update[sd]?|updating|revise[sd]?|edit(?:ed)?|improve[sd]?|tweak(?:ed)?)\s+"
        rf"(?:the\s+)?{_DOC_FILES}$",
        rf"^{_DOC_FILES}\s+(?:update[sd]?|tweaks?|fix(?:es)?)$",
        # a dependency moved to a version, said no more: "Bump to viper 1.8.1", "deps: qs@2.2.0",
        # "build: ejs@3.1.9", "update serde_json to 1.0.5"
        rf"^(?:bump(?:s|ed)?|update[sd]?|upgrade[sd]?)\s+(?:to\s+)?[\w@./-]+\s+(?:to\s+)?{_VERSION}$",
        rf"^(?:deps?|dev-deps|build):?\s+[\w@./-]+@{_VERSION}(?:,?\s+[\w@./-]+@{_VERSION})*$",
    ])
)
_CONVENTIONAL_PREFIX = re.compile(r"^(?:chore|style|docs|refactor|ci)(?:\([^)]*\))?!?:\s*", re.I)
_PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")


def pr_of(commit: Commit) -> int | None:
    """PR number of a merge (``Merge pull request #N``) or squash (``… (#N)``) commit."""
    return links.pr_number(commit.subject, commit.body)


def is_bot(commit: Commit) -> bool:
    if _BOT_NAMES.search(f"{commit.author} {commit.email}"):
        return True
    return commit.subject.startswith("Merge") and bool(_BOT_BRANCH.search(commit.subject))


def is_release(subject: str) -> bool:
    return bool(_RELEASE.search(subject.strip()))


def is_trivial(subject: str, body: str) -> bool:
    """A trivial subject with no body (trailers such as Signed-off-by do not count as one)."""
    if body_without_trailers(body).strip():
        return False
    text = _PR_SUFFIX.sub("", _CONVENTIONAL_PREFIX.sub("", subject.strip()))
    text = text.strip().rstrip(".!").strip().lower()
    return bool(_TRIVIAL.match(text)) or not text


_UNSET = object()


def classify(commit: Commit, ignore_revs: Collection[str] = frozenset(), pr=_UNSET) -> str | None:
    """Why ``commit`` yields no knowledge (a ``SKIP_REASONS`` value), or None if it may."""
    number = pr_of(commit) if pr is _UNSET else pr
    if commit.sha in ignore_revs:
        return "ignored"
    if is_bot(commit):
        return "bot"
    if len(commit.parents) > 1:
        return None if number is not None else "merge"
    if is_release(commit.subject):
        return "release"
    if is_trivial(commit.subject, commit.body):
        return "trivial"
    return None
