"""A sentence that only tells what a change did is told apart from one that explains."""

from __future__ import annotations

import pytest

from whylens.knowledge.change_told import only_what_changed


@pytest.mark.parametrize("text", [
    "Developers can now extract the query templates and regexps from a router as lists.",
    "Document that 'params' can also be a list of tuples",
    "Adds a verbose flag to the serve command.",
    "The parser is modified to accept tabs.",
    "This change makes the writer buffered.",
])
def test_what_the_change_did_and_nothing_more(text):
    assert only_what_changed(text)


@pytest.mark.parametrize("text", [
    # a reason, a purpose, a rule or condition, a failure, what it replaces
    "Send now closes the socket because the pool would otherwise leak it.",
    "RangeEnd is modified to return 1 if the key doesn't exist, to terminate iteration.",
    "Each file can now be a 4-tuple, instead of just a file or a 2-tuple.",
    "The header must now be a string.",
    "prepare_body now raises ValueError on a generator with a length.",
    "Adds retries, but only for idempotent methods.",
    # no change told: a fact about the code
    "MatchErr is set by the router to ErrNotFound if no route matches.",
    "Header values are sent as bytes.",
])
def test_a_sentence_that_explains_or_tells_no_change(text):
    assert not only_what_changed(text)
