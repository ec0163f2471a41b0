"""Records that distil: the problem is stated (never the title repeated), the decision is what was
chosen, rejected only what was weighed and not taken, housekeeping never a symbol's decision."""

from __future__ import annotations

import pytest

from whylens.knowledge.features import commit_kind
from whylens.models import Claim, SymbolEvent
from whylens.records.extract import extract_fields
from whylens.records.history import build_records
from whylens.records.thread import ThreadBuilder

from .conftest import merge, mine

POOL = "class Pool:\n    def get(self):\n        return self.free.pop()\n"
POOL_LOCKED = "class Pool:\n    def get(self):\n        with self.lock:\n            return self.free.pop()\n"


def fields_of(title: str, body: str, paths=("pool.py",)):
    builder = ThreadBuilder()
    builder.add_paragraph(title, "description")
    builder.add_text(body, "description")
    kind = commit_kind(f"{title} (#12)", paths, 12, False, title)
    return extract_fields(title, builder.freeze(), "U1", kind=kind)


def test_a_described_pr_fills_problem_cause_decision_and_rejected() -> None:
    fields = fields_of(
        "Use a lock around pool access",
        "Connections were handed out twice under concurrent load, so requests failed.\n\n"
        "The root cause is that pop and release() touch the free list without synchronisation.\n\n"
        "We considered a queue.Queue instead of the lock, but it didn't work because the pool "
        "must hand back the most recently used connection first.\n\n"
        "This PR switches to a threading.Lock held only around the free list.")
    assert fields.problem == Claim(
        "Connections were handed out twice under concurrent load, so requests failed.", "U2")
    assert [c.unit for c in fields.cause] == ["U3"]
    assert [c.unit for c in fields.rejected] == ["U4"]
    assert "U5" in [c.unit for c in fields.decision]
    assert not set(fields.rejected) & set(fields.decision)


def test_the_problem_is_never_the_title_repeated() -> None:
    fields = fields_of("Add a timeout option to the pool", "")
    assert fields.problem is None  # the history does not say what was wrong
    assert fields.decision == (Claim("Add a timeout option to the pool", "U1"),)


@pytest.mark.parametrize("title", ["Fix hang when the pool is exhausted",
                                   "fix a crash on empty headers"])
def test_a_fix_title_is_not_restated_as_the_problem(title) -> None:
    fields = fields_of(title, "")
    assert fields.problem is None  # "Hang when the pool is exhausted" is the title again


@pytest.mark.parametrize("title,body,problem", [
    ("Prefix pool names with the service name",
     "Prior to this commit the pool names were prefixed with the client name, causing lookups "
     "to fail.\n\nThis commit adds two regex based tests to ensure that the pool names are "
     "prefixed by the service name when present in clients.",
     "Prior to this commit the pool names were prefixed with the client name, causing lookups "
     "to fail."),
    ("Fix a leak of blocked clients", "Made blocked.tcl tests a bit more aggressive in order to "
     "smoke-out potential memory leaks.", None),
])
def test_a_note_on_the_tests_is_no_decision(title, body, problem) -> None:
    fields = fields_of(title, body)
    assert [c.text for c in fields.decision if "test" in c.text] == []
    assert (fields.problem.text if fields.problem else None) == problem


@pytest.mark.parametrize("sentence", [
    "I also fixed up some of the pool methods so releasing twice works without a problem.",
    "Avoid duplicating files data when creating a Request with bytes in the files argument.",
    "It was verified that after the fix the server handles the blocked clients with the expected "
    "short delay.",  # how it was checked
])
def test_what_was_done_is_never_the_problem(sentence) -> None:
    fields = fields_of("Guard the pool", sentence)
    assert fields.problem is None


@pytest.mark.parametrize("sentence", [
    "There's probably a better way to do this.",  # a guess
    "This may still fail in certain cases but does properly handle the pool by returning it.",
    "However a looping request is recoverable if the pool still did not hand out a connection.",
    "Ever since Python 3.7 it has been possible to reuse pooled connections across threads.",
    "Storing the connections there does not work when you add the pool before the session.",
    "Inside Pool.get() we were checking for an empty free list.",  # the state before
    "It's clearer if there's a single free list.",  # a verdict
    "We want to have the pool for such programs because it will allow reusing connections.",
])
def test_a_sentence_that_makes_no_choice_is_no_decision(sentence) -> None:
    fields = fields_of("Fix pool exhaustion", sentence + "\n\nGuard the free list with a lock "
                       "so that two threads never take the same connection.")
    assert sentence not in [c.text for c in fields.decision]


