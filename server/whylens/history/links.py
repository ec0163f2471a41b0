"""References inside commit prose, and web URLs of a hosted repository.

Pure text functions: no git, no GitPython (safe to import from any layer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

# "Merge pull request #123 from owner/branch" (GitHub), "Merged in x (pull request #12)"
# (Bitbucket), a squash subject ending "(#123)", and GitLab's "See merge request group/proj!12".
_MERGE_PR = re.compile(r"^Merge pull request #(\d+)\b", re.I)
_BITBUCKET_PR = re.compile(r"\(pull request #(\d+)\)\s*$", re.I)
_SQUASH_PR = re.compile(r"\(#(\d+)\)\s*$")
_GITLAB_MR = re.compile(r"^See merge request\s+\S*!(\d+)\s*$", re.I | re.M)

_REF = r"(?:(?:[\w.-]+/[\w.-]+)?#\d+|https?://[^\s)>\]]+/(?:issues|pull|pulls|merge_requests)/\d+)"
_CLOSING = re.compile(
    r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?\s+"
    rf"({_REF}(?:\s*(?:,|and|,\s*and)\s*{_REF})*)",
    re.I,
)
_REF_NUMBER = re.compile(r"(?:#|/(?:issues|pull|pulls|merge_requests)/)(\d+)")
_ISSUE_REF = re.compile(
    r"(?<![\w&/#])(?:[\w.-]+/[\w.-]+)?#(\d+)\b"  # #12, owner/repo#12 (not C#1, &#12;)
    r"|\bGH-(\d+)\b"
    r"|https?://[^\s)>\]]+/(?:issues|pull|pulls|merge_requests)/(\d+)\b",
)
# A sha as people write one: 7-40 hex digits with at least one digit ("deadbeef" is a word).
_SHA = r"(?=[0-9a-f]{0,39}\d)[0-9a-f]{7,40}"
_SHA_LIST = rf"{_SHA}(?:(?:\s*,\s*|\s+and\s+|\s*,\s*and\s+|\s*&\s*){_SHA})*"
# "This reverts commit <sha>", "revert 1a2b3c4d and 5e6f7a8b", "partially revert <sha>",
# "Reverts commits abc1234, def5678", "reverted in/by" is not it (that names the reverting one).
_REVERTS = re.compile(
    rf"\b(?:this\s+(?:partially\s+)?reverts?|(?:partial(?:ly)?\s+)?revert(?:s|ed|ing)?"
    rf"(?:\s+of)?)\s+(?:(?:the\s+)?(?:commits?|changes?\s+(?:in|from|of))\s+)?({_SHA_LIST})\b", re.I)
_SHA_IN_LIST = re.compile(_SHA, re.I)
# "Revert #3362", "reverting 3362", "Revert PR 12", "revert pull request #9"; and the branch GitHub's
# revert button makes: "Merge pull request #3400 from psf/revert-3362-fix-proxy".
_REVERTS_PR = re.compile(
    r"\b(?:partial(?:ly)?\s+)?revert(?:s|ed|ing)?(?:\s+of)?\s+"
    r"(?:(?:the\s+)?(?:pr|pull\s+request|issue|merge\s+request|mr)\s*#?(\d{1,7})"
    r"|(?:[\w.-]+/[\w.-]+)?#(\d{1,7})"
    r"|(\d{3,7})(?!\s+(?:commits?|changes?|lines?|files?|times?|tests?|bytes?|ms|seconds?|minutes?"
    r"|hours?|days?|%)))\b(?![.\d])", re.I)
_REVERT_BRANCH = re.compile(r"^Merge pull request #\d+ from [\w.-]+/revert-(\d+)-", re.I)
_REVERT_SUBJECT = re.compile(r'^Revert\s+"(.*)"\s*$', re.S)
# Unquoted: "Revert Use a pool", "Revert: use a pool", "Reverting 'use a pool'", "Revert `x`".
_REVERT_LOOSE = re.compile(
    r"""^(?:partial(?:ly)?\s+)?revert(?:s|ed|ing)?\b[\s:-]+(?:the\s+)?(?:commit\s+)?["'`“‘]?(.+?)["'`”’]?\s*$""",
    re.I | re.S)


def pr_number(subject: str, body: str = "") -> int | None:
    """The pull/merge request a merge or squash commit came from, or None."""
    subject = subject.strip()
    # Cheap guards first: this runs once per commit of the history.
    patterns = (_BITBUCKET_PR, _SQUASH_PR) if subject.endswith(")") else ()
    if subject[:5].lower() == "merge":
        patterns = (_MERGE_PR, *patterns)
    for pattern in patterns:
        m = pattern.search(subject)
        if m:
            return int(m.group(1))
    m = _GITLAB_MR.search(body) if body and "merge request" in body else None
    return int(m.group(1)) if m else None


def _unique(numbers) -> list[int]:
    return list(dict.fromkeys(numbers))


