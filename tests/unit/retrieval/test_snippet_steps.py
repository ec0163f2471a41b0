"""A squashed PR's step lines ("Update errors_test.go", "test(form): fix test code") take no
room in a snippet while a sentence that explains is there."""

from __future__ import annotations

import pytest

from whylens.retrieval.snippets import pack
from whylens.retrieval.steps import is_step


@pytest.mark.parametrize("line", [
    "Update errors_test.go", "test(form): fix test code", "get_netrc_auth: code cleanup",
    "Adds review changes", "update pycharm instructions", "Fix typo (#5930)",
    "Update README.md file.", "[docs] Tidy up README formatting.", "add req.auth test coverage",
])
def test_a_chore_on_a_file_the_tests_or_the_docs_is_a_step(line):
    assert is_step(line)


@pytest.mark.parametrize("line", [
    "Added res.cookie() options test", "disallow nan values in json serialize",
    "Remove timeout configuration", "fsync() the temp file", "More obvious return None",
    "Fix compile on macOS 13", "Move the call for updateCachedTime from serverCron to afterSleep.",
    "This prevents unexpected things from happening when we reuse the options object.",
])
def test_a_line_that_names_what_changed_is_not_a_step(line):
    assert not is_step(line)


def test_a_snippet_leaves_out_steps_for_the_sentence_that_explains():
    title = "Ignore expires and maxAge in res.clearCookie() (#5792)"
    group = [title, "Update response.js", "fix test code",
             "A cookie is cleared by an expiry in the past, so a maxAge passed in would undo it.",
             "Adds review changes"]
    text = pack(group, [0.9, 0.8, 0.7, 0.3, 0.6], [], 256, title=title)
    assert text == group[3]


def test_a_change_told_only_in_steps_shows_its_title_alone():
    """Nothing but steps beside the title: the snippet is the title, which `whylens search`
    prints once (the room goes to the next hit); with no title either, the steps are all
    there is."""
    title = "Clarify Python versions supported by requests"
    group = [title, "Update index.rst", "Range formatting update."]
    assert pack(group, [0.9, 0.5, 0.4], [], 256, title=title) == title
    assert pack(group[1:], [0.5, 0.4], [], 256) == "Update index.rst … Range formatting update."
