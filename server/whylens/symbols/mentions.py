"""The identifiers of a definition's changed lines: what a commit message may name when it
speaks of that definition and not of the others its commit changed (``knowledge.ties``).

Comment lines and trailing comments are left out (their words are prose, not names), and only
identifiers of 3 characters or more are kept, at most ``MAX_NAMES`` of them per definition.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from whylens.symbols.tracking import Touch

MAX_NAMES = 64
_IDENTIFIER = re.compile(rb"[A-Za-z_$][\w$]{2,}")
_COMMENT_LINE = re.compile(rb"^\s*(?:#|//|/\*|\*|--|;|\"\"\"|''')")
_TRAILING_COMMENT = re.compile(rb"\s(?://|#)\s.*$")


def changed_names(lines: Iterable[bytes]) -> frozenset[str]:
    """The identifiers of ``lines`` (removed and added lines of one definition), in order of
    first appearance, capped."""
    seen: dict[str, None] = {}
    for line in lines:
        if _COMMENT_LINE.match(line):
            continue
        code = _TRAILING_COMMENT.sub(b"", line)
        for match in _IDENTIFIER.finditer(code):
            seen.setdefault(match.group().decode("ascii"), None)
            if len(seen) >= MAX_NAMES:
                return frozenset(seen)
    return frozenset(seen)


def touched_names(touch: Touch) -> frozenset[str]:
    """The identifiers of one definition's removed and added lines (header and body)."""
    return changed_names(touch.old_header + touch.new_header + touch.old_body + touch.new_body)
