"""``.gitattributes`` patterns matched against paths, as git matches them (pure, no git).

``attributes`` is what ``history.repo.Repository.gitattributes`` returns: (pattern, {attr:
value}) in precedence order, patterns relative to the repository root. A pattern without a
slash matches the file name at any depth; one with a slash matches the whole path, where ``*``
stops at ``/`` and ``**`` crosses folders. A pattern ending in ``/`` names a folder, and git
never applies those to the files inside (``vendor/**`` does that), so it matches nothing here.
Values: True (set), False (``-attr``), None (``!attr``, unspecified), or the ``attr=value`` text.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from functools import lru_cache

Attributes = Iterable[tuple[str, dict]]


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> tuple[bool, re.Pattern | None]:
    """(matches the whole path?, regex) for one pattern; regex None when it can match no file."""
    if not pattern or pattern.endswith("/"):
        return False, None
    whole_path = "/" in pattern
    pattern = pattern.lstrip("/")
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(char))
                i += 1
                continue
            body = pattern[i + 1:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        elif char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    try:
        return whole_path, re.compile("".join(out), re.DOTALL)
    except re.error:
        return whole_path, None


def matches(pattern: str, path: str) -> bool:
    """Whether the gitattributes ``pattern`` applies to the file at ``path``."""
    whole_path, regex = _compile(pattern)
    if regex is None:
        return False
    subject = path if whole_path else posixpath.basename(path)
    return regex.fullmatch(subject) is not None


def attributes_for(path: str, attributes: Attributes) -> dict:
    """The attributes in effect for ``path``: later patterns override earlier ones."""
    result: dict = {}
    for pattern, attrs in attributes:
        if matches(pattern, path):
            result.update(attrs)
    return result


def is_set(value) -> bool | None:
    """True/False for a set/unset attribute (``=true``/``=false`` too), None when unspecified."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "set", ""):
        return True
    if text in ("false", "0", "no", "unset"):
        return False
    return None
