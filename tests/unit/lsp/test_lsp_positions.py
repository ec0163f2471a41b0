"""Client units ↔ str columns, through pygls's codec, on lines with emoji and accents."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from whylens.lsp import positions
from whylens.models import Symbol

LINES = ['s = "😋"; t = "é"\n', "def émoji_😋_name(): pass\n", "\n"]


@pytest.mark.parametrize(
    ("encoding", "client_col", "str_col"),
    [
        pytest.param(types.PositionEncodingKind.Utf16, 7, 6, id="utf16-after-emoji"),
        pytest.param(types.PositionEncodingKind.Utf8, 9, 6, id="utf8-after-emoji"),
        pytest.param(types.PositionEncodingKind.Utf32, 6, 6, id="utf32"),
    ],
)
def test_round_trip_after_an_emoji(encoding, client_col, str_col):
    codec = PositionCodec(encoding)
    pos = types.Position(line=0, character=client_col)
    assert positions.to_server(codec, LINES, pos) == (1, str_col)
    assert pos.character == client_col  # the caller's position is not mutated
    assert positions.to_client(codec, LINES, 1, str_col) == types.Position(line=0, character=client_col)


def test_name_range_in_utf16():
    codec = PositionCodec(types.PositionEncodingKind.Utf16)
    # "émoji_😋_name": str columns 4..17, the emoji counts twice in UTF-16
    symbol = Symbol("émoji_😋_name", "function", 2, 2, name_line=2, name_col=4, name_end_col=17)
    assert positions.name_range(codec, LINES, symbol) == types.Range(
        start=types.Position(line=1, character=4), end=types.Position(line=1, character=18))


def test_positions_beyond_the_document_are_clamped():
    codec = PositionCodec()
    assert positions.to_server(codec, LINES, types.Position(line=99, character=0))[0] == 3
    assert positions.to_server(codec, LINES, types.Position(line=0, character=999)) == (1, 16)


def test_line_range_excludes_the_newline():
    codec = PositionCodec()
    assert positions.line_range(codec, LINES, 1).end == types.Position(line=0, character=17)
