"""A definition's body as the matcher compares it (``matching.Body``: squeezed when first needed):
from a file's lines, from a parsed old version, or cut from the hunk that added it."""

from __future__ import annotations

from collections.abc import Callable

from whylens.symbols.formatting import squeeze
from whylens.symbols.hunks import HunkText
from whylens.symbols.matching import Body
from whylens.symbols.tracking import FileState, span_text


def body_of(lines: Callable[[], list[bytes]], state: FileState, index: int) -> Body:
    """The body of definition ``index`` of ``state``, from the lines ``lines()`` gives."""
    language = state.language
    return Body(lambda: squeeze(language, span_text(lines(), state.spans[index])))


def old_body(language: str, lines: list[bytes], state: FileState, index: int) -> Body:
    """The body of a definition of a parsed old version, squeezed when first needed."""
    return Body(lambda: squeeze(language, span_text(lines, state.spans[index])))


def born_body(texts: list[HunkText], state: FileState, index: int) -> Body:
    """The body of a span whose lines one hunk added, cut from that hunk."""
    span = state.spans[index]

    def make() -> bytes:
        for hunk in texts:
            if hunk.new_start <= span.start < hunk.new_start + hunk.new_count:
                lines = [b""] * (hunk.new_start - 1) + list(hunk.added)
                return squeeze(state.language, span_text(lines, span))
        return b""

    return Body(make)
