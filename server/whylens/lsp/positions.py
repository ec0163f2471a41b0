"""The one place where ``str`` columns meet client position units (UTF-16 unless negotiated).

WhyLens works in 1-based lines and 0-based code-point columns (``models.py``); the client sends and
receives 0-based lines and columns in its negotiated encoding. pygls's position codec converts.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

from whylens.models import Symbol


def to_server(codec: PositionCodec, lines: Sequence[str], position: types.Position) -> tuple[int, int]:
    """Client position → (1-based line, 0-based str column); clamped to the document."""
    copy = types.Position(line=max(position.line, 0), character=max(position.character, 0))
    server = codec.position_from_client_units(lines, copy)
    return server.line + 1, server.character


def to_client(codec: PositionCodec, lines: Sequence[str], line: int, column: int) -> types.Position:
    """(1-based line, 0-based str column) → client position."""
    return codec.position_to_client_units(lines, ServerTextPosition(max(line - 1, 0), max(column, 0)))


def name_range(codec: PositionCodec, lines: Sequence[str], symbol: Symbol) -> types.Range:
    """The range of a symbol's bare name (its definition line when the name is unknown)."""
    line = symbol.name_line or symbol.start_line
    start, end = symbol.name_col, max(symbol.name_end_col, symbol.name_col)
    if not symbol.name_line:
        start, end = 0, len(lines[line - 1].rstrip("\r\n")) if 0 < line <= len(lines) else 0
    return types.Range(start=to_client(codec, lines, line, start),
                       end=to_client(codec, lines, line, end))


def line_range(codec: PositionCodec, lines: Sequence[str], line: int) -> types.Range:
    """A whole line (1-based) without its end-of-line characters."""
    text = lines[line - 1].rstrip("\r\n") if 0 < line <= len(lines) else ""
    return types.Range(start=types.Position(line=line - 1, character=0),
                       end=to_client(codec, lines, line, len(text)))
