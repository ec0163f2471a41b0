"""Thread units, sentence claims and the marker table, as tables of inputs and answers."""

from __future__ import annotations

import pytest

from whylens.models import Claim, ThreadUnit
from whylens.records.extract import extract_fields, supersedes_refs, thread_shape
from whylens.records.thread import ThreadBuilder, claims, sentences, strip_pr_suffix


def test_units_are_numbered_per_paragraph_across_sources():
    builder = ThreadBuilder()
    assert builder.add_paragraph("Fix the pool", "description", "ada") == "U1"
    ids = builder.add_text("First paragraph here.\n\n- a list item\n- another item\n\n"
                           "```\ncode is dropped\n```\n\nSigned-off-by: Ada <a@b.c>", "description", "ada")
    assert ids == ["U2", "U3", "U4"]
    assert builder.add_text("A comment.", "comment", "bob", "https://x/1") == ["U5"]
    units = builder.freeze()
    assert [u.text for u in units] == ["Fix the pool", "First paragraph here.", "a list item",
                                       "another item", "A comment."]
    assert units[4] == ThreadUnit("U5", "bob", "comment", "A comment.", "https://x/1")
    with pytest.raises(ValueError):
        builder.add_paragraph("x", "tweet")


def test_every_sentence_is_a_claim_citing_its_unit():
    units = (ThreadUnit("U1", "", "description", "Title"),
             ThreadUnit("U2", "", "comment", "It fails, e.g. on Windows. Use a lock. Done!"))
    assert claims(units) == [Claim("Title", "U1"), Claim("It fails, e.g. on Windows.", "U2"),
                             Claim("Use a lock.", "U2"), Claim("Done!", "U2")]


@pytest.mark.parametrize("text, expected", [
    ("One. Two three.", ["One.", "Two three."]),
    ("Version 2.31.0 broke it. Really.", ["Version 2.31.0 broke it.", "Really."]),
    ("See i.e. this vs. that. Next one", ["See i.e. this vs. that.", "Next one"]),
    ("no capital after. dot", ["no capital after. dot"]),
    ("", []),
])
def test_sentences(text, expected):
    assert sentences(text) == expected


@pytest.mark.parametrize("sentence, field", [
    ("The connection was reused because the pool never checked it.", "cause"),
    ("This is caused by a race between get and release.", "cause"),
    ("The root cause is an unbounded retry loop.", "cause"),
    ("It only happens when the proxy closes the socket.", "cause"),
    ("This PR switches to a bounded queue for idle connections.", "decision"),
    ("Instead, we now close the socket before retrying.", "decision"),
    ("Use a monotonic clock for the deadline computation.", "decision"),
    ("We considered patching urllib3, but that would be fragile.", "rejected"),
    ("It would have been better to patch urllib3, but that is fragile.", "rejected"),
    ("Ideally we'd vendor the parser, but that is a lot more work.", "rejected"),
    ("Another alternative was to vendor the parser.", "rejected"),
])
def test_marker_table(sentence, field):
    """The rules (used when the classifier's data is unavailable)."""
    units = (ThreadUnit("U1", "", "description", "A title that says little"),
             ThreadUnit("U2", "", "description", "Some context comes first here."),
             ThreadUnit("U3", "", "comment", sentence))
    fields = extract_fields("A title that says little", units, use_model=False)
    assert Claim(sentence, "U3") in getattr(fields, field)


@pytest.mark.parametrize("use_model", [False, True])
@pytest.mark.parametrize("sentence", [
    "Use a lock instead of a global flag so that two workers never share a connection.",
    "Rather than retrying forever, give up after one retry.",  # what the decision replaced
    "Gevent won't work with pypy, so the pool must not use it there.",  # a problem, not a road
])
def test_instead_of_and_doesnt_work_are_not_rejected_alternatives(sentence, use_model):
    units = (ThreadUnit("U1", "", "description", "Guard the pool"),
             ThreadUnit("U2", "", "description", sentence))
    assert extract_fields("Guard the pool", units, use_model=use_model).rejected == ()


@pytest.mark.parametrize("sentence", [
    "Thanks for the review, merging now.",
    "Add tests.",
    "Looks good to me.",
])
def test_no_field_for_chatter(sentence):
    units = (ThreadUnit("U1", "", "description", "Guard the pool"),
             ThreadUnit("U2", "", "comment", sentence))
    fields = extract_fields("Guard the pool", units, use_model=False)
    assert not fields.cause and not fields.rejected
    assert fields.decision == (Claim("Guard the pool", "U1"),)  # the summary, not the chatter


def test_rules_problem_is_title_plus_opening_and_decision_falls_back_to_the_summary():
    units = (ThreadUnit("U1", "", "description", "Fix hang on dead hosts"),
             ThreadUnit("U2", "", "description", "Requests to a dead host never return. More."))
    fields = extract_fields("Fix hang on dead hosts", units, use_model=False)
    assert fields.problem == Claim("Fix hang on dead hosts — Requests to a dead host never return.", "U2")
    assert fields.decision == ()  # "Fix X" names the problem, not the approach
    guarded = extract_fields("Close dead sockets", (ThreadUnit("U1", "", "description", "Close dead sockets"),),
                             use_model=False)
    assert guarded.decision == (Claim("Close dead sockets", "U1"),)
    assert extract_fields("Fix hang on dead hosts", units, opening=False, use_model=False).problem == \
        Claim("Fix hang on dead hosts", "U1")


def test_supersedes_refs_and_pr_suffix():
    text = "This supersedes #12 and replaces `Session.send_old`; follow-up to psf/requests#9."
    assert supersedes_refs(text) == ("#12", "Session.send_old", "#9")
    assert supersedes_refs("replaced the docs") == ()
    assert strip_pr_suffix("Fix the pool (#123) ") == "Fix the pool"
    assert strip_pr_suffix("Fix the pool (psf/requests#123)") == "Fix the pool"


def test_thread_shapes():
    thin = (ThreadUnit("U1", "a", "description", "Fix"),)
    long = tuple(ThreadUnit(f"U{i}", "a", "commit", "Address the review comments about naming and "
                            "spacing in the new module") for i in range(1, 6))
    fields = extract_fields("Fix", long)
    assert thread_shape(thin, extract_fields("Fix", thin)) == "thin"
    assert thread_shape(long, fields) == "review_stream"
    why = long + (ThreadUnit("U6", "b", "comment", "It broke because the lock was never released."),)
    assert thread_shape(why, extract_fields("Fix", why)) == "investigation"
