"""What one file change did to one definition, from its removed and added lines (a
``tracking.Touch``): nothing, a reformat (``formatting``), its ``signature`` or its ``body``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from whylens.models import FORMATTING_KIND
from whylens.symbols.formatting import formatting_only, raw_tokens, strip_comments, typing_only

if TYPE_CHECKING:
    from whylens.symbols.tracking import Touch


def classify(language: str, touch: Touch) -> str | None:
    """``signature``, ``body``, ``formatting`` or None (blank lines and comments only).

    The definition's removed and added lines are compared whole first (a reformat may move text
    between header and body); only a substantive change is then placed, in the header or not."""
    old_header, new_header = b"".join(touch.old_header), b"".join(touch.new_header)
    old_body, new_body = b"".join(touch.old_body), b"".join(touch.new_body)
    old, new = old_header + old_body, new_header + new_body
    if old == new:
        return None
    if formatting_only(language, old, new):
        return None if _layout(language, old) == _layout(language, new) else FORMATTING_KIND
    if language == "python" and _may_be_annotations(old, new) and typing_only(language, old, new):
        return FORMATTING_KIND
    header = old_header != new_header and not formatting_only(language, old_header, new_header)
    return "signature" if header else "body"


def _may_be_annotations(old: bytes, new: bytes) -> bool:
    """Cheap necessary condition for an annotation-only change: the (dotted) names that appear
    on one side only, comments aside, all look like types (``Optional``, ``t.Any``, ``int``)."""
    old, new = strip_comments("python", old), strip_comments("python", new)
    changed = set(_DOTTED.findall(old)) ^ set(_DOTTED.findall(new))
    return all(name.rsplit(b".", 1)[-1][:1].isupper() or name in _TYPE_NAMES
               for name in changed)


_DOTTED = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_TYPE_NAMES = frozenset({b"int", b"str", b"bytes", b"float", b"bool", b"complex", b"list",
                         b"dict", b"tuple", b"set", b"frozenset", b"type", b"object", b"typing",
                         b"t", b"annotations", b"__future__", b"cast", b"overload", b"import",
                         b"from", b"callable", b"bytearray", b"memoryview", b"range"})


def _layout(language: str, text: bytes) -> list[bytes]:
    """Tokens before normalisation: equal when only comments and blanks differ."""
    return [t for t, _ in raw_tokens(language, text)]
