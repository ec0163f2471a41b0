"""Byte → code-point columns with emoji (4 UTF-8 bytes, 2 UTF-16 units) and accented letters."""

from __future__ import annotations

import pytest

from whylens.symbols.outline import outline
from whylens.symbols.positions import utf8_col_to_str

LINE = 'x = "😀é"; call(y)'  # 😀: 4 bytes / 2 units; é: 2 bytes / 1 unit


@pytest.mark.parametrize("str_col", range(len(LINE) + 1))
def test_round_trips_through_bytes(str_col):
    byte_col = len(LINE[:str_col].encode("utf-8"))
    assert utf8_col_to_str(LINE.encode("utf-8"), byte_col) == str_col
    assert utf8_col_to_str(LINE, byte_col) == str_col  # str input is accepted too


def test_known_columns():
    raw = LINE.encode("utf-8")
    call = LINE.index("call")
    assert call == 10
    assert raw.index(b"call") == 14  # 3 extra bytes for the emoji, 1 for é
    assert utf8_col_to_str(raw, 14) == 10


def test_inside_a_character_rounds_down_and_past_the_end_clamps():
    raw = LINE.encode("utf-8")
    emoji_start = raw.index("😀".encode("utf-8"))
    for inside in range(emoji_start + 1, emoji_start + 4):
        assert utf8_col_to_str(raw, inside) == LINE.index("😀")
    assert utf8_col_to_str(raw, 10_000) == len(LINE)
    assert utf8_col_to_str(raw, -3) == 0


def test_ascii_and_invalid_utf8():
    assert utf8_col_to_str(b"plain text", 5) == 5
    bad = b"\xff\xfeab"  # two invalid bytes decode to two replacement characters
    assert utf8_col_to_str(bad, 3) == len(bad[:3].decode("utf-8", "replace"))


def test_symbol_name_columns_are_code_points():
    source = 'CONST = "😀é"\nclass Café:\n    def naïve(self): return "😀"\n'.encode("utf-8")
    symbols = {s.name: s for s in outline(source, "python")}
    lines = source.decode("utf-8").splitlines()
    cafe = symbols["Café"]
    assert (cafe.name_line, cafe.name_col, cafe.name_end_col) == (2, 6, 10)
    assert lines[1][cafe.name_col:cafe.name_end_col] == "Café"
    method = symbols["Café.naïve"]
    assert lines[2][method.name_col:method.name_end_col] == "naïve"


def test_symbol_after_an_emoji_on_the_same_line():
    source = 'const s = "😀😀"; function après() { return 1 }\n'.encode("utf-8")
    (symbol,) = outline(source, "javascript")
    line = source.decode("utf-8")
    assert symbol.name == "après"
    assert line[symbol.name_col:symbol.name_end_col] == "après"
    assert len(line[:symbol.name_col].encode("utf-16-le")) // 2 == symbol.name_col + 2  # in LSP units
