"""Column conversion from tree-sitter's UTF-8 byte columns to code points.

tree-sitter counts UTF-8 bytes, Python ``str`` counts code points, LSP counts UTF-16 code units.
WhyLens stores code points everywhere; ``lsp/positions.py`` converts to the client's units with
pygls's position codec. Columns past the end of the line clamp to its end; a column inside a
multi-byte character rounds down to that character's start. Invalid UTF-8 counts one code point per replaced byte run,
exactly as ``bytes.decode("utf-8", "replace")`` does.
"""

from __future__ import annotations


def utf8_col_to_str(line: bytes | str, byte_col: int) -> int:
    """Code-point column of the UTF-8 byte column ``byte_col`` in ``line``."""
    if byte_col <= 0:
        return 0
    raw = line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")
    head = raw[:byte_col]
    if head.isascii():
        return len(head)
    # A column inside a multi-byte character rounds down to that character's first byte.
    end = min(byte_col, len(raw))
    for _ in range(3):
        if end >= len(raw) or (raw[end] & 0xC0) != 0x80 or end == 0:
            break
        end -= 1
    return len(raw[:end].decode("utf-8", "replace"))
