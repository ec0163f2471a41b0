"""The analyzers, pinned by tables: input → exactly the terms the index stores."""

from __future__ import annotations

import pytest

from whylens.index.analysis import (
    TermTokenizer, author_terms, ident_tokens, path_terms, symbol_tails, text_terms, word_groups,
)

# Plain alphabetic terms are Porter-stemmed (both at index and query time, so they agree);
# terms with dots, underscores, dashes or digits are kept exactly.
IDENT_TABLE = [
    ("requests.sessions.Session.send", ["requests.sessions.session.send", "sessions.session.send",
                                        "session.send", "request", "session", "send"]),
    ("rioWriteHashIteratorCursor", ["riowritehashiteratorcursor", "rio", "write", "hash", "iter",
                                    "cursor"]),
    ("AOF_TRUNCATED", ["aof_truncated", "aof", "truncat"]),
    ("snake_case_name", ["snake_case_name", "snake", "case", "name"]),
    ("max-age", ["max-age", "max", "age"]),
    ("HTTPAdapter", ["httpadapt", "http", "adapt"]),
    ("getURLForName", ["geturlfornam", "get", "url", "for", "name"]),
    ("utf8", ["utf8", "utf"]),
    ("http2Client", ["http2client", "http", "client"]),
    ("ÉcoleNormale", ["écolenormal", "école", "normal"]),
    ("timeout", ["timeout"]),
    ("downloads", ["download"]),
    ("3f2a9bc1d", ["3f2a9bc1d"]),  # hex ids stay whole
    ("2.7.5", ["2.7.5", "7.5"]),
    # a name and its version: the name and the version number are parts ("TLS 1.1" finds it)
    ("TLSv1.1", ["tlsv1.1", "tls", "1.1"]),
    ("TLS1.2", ["tls1.2", "tls", "1.2"]),
    ("SSLv3", ["sslv3", "ssl"]),
    ("python3.11", ["python3.11", "python", "3.11"]),
    # a protocol's version after a slash is one token, the slash dropped
    ("HTTP/2", ["http2", "http"]),
    ("HTTP/1.1", ["http1.1", "http", "1.1"]),
]


@pytest.mark.parametrize("token, expected", IDENT_TABLE, ids=[t for t, _ in IDENT_TABLE])
def test_identifier_tokens(token, expected):
    assert ident_tokens(token) == expected


TEXT_TABLE = [
    ("Fix the timeout in HTTPAdapter.send when retries=0.",
     ["timeout", "httpadapter.send", "http", "adapt", "send", "retri"]),
    ("Merge pull request #123 from kennethreitz/patch-1",
     ["123", "kennethreitz", "patch-1"]),
    ("Don't use `stream=True` here", ["don", "use", "stream", "true", "here"]),
    ("", []),
    ("日本語 テキスト", ["日本語", "テキスト"]),
    ("x" * 200, []),  # base64-like runs are not words
]


@pytest.mark.parametrize("text, expected", TEXT_TABLE)
def test_text_terms_drop_boilerplate_and_keep_wholes(text, expected):
    assert list(text_terms(text)) == expected


def test_query_words_keep_identifier_structure():
    groups = word_groups("How does HTTPAdapter.send handle the timeout? timeout again")
    assert [(g.whole, g.parts) for g in groups] == [
        ("httpadapter.send", ("http", "adapt", "send")),
        ("handl", ()),
        ("timeout", ()),
        ("again", ()),
    ]
    assert word_groups("how do I fix the") == []


def test_path_terms_emit_the_file_and_its_folders():
    assert list(path_terms("./src/requests//sessions.py\nREADME.md\n")) == [
        "src/requests/sessions.py", "src/requests", "src", "README.md",
    ]


def test_symbol_tails_and_author_terms():
    assert symbol_tails("pkg.Session.send") == ["pkg.Session.send", "Session.send", "send"]
    assert symbol_tails("(*Server).Serve") == ["(*Server).Serve", "Serve"]
    assert list(author_terms("Ada  Lovelace")) == ["ada lovelace", "ada", "lovelace"]


def test_tokenizer_is_a_whoosh_analyzer_and_pickles():
    import pickle

    tokenizer = TermTokenizer("text")
    assert [t.text for t in tokenizer("Session.send hangs")] == [
        "session.send", "session", "send", "hang"]
    assert pickle.loads(pickle.dumps(tokenizer)) == tokenizer
    with pytest.raises(ValueError):
        TermTokenizer("nope")


def test_a_protocol_version_is_one_word():
    """ "HTTP/3" is not "HTTP" (which every HTTP library's history holds) and a lost "3"."""
    assert [g.whole for g in word_groups("does it speak HTTP/3 or HTTP2?")] == ["speak", "http3",
                                                                                "http2"]
    assert list(text_terms("served over HTTP/2, not 12/31")) == ["serv", "over", "http2", "http",
                                                                 "12", "31"]
