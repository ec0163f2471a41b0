"""Records that distil: the problem is stated (never the title repeated), the decision is what was
chosen, rejected only what was weighed and not taken, housekeeping never a symbol's decision."""

from __future__ import annotations

import pytest

from whylens.knowledge.features import commit_kind
from whylens.models import Claim, SymbolEvent
from whylens.records.distil import _title_problem
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
        "Connections were handed out twice under concurrent load.\n\n"
        "The root cause is that pop and release() touch the free list without synchronisation.\n\n"
        "We considered a queue.Queue instead of the lock, but it didn't work because the pool "
        "must hand back the most recently used connection first.\n\n"
        "This PR switches to a threading.Lock held only around the free list.")
    assert fields.problem == Claim("Connections were handed out twice under concurrent load.", "U2")
    assert [c.unit for c in fields.cause] == ["U3"]
    assert [c.unit for c in fields.rejected] == ["U4"]
    assert "U5" in [c.unit for c in fields.decision]
    assert not set(fields.rejected) & set(fields.decision)


def test_the_problem_is_never_the_title_repeated() -> None:
    fields = fields_of("Add a timeout option to the pool", "")
    assert fields.problem is None  # the history does not say what was wrong
    assert fields.decision == (Claim("Add a timeout option to the pool", "U1"),)


@pytest.mark.parametrize("title,problem", [
    ("Fix hang when the pool is exhausted", "Hang when the pool is exhausted"),
    ("fix a crash on empty headers", "Crash on empty headers"),
    ("Fix environment CA bundle resolution", None),  # names an area, not what went wrong
    ("Fix pool race", None),  # too little left to stand alone
    ("Add a cache", None),  # not a fix title
])
def test_a_fix_title_gives_its_problem_without_the_verb(title, problem) -> None:
    got = _title_problem(Claim(title, "U1"))
    assert (got.text if got else None) == problem


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
