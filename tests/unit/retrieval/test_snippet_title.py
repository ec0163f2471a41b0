"""A sentence the title opens continues the title line: the snippet prints only its rest, first
(after "…" when the title was cut at ``TITLE_CHARS``), so the room goes to what is not yet read."""

from __future__ import annotations

from whylens.knowledge.extract import short_title
from whylens.render.hits import without_title
from whylens.retrieval.snippets import continued, pack

LONG = ("Send the Content-Length header for empty bodies of POST requests, because some proxies "
        "reject a POST without it with a 411")
WHY = "The header was dropped when the body was an empty string."


def test_a_cut_title_is_continued_after_an_ellipsis_and_first():
    title = short_title(LONG)
    assert title.endswith("…")
    text = pack([WHY, LONG], [0.4, 0.9], [], 256, title=title)
    rest = LONG[len(title) - 1:].strip()
    assert text == f"…{rest} … {WHY}"
    assert title[:-1] not in text  # the title's words are printed once
    assert without_title(text, title) == text  # printed under the title as it is


def test_a_whole_title_sentence_is_continued_without_an_ellipsis():
    title = "Fix crash on empty header values"
    sentence = f"{title}. Empty values were split into no items at all."
    assert continued(title, sentence) == "Empty values were split into no items at all."
    assert pack([sentence], [0.9], [], 256, title=title) == (
        "Empty values were split into no items at all.")


def test_a_sentence_the_title_does_not_open_is_printed_whole():
    title = "Fix cache"
    assert continued(title, "Fix caches for proxies that vary on Accept") == (
        "Fix caches for proxies that vary on Accept")
    assert continued(title, "The cache kept stale entries") == "The cache kept stale entries"
    assert continued("Fix", "Fix the cache") == "Fix the cache"  # one word opens too much
    assert continued(title, "Fix cache (#123)") == "Fix cache (#123)"  # nothing after it
