"""index.prose: the text search indexes and quotes keeps what people type and paste."""

from __future__ import annotations

from whylens.index.prose import search_prose, sentences


def test_code_spans_brackets_and_leading_dots_are_kept_as_text():
    body = ("Call `Session.send()` with `timeout=(3, 27)`; a `List<String>` header broke "
            "`.json()` on empty bodies.")
    prose = search_prose(body)
    assert "Session.send()" in prose and "timeout=(3, 27)" in prose
    assert "List<String>" in prose and " .json()" in prose
    assert "`" not in prose


def test_the_error_line_of_a_pasted_traceback_is_kept_and_the_frames_go():
    body = """Reading a netrc file crashed:

    Traceback (most recent call last):
      File "requests/utils.py", line 12, in get_netrc_auth
        netrc_path = os.path.expanduser(f)
    KeyError: 'HOME'

Guard the lookup."""
    prose = search_prose(body)
    assert "KeyError: 'HOME'" in prose
    assert "expanduser" not in prose and "Traceback" not in prose
    assert prose.splitlines() == ["Reading a netrc file crashed:", "KeyError: 'HOME'",
                                  "Guard the lookup."]


def test_fenced_blocks_keep_only_their_error_lines():
    body = "Fix the parser.\n\n```\n$ jq .\npanic: runtime error: index out of range\nfoo()\n```\n"
    prose = search_prose(body)
    assert "panic: runtime error: index out of range" in prose and "foo()" not in prose


def test_trailers_templates_comments_and_urls_go():
    body = """Keep the query string on redirects.

<!-- Thank you for your contribution! Please describe your change. -->
## Description
- [x] I added tests
See [the RFC](https://example.com/rfc) and https://example.com/x for details.

Signed-off-by: Ada <ada@example.com>
Former-commit-id: 0123456789abcdef0123456789abcdef01234567
Co-authored-by: Bob <bob@example.com>"""
    prose = search_prose(body)
    assert "Keep the query string on redirects." in prose
    assert "See the RFC and for details." in prose
    for gone in ("Signed-off-by", "Former-commit-id", "Co-authored", "Thank you", "Description",
                 "I added tests", "https://"):
        assert gone not in prose


def test_issue_numbers_stay_searchable():
    assert "#4716" in search_prose("The header leaked on the wire (#4716).")


def test_sentences_are_the_subject_then_the_prose_one_per_line():
    out = sentences("Fix `send` on redirect", search_prose(
        "The pool leaked. It hung after 300 requests.\n\n- retries now release it"))
    assert out == ["Fix send on redirect", "The pool leaked.", "It hung after 300 requests.",
                   "retries now release it"]


def test_empty_and_huge_bodies():
    assert search_prose("") == "" and sentences("", "") == []
    assert len(search_prose("word " * 100_000)) <= 8_000
