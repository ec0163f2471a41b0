"""A file's outline: its definitions with qualified names, and lookups over it.

``outline`` never raises: an unsupported language, a grammar that fails to load or garbage input
all give what parsed, or ``[]``. Symbols come outer before inner, in source order.
"""

from __future__ import annotations

from collections.abc import Sequence

from whylens.models import Symbol
from whylens.symbols.extract import parse_outline
from whylens.symbols.naming import without_receiver_marks
from whylens.symbols.parse import supported


def outline(source: bytes, language: str | None) -> list[Symbol]:
    """The definitions in ``source`` (``str`` is accepted and encoded as UTF-8)."""
    if not supported(language):
        return []
    if isinstance(source, str):
        source = source.encode("utf-8", "surrogatepass")
    if not isinstance(source, (bytes, bytearray, memoryview)):
        return []
    return parse_outline(bytes(source), language).symbols


def symbol_at(symbols: Sequence[Symbol], line: int) -> Symbol | None:
    """The innermost symbol whose lines cover the 1-based ``line``, or None."""
    best = None
    for symbol in symbols:
        if symbol.start_line <= line <= symbol.end_line:
            if best is None or (symbol.end_line - symbol.start_line
                                <= best.end_line - best.start_line):
                best = symbol
    return best


def find(symbols: Sequence[Symbol], name: str) -> Symbol | None:
    """The symbol named exactly ``name``, else the only one whose name ends in ``.name``.

    ``send`` finds ``Session.send`` when no other ``*.send`` exists; an ambiguous suffix gives
    None (the caller asks for a fuller name). Go's ``Serve`` finds ``(*Server).Serve``, and so
    does ``Server.Serve`` (the way Go's documentation names a method).
    """
    if not name:
        return None
    for symbol in symbols:
        if symbol.name == name:
            return symbol
    plain = without_receiver_marks(name)
    plains = [(s, without_receiver_marks(s.name)) for s in symbols]
    same = [s for s, p in plains if p == plain]
    if len(same) == 1:
        return same[0]
    suffix = "." + plain.lstrip(".")
    matches = [s for s, p in plains if p.endswith(suffix)]
    return matches[0] if len(matches) == 1 else None
