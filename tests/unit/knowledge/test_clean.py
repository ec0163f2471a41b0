"""clean_prose: what survives of a commit message is the prose a person wrote."""

from __future__ import annotations

import pytest

from whylens.knowledge.clean import clean_inline, clean_prose, structural_paragraphs

CASES = [
    # (id, message body, expected clean prose)
    ("fenced code dropped",
     "Use a session.\n\n```python\ns = requests.Session()\ns.get(url)\n```\n\nIt pools.",
     "Use a session.\n\nIt pools."),
    ("unclosed fence drops the rest",
     "Before.\n\n~~~\ncode\nmore code", "Before."),
    ("indented code block dropped",
     "Example:\n\n    import flask\n    app = flask.Flask(__name__)\n\nThat is all.",
     "Example:\n\nThat is all."),
    ("short code span kept as a word",
     "Fixed by passing `stream=True` to `Session.send`.",
     "Fixed by passing stream=True to Session.send."),
    ("long code span dropped without placeholder",
     "Calling `requests.get(url, timeout=(3, 10), stream=True, verify=False, cert=None)` leaks.",
     "Calling leaks."),
    ("named failure in backticks kept",
     "Raises `TimeoutError` when the pool is full.",
     "Raises TimeoutError when the pool is full."),
    ("html comments and tags dropped",
     "<!-- Please describe your change -->\nAdds <b>bold</b> support.<br/>",
     "Adds bold support."),
    ("multi-line html comment",
     "<!--\nTemplate text\nmore\n-->\nReal text here.", "Real text here."),
    ("quoted diff lines dropped",
     "The change:\n\n-    old = 1\n+    new = 2\n\nKeeps state.",
     "The change:\n\nKeeps state."),
    ("diff header block dropped",
     "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n\nDone here.",
     "Done here."),
    ("email quote dropped",
     "> Original report says it hangs\nIt hangs when the socket closes.",
     "It hangs when the socket closes."),
    ("trailers dropped",
     "Close the pool on exit.\n\nSigned-off-by: A <a@x.org>\nCo-authored-by: B <b@x.org>\n"
     "Reviewed-by: C\nAcked-by: D\nChange-Id: I0123456789abcdef\nCo-Authored By: E <e@x.org>",
     "Close the pool on exit."),
    ("markdown headers and checklists dropped",
     "## Summary\n\nStops the leak.\n\n### Checklist\n- [x] Tests added\n- [ ] Docs updated",
     "Stops the leak."),
    ("list items become paragraphs",
     "* Fix the parser\n* Add tests for\n  wrapped items",
     "Fix the parser\n\nAdd tests for wrapped items"),
    ("hard-wrapped paragraph unwrapped",
     "The adapter of the session must always be mounted\nbefore the first request is sent.",
     "The adapter of the session must always be mounted before the first request is sent."),
    ("markdown links keep their text, bare urls go",
     "See [the docs](https://example.org/docs) and https://example.org/x for more.",
     "See the docs and for more."),
    ("emphasis markers removed, dunder names kept",
     "This is **very** important for __init__ and _private.",
     "This is very important for __init__ and _private."),
    ("issue refs removed",
     "Fix the redirect loop (#1234).\n\nFixes #12", "Fix the redirect loop."),
    ("traceback dropped, its error line kept",
     "Crash seen:\n\nTraceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n"
     "    load()\nKeyError: 'HOME'\n\nHappens without HOME.",
     "Crash seen:\n\nKeyError: 'HOME'\n\nHappens without HOME."),
    ("revert and cherry-pick lines dropped",
     "Revert it.\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.\n"
     "(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)",
     "Revert it."),
    ("rules and template boilerplate dropped",
     "Thanks for contributing!\n---------\nPlease describe your changes\nActual text.",
     "Actual text."),
    ("short lines are items of a list without bullets",
     "move implementation to app\nhandle no app context\nuse adapter.build",
     "move implementation to app\n\nhandle no app context\n\nuse adapter.build"),
    ("empty", "", ""),
    ("windows line endings",
     "A first line that is long enough to be wrapped\r\nsecond line.\r\n\r\nNext.",
     "A first line that is long enough to be wrapped second line.\n\nNext."),
]


