"""retrieval.lexicon: foreign words are in no document as typed and in no everyday English."""

from __future__ import annotations

import pytest

from whylens.retrieval.lexicon import is_english, is_foreign


@pytest.mark.parametrize("word", ["zstd", "GraphQL", "WebSocket", "JWT", "brotli", "sourdough"])
def test_names_of_things_and_jargon_are_foreign_when_no_document_holds_them(word):
    assert is_foreign(word, 0)
    assert not is_foreign(word, 3)  # the history speaks of it: not foreign here


@pytest.mark.parametrize("word", ["truncates", "floor", "capital", "maximum", "exceeded"])
def test_everyday_english_is_never_foreign(word):
    assert is_english(word) and not is_foreign(word, 0)


@pytest.mark.parametrize("word", ["url.ParseQuery", "1.22", "9421", "res_json", "TLSv1.3"])
def test_code_versions_and_numbers_are_never_foreign(word):
    assert not is_foreign(word, 0)


@pytest.mark.parametrize("word", ["HTTP/3", "HTTP/2"])
def test_a_protocol_version_no_document_names_is_foreign(word):
    """ "HTTP/3" is one word in the index (``http3``), not code: a history that never names it
    never did it ("can requests talk HTTP/3?")."""
    assert is_foreign(word, 0)
    assert not is_foreign(word, 2)
