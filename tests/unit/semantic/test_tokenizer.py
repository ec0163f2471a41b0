"""The pure-Python WordPiece tokenizer against ids the reference tokenizer (``tokenizers`` with
all-MiniLM-L6-v2's tokenizer.json) produced for the same strings."""

from __future__ import annotations

import pytest

from whylens.semantic.table import DATA_DIR
from whylens.semantic.tokenizer import WordPieceTokenizer, split_identifiers

REFERENCE = [  # text, ids with [CLS] … [SEP], from tokenizers 0.23.3
    ("Strip Authorization header whenever root URL changes",
     [101, 6167, 20104, 20346, 7188, 7117, 24471, 2140, 3431, 102]),
    ("Café naïve résumé", [101, 7668, 15743, 13746, 102]),
    ("ΟΔΟΣ", [101, 1169, 29722, 29730, 29733, 102]),  # no final-sigma rule
    ("中文 text", [101, 1746, 1861, 3793, 102]),
    ("x" * 101, [101, 100, 102]),  # longer than 100 characters: one [UNK]
    ("[CLS] literal [MASK]", [101, 101, 18204, 103, 102]),
    ("HTTPAdapter.send(url, **kwargs)",
     [101, 8299, 8447, 13876, 2121, 1012, 4604, 1006, 24471, 2140, 1010, 1008, 1008, 6448, 2906,
      5620, 1007, 102]),
    ("getURLForName", [101, 2131, 3126, 10270, 9691, 14074, 102]),
    ("get URL For Name", [101, 2131, 24471, 2140, 2005, 2171, 102]),
    ("tab\there\x00\u200bok", [101, 21628, 2182, 6559, 102]),  # controls and format chars dropped
]


@pytest.fixture(scope="module")
def tokenizer() -> WordPieceTokenizer:
    return WordPieceTokenizer.from_file(DATA_DIR / "vocab.txt")


@pytest.mark.parametrize(("text", "ids"), REFERENCE, ids=lambda v: repr(v)[:30])
def test_ids_match_the_reference_tokenizer(tokenizer, text, ids):
    assert tokenizer.encode(text, special=True) == ids


def test_truncation_keeps_the_special_tokens(tokenizer):
    ids = tokenizer.encode("word " * 50, special=True, max_length=8)
    assert len(ids) == 8 and ids[0] == tokenizer.cls_id and ids[-1] == tokenizer.sep_id


def test_pieces_read_back_as_words(tokenizer):
    assert tokenizer.tokenize("Unbuffered streaming") == ["un", "##bu", "##ffer", "##ed", "streaming"]
    # why code names are split first: lowercased whole, they become meaningless pieces
    assert tokenizer.tokenize("getURLForName") == ["get", "##ur", "##lf", "##orn", "##ame"]
    assert tokenizer.tokenize(split_identifiers("getURLForName")) == ["get", "ur", "##l", "for", "name"]


def test_split_identifiers_splits_code_names_only():
    assert split_identifiers("call getURLForName on HTTPAdapter") == \
        "call get URL For Name on HTTP Adapter"
    assert split_identifiers("res.sendFile and snake_case") == "res.send File and snake_case"
    assert split_identifiers("Plain Words, UPPER and v1.2") == "Plain Words, UPPER and v1.2"


def test_a_vocabulary_without_special_tokens_is_refused():
    with pytest.raises(ValueError, match=r"\[UNK\]"):
        WordPieceTokenizer(["[PAD]", "a", "b"])