@pytest.mark.parametrize("sentence", [
    # the "now" and the "we call" are the background's, not the change's
    "Given that now the pool and the session agree on the free list, both hangs should no "
    "longer be possible.",
    "That is we call pop() over the free list without holding the lock.",
    "As it now returns the connection as well, any caller of get will need to be updated to "
    "close it.",
    "But unlike the session's connections, the pooled ones are never closed.",
    "So the pool hands the same connection to both threads.",
    'So, if the caller passed "Pool" instead of "pool", it would be given a fresh pool.',
    "Previously the pool handed out a connection twice when two threads asked at once.",
    "These connections are currently being reused by two threads.",  # the state before
    "The theory is that a thread gets preempted inside get, so the other one pops it too.",
])
def test_a_sentence_that_opens_on_the_background_is_no_decision(sentence) -> None:
    fields = fields_of("Fix pool exhaustion", sentence + "\n\nGuard the free list with a lock "
                       "so that two threads never take the same connection.")
    assert sentence not in [c.text for c in fields.decision]


def test_a_choice_with_its_background_is_a_decision() -> None:
    sentence = ("Since it only needs the first value, we create a specialised getter for the pool "
                "instead of a loop.")
    fields = fields_of("Speed up pool lookups", sentence)
    assert sentence in [c.text for c in fields.decision]


@pytest.mark.parametrize("title", ["trim_prefix causing the strict flag to fail",
                                   "On 32 bit platforms the pool's bit position may overflow"])
def test_a_title_that_states_the_failure_is_no_decision(title) -> None:
    fields = fields_of(title, "")
    assert title not in [c.text for c in fields.decision]
    assert fields_of("Add a timeout option to the pool", "").decision  # a choice stays


def test_a_problem_cut_from_its_subject_is_no_problem() -> None:
    fields = fields_of("Implement pool retries", "doesn't work with redirects, we try to "
                       "connect to the server a second time with a used connection.")
    assert fields.problem is None


def test_chatter_and_housekeeping_prose_fill_no_field() -> None:
    fields = fields_of("Guard the pool", "Thanks for the review, merging now.\n\nLooks good to me.")
    assert not fields.cause and not fields.rejected and fields.problem is None
    assert all(c.unit == "U1" for c in fields.decision)


def test_release_and_authors_work_is_never_a_symbols_decision(make_repo) -> None:
    repo = make_repo()
    repo.commit("Add the connection pool", {"pool.py": POOL})
    repo.git("checkout", "-q", "-b", "release-2.0")
    inner = repo.commit("Prepare the pool for 2.0\n\nThe pool must be locked before 2.0 ships, "
                        "because gevent users share it across greenlets.", {"pool.py": POOL_LOCKED})
    repo.git("checkout", "-q", "main")
    landed = merge(repo, "release-2.0", "Merge pull request #40 from ada/release-2.0\n\nRelease 2.0.0")
    authors = repo.commit("Add myself to AUTHORS (#41)\n\nI fixed the pool, so here I am.",
                          {"AUTHORS.rst": "Ada\n", "pool.py": POOL})
    real = repo.commit("Lock the pool again (#42)\n\nUnlocked pools hand one connection to two "
                       "greenlets, because pop is not atomic.", {"pool.py": POOL_LOCKED})
    bare = repo.commit("Tidy the pool (#43)", {"pool.py": POOL})  # only a title: a change
    events = {sha: [SymbolEvent(sha, "pool.py", "Pool.get", "body")]
              for sha in (inner, landed, authors, real, bare)}
    records = {r.id: r for r in build_records(mine(repo), events)}
    assert records["pr-40"].anchors == ()  # a release: searchable, never a symbol's decision
    assert records["pr-41"].anchors == ()  # AUTHORS
    assert records["pr-42"].anchors == ("Pool.get",)
    assert records["pr-43"].anchors == ()  # says nothing beyond its title: history, not a decision


def test_as_opposed_to_names_what_the_decision_replaced_not_a_rejected_alternative() -> None:
    fields = fields_of(
        "Share the default between fields",
        "Field defaults were resolved twice, so a skipped field lost its container default.\n\n"
        "Make attr::Field take a attr::Default as opposed to the entire parent attr::Container.")
    assert not fields.rejected
    weighed = fields_of(
        "Share the default between fields",
        "Field defaults were resolved twice, so a skipped field lost its container default.\n\n"
        "We considered passing the entire parent container, as opposed to the default alone, "
        "but it ties the field to the container's lifetime.")
    assert [c.text for c in weighed.rejected] == [
        "We considered passing the entire parent container, as opposed to the default alone, "
        "but it ties the field to the container's lifetime."]
