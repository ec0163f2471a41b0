"""The changelog entry a commit adds: the developer's own explanation, taken from its diff.

Many projects add a line to a changelog file in the commit that makes the change (flask's
``CHANGES.rst``, express's ``History.md``, httpx's ``CHANGELOG.md``), often with the reason the
message leaves out ("``before_first_request`` is deprecated. Run setup code when creating the
application instead."). ``entry`` reads it from the walk's ``-U0`` patch of those files:
- only pure-addition hunks (``@@ -n,0 +m,k @@``): a new entry, not the edit of an old one;
- nothing from a commit that adds more than ``MAX_ADDED_LINES`` changelog lines (a release,
  or a branch merged with its entries): that text is not this commit's;
- cleaned as commit prose is (``prose.search_prose``: list markers out, wrapped lines joined,
  code spans and links as words), rst roles as their text (also one whose opening backquote
  was lost), version and date headings and section labels out;
- at most ``MAX_CHARS``.
The text goes into the commit's search document (``commitdocs``), so the commit stays the cite.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from whylens.index.prose import search_prose
from whylens.models import FileChange

MAX_ADDED_LINES = 20
MAX_CHARS = 400
MAX_PATCH_BYTES = 200_000  # a bigger changelog patch is a release or a rewrite

_NAME = re.compile(
    r"^(?:docs?/)?(?:changes|change[-_]?log|history|news|release[-_]?notes)"
    r"(?:\.(?:md|markdown|rst|txt|rdoc))?$", re.I)
_HUNK = re.compile(rb"^@@ -\d+(?:,(\d+))? \+\d+(?:,\d+)? @@")
# rst roles (:issue:`4605`, :meth:`~flask.Flask.run`, :pr:`12`, :ref:`text <target>`)
_ROLE = re.compile(r":([\w.-]+):`~?([^`<]*?)\s*(?:<[^>`]*>)?`")
# the same with its opening backquote lost (flask's ":issue:5673`"): a role name, a word, and
# the closing backquote or the line's end
_BROKEN_ROLE = re.compile(r"(?<![\w:]):([^\W\d_][\w.-]*):~?([\w~-]+(?:\.[\w~-]+)*)`?(?=[\s.,;)]|$)")
_ISSUE_ROLES = frozenset({"issue", "pr", "pull", "gh", "ghissue", "ghpull", "bug"})
# unindented lines only: a wrapped entry's indented line may well start "released" or "2.0"
_HEADING = re.compile(
    r"^(?:#{1,6}\s.*|[-=~^*+#]{3,}\s*|(?:version\s+|v)?\d+(?:\.(?:\d+|x))+\S*(?:\s.*)?"
    r"|(?:unreleased|released?\b.*|in development|upcoming|\(?unreleased\)?:?))\s*$", re.I)
_UNDERLINE = re.compile(r"^[-=~^*+#]{3,}\s*$")  # the line above it is an rst title
# a section's label: unindented, no list marker, three words at most ("Bug fixes:",
# "**Dependencies**", "breaking:")
_SECTION = re.compile(r"^(?![-*+]\s)[*_]{0,2}[^\W\d_][\w'/-]*(?: [\w'/-]+){0,2}[*_]{0,2}:?[*_]{0,2}\s*$")
_LABEL_ITEM = re.compile(r"^\s*[-*+]\s+[^\W\d_][\w'/-]*(?: [\w'/-]+){0,2}:\s*$")  # "* breaking:"
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s")


def is_changelog(path: str) -> bool:
    """A changelog file: top level or under docs/, named CHANGES, CHANGELOG, HISTORY, NEWS or
    RELEASE NOTES (.md, .rst, .txt, .rdoc or no extension)."""
    return bool(_NAME.match(path))


def entry(changes: Iterable[FileChange]) -> str:
    """The cleaned text of the changelog lines the commit adds (see the module docstring),
    one sentence per line like ``prose.search_prose``; "" when there is none."""
    added: list[str] = []
    total = 0
    for change in changes:
        if not change.patch or change.binary or not is_changelog(change.path):
            continue
        if len(change.patch) > MAX_PATCH_BYTES:
            return ""
        pure = False
        for raw in change.patch.split(b"\n"):
            if raw.startswith(b"@@"):
                m = _HUNK.match(raw)
                pure = m is not None and m.group(1) == b"0"
            elif raw.startswith(b"+"):
                total += 1
                if pure:
                    added.append(raw[1:].decode("utf-8", "replace"))
        if total > MAX_ADDED_LINES:
            return ""
    lines = [_BROKEN_ROLE.sub(_role, _ROLE.sub(_role, line)) for i, line in enumerate(added)
             if not _HEADING.match(line) and not _RST_DIRECTIVE.match(line)
             and not _SECTION.match(line) and not _LABEL_ITEM.match(line)
             and not (i + 1 < len(added) and _UNDERLINE.match(added[i + 1]))]
    if not any(line.strip() for line in lines):
        return ""
    # dedented, so a wrapped entry's indented lines join it instead of reading as code
    text = search_prose("\n".join(line.strip() for line in lines))
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS].rsplit(" ", 1)[0]
    return text


def _role(m: re.Match) -> str:
    name, text = m.group(1).lower(), m.group(2).strip()
    if name in _ISSUE_ROLES and text.isdigit():
        return f"#{text}"
    return text
