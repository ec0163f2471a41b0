"""Sentence splitting keeps versions, dotted names and abbreviations whole."""

from __future__ import annotations

import pytest

from whylens.knowledge.sentences import split_sentences

CASES = [
    ("One. Two.", ["One.", "Two."]),
    ("Since 2.31.0 it fails. Pin 2.30.", ["Since 2.31.0 it fails.", "Pin 2.30."]),
    ("Call requests.Session.send directly. It retries.",
     ["Call requests.Session.send directly.", "It retries."]),
    ("Some adapters, e.g. HTTPAdapter, retry. Others do not.",
     ["Some adapters, e.g. HTTPAdapter, retry.", "Others do not."]),
    ("The default, i.e. None, waits forever. Set it.",
     ["The default, i.e. None, waits forever.", "Set it."]),
    ("Written by J. Smith in 2012. Still true.", ["Written by J. Smith in 2012.", "Still true."]),
    ("Works vs. Python 3 only. Fine.", ["Works vs. Python 3 only.", "Fine."]),
    ("lowercase after a dot. is not split", ["lowercase after a dot. is not split"]),
    ("Really? Yes! Done.", ["Really?", "Yes!", "Done."]),
    ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
    ("Use `a. B` inside code. Next.", ["Use `a. B` inside code.", "Next."]),
    ("", []),
]


@pytest.mark.parametrize("paragraph,expected", CASES, ids=[c[0][:30] or "empty" for c in CASES])
def test_split_sentences(paragraph: str, expected: list[str]) -> None:
    assert split_sentences(paragraph) == expected


def test_sentence_count_is_bounded() -> None:
    assert len(split_sentences("It fails. " * 10_000)) <= 201


def test_an_ellipsis_between_words_does_not_end_the_sentence() -> None:
    paragraph = ("Simplifies the compilation of `foreach` to avoid the problem in #3227 by "
                 "removing unnecessary FORK ... BACKTRACK. Does not address reduce.")
    assert split_sentences(paragraph) == [
        "Simplifies the compilation of `foreach` to avoid the problem in #3227 by removing "
        "unnecessary FORK ... BACKTRACK.", "Does not address reduce."]
    assert split_sentences("It hung... Then it crashed.") == ["It hung...", "Then it crashed."]
