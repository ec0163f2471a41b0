"""What one file change did to one definition, from its removed and added lines (a
``tracking.Touch``): nothing, a reformat (``formatting``), its ``signature`` or its ``body``.

The changed lines alone can hide a reformat: a re-wrapped argument list whose hunk ends before
its closing bracket gains a trailing comma that, cut there, reads as a new tuple; a Python
fragment that does not parse alone falls back to tokens; a formatter that re-nests a block
leaves a closing brace that the diff pairs with another line, so the cut lines gain one brace in
one place and lose one in another; a re-wrapped doc comment's " * " lines read as code when its
opening and closing lie outside them. When the changed lines differ only in bytes formatting may
touch, brackets and braces included (``differs_beyond_brackets`` is False), but are not provably
layout, the whole definition, old and new (``Definitions``), decides: Python by AST equality,
which ignores comments and layout."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from whylens.models import FORMATTING_KIND
from whylens.symbols.annotations import typing_only
from whylens.symbols.formatting import (
    differs_beyond_brackets, formatting_only, raw_tokens, strip_comments,
)
from whylens.symbols.tracking import span_text

if TYPE_CHECKING:
    from whylens.symbols.tracking import FileState, Touch

Whole = Callable[[], "tuple[bytes, bytes] | None"]  # a definition's old and new text, if known


def classify(language: str, touch: Touch, whole: Whole | None = None) -> str | None:
    """``signature``, ``body``, ``formatting`` or None (blank lines and comments only).

    The definition's removed and added lines are compared whole first (a reformat may move text
    between header and body); only a substantive change is then placed, in the header or not.
    ``whole`` gives the whole definition, old and new, for a change its lines leave open (see
    the module docstring)."""
    old_header, new_header = b"".join(touch.old_header), b"".join(touch.new_header)
    old_body, new_body = b"".join(touch.old_body), b"".join(touch.new_body)
    old, new = old_header + old_body, new_header + new_body
    if old == new:
        return None
    if formatting_only(language, old, new):
        return _layout_kind(language, old, new)
    types = language == "python" and _may_be_annotations(old, new)
    if types and typing_only(language, old, new):
        return FORMATTING_KIND
    if whole is not None and (types or not differs_beyond_brackets(language, old, new)):
        texts = whole()
        if texts is not None and formatting_only(language, *texts):
            # the same code (the diff may have given it a neighbour's brace): judged as above
            return _layout_kind(language, *texts)
        if texts is not None and types and typing_only(language, *texts):
            return FORMATTING_KIND
    header = old_header != new_header and not formatting_only(language, old_header, new_header)
    return "signature" if header else "body"


class Definitions:
    """The whole text of a file change's definitions, old and new, read only when ``classify``
    asks (``old_source`` and ``new_lines`` are called then). ``old_index``: new span index → old
    span index; None pairs them by (name, occurrence)."""

    def __init__(self, old_source: Callable[[], bytes], old: FileState,
                 new_lines: Callable[[], list[bytes]], new: FileState,
                 old_index: dict[int, int] | None = None) -> None:
        self._old_source, self._new_lines = old_source, new_lines
        self._old, self._new = old, new
        self._old_index = old_index
        self._old_lines: list[bytes] | None = None

    def of(self, index: int) -> Whole:
        return lambda: self._texts(index)

    def _texts(self, index: int) -> tuple[bytes, bytes] | None:
        if self._old_index is None:
            old_keys = self._old.keys()
            self._old_index = {i: old_keys[k] for k, i in self._new.keys().items()
                               if k in old_keys}
        old_index = self._old_index.get(index)
        if old_index is None:
            return None
        old_span, new_span = self._old.spans[old_index], self._new.spans[index]
        if old_span.name != new_span.name:
            return None
        if self._old_lines is None:
            self._old_lines = self._old_source().splitlines(keepends=True)
        return (span_text(self._old_lines, old_span, body_only=False),
                span_text(self._new_lines(), new_span, body_only=False))


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


def _layout_kind(language: str, old: bytes, new: bytes) -> str | None:
    """For two formatting-equivalent versions: None when only comments and blanks differ, else
    ``formatting``."""
    return None if _layout(language, old) == _layout(language, new) else FORMATTING_KIND


def _layout(language: str, text: bytes) -> list[bytes]:
    """Tokens before normalisation: equal when only comments and blanks differ."""
    return [t for t, _ in raw_tokens(language, text)]
