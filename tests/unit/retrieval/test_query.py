"""retrieval.query: question scaffolding goes, identifiers, errors, versions and paths stay."""

from __future__ import annotations

import pytest

from whylens.index.analysis import word_groups
from whylens.retrieval.query import MAX_QUERY_CHARS, plan


def words(text: str) -> list[str]:
    return [g.whole for g in word_groups(plan(text).lexical)]


@pytest.mark.parametrize("question, kept", [
    ("why does requests drop my Authorization header on redirect?",
     ["drop", "author", "header", "redirect"]),
    ("what is the reason for the node: prefix in require('node:path')?",
     ["node", "prefix", "requir", "path"]),
    ("how do I keep the query string? what happened to it", ["keep", "queri", "string"]),
    ("is there a way to make Session.send() retry", ["session.send", "retri"]),
])
def test_scaffolding_goes(question, kept):
    assert words(question) == kept


@pytest.mark.parametrize("token", ["Request.__init__", "req.param", "getURLForName", "v2.31.0",
                                   "src/requests/utils.py", "ECONNRESET", "UnicodeDecodeError",
                                   "GET", "E0502", "reason_phrase"])
def test_code_like_words_are_never_dropped(token):
    assert token in plan(f"what is the reason {token} happened").lexical


def test_keywords_pass_unchanged_and_long_queries_keep_their_head():
    assert plan("ChunkedEncodingError").lexical == "ChunkedEncodingError"
    long = plan("redirect " * 2000)
    assert len(long.original) == MAX_QUERY_CHARS and long.lexical.startswith("redirect")


def test_only_scaffolding_or_punctuation_leaves_nothing_lexical():
    assert words("why does it happen? what is the reason?") == []
    assert words("?!... ---") == []