def closing_refs(text: str) -> list[int]:
    """Issues a message closes: ``fixes #1``, ``closes owner/repo#2``, ``resolves <issue URL>``."""
    found: list[int] = []
    for m in _CLOSING.finditer(text):
        found.extend(int(n) for n in _REF_NUMBER.findall(m.group(1)))
    return _unique(found)


def issue_refs(text: str) -> list[int]:
    """Every issue or PR number mentioned (``#12``, ``owner/repo#12``, ``GH-12``, URLs)."""
    return _unique(int(next(g for g in m.groups() if g)) for m in _ISSUE_REF.finditer(text))


def reverted_shas(text: str) -> list[str]:
    """Shas a message says it reverts, as written (may be abbreviated): ``This reverts commit
    <sha>``, ``revert <sha> and <sha>``, ``partially revert <sha>``, ``Reverts commits a, b``."""
    found: list[str] = []
    for group in _REVERTS.findall(text):
        found.extend(s.lower() for s in _SHA_IN_LIST.findall(group))
    return list(dict.fromkeys(found))


def reverted_numbers(subject: str, body: str = "") -> list[int]:
    """PR or issue numbers a message says it reverts: ``Revert #3362``, ``reverting 3362``, or
    a merge of GitHub's ``revert-3362-…`` branch."""
    found = [int(n) for n in _REVERT_BRANCH.findall(subject.strip())]
    for text in (subject, body):
        found.extend(int(next(g for g in groups if g)) for groups in _REVERTS_PR.findall(text))
    return _unique(found)


def revert_subject(subject: str) -> str | None:
    """The subject a revert names: ``Revert "<subject>"``, or unquoted (``Revert <subject>``,
    ``Revert: <subject>``, ``Reverting '<subject>'``); None when it is not a revert. The caller
    matches it against earlier subjects, so a loose reading finds nothing it should not."""
    subject = subject.strip()
    m = _REVERT_SUBJECT.match(subject)
    if m:
        return m.group(1)
    m = _REVERT_LOOSE.match(subject)
    return m.group(1).strip() if m and m.group(1).strip() else None


# -- web links -------------------------------------------------------------------------------

_KINDS = ("github", "gitlab", "bitbucket")
_SCP_LIKE = re.compile(r"^(?:[\w.+-]+@)?([\w.-]+):(?!//)(.+)$")  # git@host:owner/repo.git


@dataclass(frozen=True)
class WebLinks:
    """URLs of commits, PRs, issues and files on the repository's web host."""

    base: str  # https://github.com/owner/repo
    kind: str  # github gitlab bitbucket

    @classmethod
    def from_remote(cls, url: str) -> WebLinks | None:
        """From a remote URL in any of git's forms; None for local paths or unknown hosts."""
        host_path = _host_and_path(url.strip())
        if host_path is None:
            return None
        host, path = host_path
        kind = next((k for k in _KINDS if k in host.split(":")[0].lower()), None)
        path = path.strip("/")
        if path.endswith(".git"):
            path = path[:-4]
        if kind is None or path.count("/") < 1:
            return None
        return cls(f"https://{host}/{path}", kind)

    @classmethod
    def from_base(cls, base: str, kind: str) -> WebLinks | None:
        """Rebuild from what was stored (``base``, ``kind``); None when either is unusable."""
        if not base or kind not in _KINDS:
            return None
        return cls(base.rstrip("/"), kind)

    def commit(self, sha: str) -> str:
        middle = {"github": "commit", "gitlab": "-/commit", "bitbucket": "commits"}[self.kind]
        return f"{self.base}/{middle}/{sha}"

    def pr(self, number: int) -> str:
        middle = {"github": "pull", "gitlab": "-/merge_requests",
                  "bitbucket": "pull-requests"}[self.kind]
        return f"{self.base}/{middle}/{number}"

    def issue(self, number: int) -> str:
        middle = {"github": "issues", "gitlab": "-/issues", "bitbucket": "issues"}[self.kind]
        return f"{self.base}/{middle}/{number}"

    def file(self, path: str, sha: str, line: int | None = None) -> str:
        where = quote(path.lstrip("/"), safe="/")
        if self.kind == "bitbucket":
            url = f"{self.base}/src/{sha}/{where}"
            return f"{url}#lines-{line}" if line else url
        middle = "blob" if self.kind == "github" else "-/blob"
        url = f"{self.base}/{middle}/{sha}/{where}"
        return f"{url}#L{line}" if line else url


def _host_and_path(url: str) -> tuple[str, str] | None:
    if not url:
        return None
    if "://" in url:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https", "ssh", "git", "git+ssh", "ssh+git"):
            return None
        host = parts.hostname or ""
        # Keep an explicit web port for http(s); ssh ports say nothing about the web address.
        if parts.scheme in ("http", "https") and parts.port:
            host = f"{host}:{parts.port}"
        return (host, parts.path) if host else None  # userinfo (tokens) is dropped
    m = _SCP_LIKE.match(url)
    if m and "/" not in m.group(1):
        return m.group(1), m.group(2)
    return None