# What the sentence labellers found the cleaner destroying or keeping (notes/labels-sent-*.md).
LABELLER_FINDINGS = [
    ("code span of several words kept",
     "So `PFMERGE k1 k2` is equivalent to `SUNIONSTORE k1 k1 k2`.",
     "So PFMERGE k1 k2 is equivalent to SUNIONSTORE k1 k1 k2."),
    ("code span with brackets kept",
     "fish errored with the message `No matches for wildcard [...]`.",
     "fish errored with the message No matches for wildcard [...]."),
    ("punctuation in a code span kept",
     "It appears `,` was a mistake, and that `;` should always be used.",
     "It appears , was a mistake, and that ; should always be used."),
    ("angle brackets that are not html kept",
     "Remove `impl Into<Vec<u8>> for ByteBuf` since it conflicts. Box<dyn Error> works.",
     "Remove impl Into<Vec<u8>> for ByteBuf since it conflicts. Box<dyn Error> works."),
    ("an input tag named in prose kept",
     "In HTML5 the <input> tag has no ending slash.",
     "In HTML5 the <input> tag has no ending slash."),
    ("call parentheses kept", "Ensure `_.random()` returns 1 or 0 and x() too.",
     "Ensure _.random() returns 1 or 0 and x() too."),
    ("error line after a colon kept",
     "If encoding is None, decoding will throw the following TypeError:\n\n"
     "TypeError: unicode() argument 2 must be string, not None",
     "If encoding is None, decoding will throw the following TypeError:\n\n"
     "TypeError: unicode() argument 2 must be string, not None"),
    ("space before a leading dot kept",
     "Add Go 1.8 to .travis.yml and ignore .min files.",
     "Add Go 1.8 to .travis.yml and ignore .min files."),
    ("space before a leading colon or question mark kept",
     "Add :scope and support ?Sized here.", "Add :scope and support ?Sized here."),
    ("Former-commit-id trailer dropped",
     "Ensure _.toString works.\n\nFormer-commit-id: 0123456789abcdef0123456789abcdef01234567",
     "Ensure _.toString works."),
    ("Mercurial boilerplate dropped",
     "Cope with missing cookies.\n\n--HG--\nextra : amend_source : 25977a0123",
     "Cope with missing cookies."),
    ("PR template headings dropped",
     "Summary of Changes\n\n1. Make the router strict\n\nRelated Issue #\n\nCloses #\n\n"
     "tests have not been included_",
     "Make the router strict"),
    ("credit list at the end dropped",
     "Make _.merge skip undefined values. [cowboy, jddalton]",
     "Make _.merge skip undefined values."),
    ("ci tags dropped", "Keep headers.\n\n[ci skip]", "Keep headers."),
    ("gitmoji shortcodes dropped", ":sparkles: Add the cache :tada:", "Add the cache"),
    ("footnote markers dropped", "Slow on big files.\n\n^1\n\n[^3]", "Slow on big files."),
]


@pytest.mark.parametrize("body,expected", [c[1:] for c in LABELLER_FINDINGS],
                         ids=[c[0] for c in LABELLER_FINDINGS])
def test_labeller_findings(body: str, expected: str) -> None:
    assert clean_prose(body) == expected


@pytest.mark.parametrize("body,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_clean_prose(body: str, expected: str) -> None:
    assert clean_prose(body) == expected


def test_caused_by_is_prose_not_a_trailer() -> None:
    assert clean_prose("Caused by: a race in the pool.\nReported-By: @ada") == (
        "Caused by: a race in the pool.")


def test_list_items_are_not_taken_for_diff_lines() -> None:
    assert clean_prose("- keep this item\n- and this one") == "keep this item\n\nand this one"


def test_replacement_characters_survive_without_error() -> None:
    text = b"Caf\xe9 must close \xff the pool.".decode("utf-8", "replace")
    assert "\ufffd" in clean_prose(text)


def test_huge_input_is_bounded() -> None:
    body = "The pool must be closed before exit. " * 100_000  # 3.7 MB
    paragraphs = structural_paragraphs(body)
    assert sum(len(p) for p in paragraphs) <= 50_000


def test_clean_inline_keeps_inner_punctuation() -> None:
    assert clean_inline("Since 2.31.0, requests.Session.send retries.") == (
        "Since 2.31.0, requests.Session.send retries."
    )


def test_a_line_ended_early_is_a_line_of_its_own() -> None:
    # jq a949745: two statements, one a line, no full stops; the second line is long, so the
    # first one stopped where a wrapper would have gone on
    body = ("Error on non-number and nan codepoint, would asserd before\n"
            "Replace negative codepoint and surrogate range with unicode replacement character, "
            "would assert before\n")
    assert structural_paragraphs(body) == [
        "Error on non-number and nan codepoint, would asserd before",
        "Replace negative codepoint and surrogate range with unicode replacement character, "
        "would assert before"]


@pytest.mark.parametrize("body", [
    # hard-wrapped prose: the next word would not have fitted, or the line runs on
    "The pool hands the same connection to two threads when both call acquire\n"
    "Concurrently, because pop is not atomic under the interpreter lock here.\n",
    "Remove dead code: the second `if (expire > (long long)\n"
    "EB_EXPIRE_TIME_MAX)` will be dead code when `unit` is not `UNIT_SECONDS`, as Coverity reported.\n",
    "This fixes the case where the handler was registered for the\n"
    "Router and never called back when the route was matched by a prefix.\n",
])
def test_wrapped_prose_stays_one_paragraph(body: str) -> None:
    assert len(structural_paragraphs(body)) == 1


def test_a_pasted_shell_session_is_not_prose() -> None:
    # cobra 41b26ec: a session pasted between paragraphs, unwrapped it glued output to prompts
    body = ("In the bash shell we used to print ActiveHelp messages on every tab-press.\n\n"
            "bash-5.1$ tanzu context u[tab]\nCommand help: Configure and manage contexts\n"
            "unset  (Unset the active context so that it is not used by default.)\n"
            "bash-5.1$ tanzu context u\n\n"
            "Above, on the first [tab] press, only the ActiveHelp is printed.\n\n"
            "ada@box:~/redis$ ./src/redis-server redis.conf\n23085:C 04 Mar 2020 oO0OoO0OoO0Oo\n")
    assert structural_paragraphs(body) == [
        "In the bash shell we used to print ActiveHelp messages on every tab-press.",
        "Above, on the first [tab] press, only the ActiveHelp is printed."]
