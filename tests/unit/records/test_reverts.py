"""Reverts in every wording the cards issue lists, on real repositories built by make_repo."""

from __future__ import annotations

from whylens.records.reverts import effective_reverts, revert_pairs

from .conftest import merge, mine

V1 = "def get(pool):\n    return pool.pop()\n"
V2 = "def get(pool):\n    with pool.lock:\n        return pool.pop()\n"
V3 = "def get(pool):\n    with pool.lock:\n        return pool.pop(0)\n"


def test_a_list_of_short_shas(make_repo):
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": V1})
    a = repo.commit("Lock the pool", {"pool.py": V2})
    b = repo.commit("Take from the front of the pool", {"pool.py": V3, "other.py": "x = 1\n"})
    undo = repo.commit(f"Go back to the simple pool\n\nrevert {a[:8]} and {b[:8]}: both slowed "
                       "the hot path down.", {"pool.py": V1})
    assert sorted(revert_pairs(mine(repo))) == sorted([(undo, a), (undo, b)])


def test_partial_revert_names_its_sha(make_repo):
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": V1})
    a = repo.commit("Lock the pool and log", {"pool.py": V2, "log.py": "LOG = 1\n"})
    part = repo.commit(f"Drop the pool lock again\n\nThis partially reverts commit {a[:10]}.",
                       {"pool.py": V1})
    assert revert_pairs(mine(repo)) == [(part, a)]


def test_unquoted_subject(make_repo):
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": V1})
    a = repo.commit("Lock the pool (#12)", {"pool.py": V2})
    undo = repo.commit("Revert Lock the pool", {"pool.py": V1, "notes.txt": "x\n"})
    assert revert_pairs(mine(repo)) == [(undo, a)]


def test_pr_number_reverts_the_squash_commit(make_repo):
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": V1})
    squash = repo.commit("Lock the pool (#3362)", {"pool.py": V2})
    repo.commit("Unrelated work", {"other.py": "x = 1\n"})
    undo = repo.commit("Stop locking: reverting 3362, it deadlocked under gevent",
                       {"pool.py": V1, "other.py": "x = 2\n"})
    assert revert_pairs(mine(repo)) == [(undo, squash)]


def test_revert_branch_merge_reverts_the_merged_pr_and_what_it_brought_in(make_repo):
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": V1})
    repo.git("checkout", "-q", "-b", "lock")
    inner = repo.commit("Lock the pool", {"pool.py": V2})
    repo.git("checkout", "-q", "main")
    landed = merge(repo, "lock", "Merge pull request #5 from ada/lock\n\nLock the pool")
    repo.git("checkout", "-q", "-b", "revert-5-lock")
    revert = repo.commit("Take the pool lock out again", {"pool.py": V1, "x.txt": "1\n"})
    repo.git("checkout", "-q", "main")
    back = merge(repo, "revert-5-lock", "Merge pull request #6 from ada/revert-5-lock\n\n"
                                        "Revert the pool lock")
    pairs = set(revert_pairs(mine(repo)))
    assert {(back, landed), (back, inner)} <= pairs
    assert (revert, inner) in pairs  # the branch's own commit undoes it by content too
    assert inner in effective_reverts(sorted(pairs))


def test_an_undo_by_content_however_worded(make_repo):
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": V1})
    a = repo.commit("Lock the pool", {"pool.py": V2})
    repo.commit("Unrelated work", {"other.py": "x = 1\n"})
    undo = repo.commit("Simplify the pool", {"pool.py": V1})  # exactly the version a replaced
    assert revert_pairs(mine(repo)) == [(undo, a)]


def test_content_that_comes_back_after_a_revert_is_not_an_undo_of_the_revert(make_repo):
    """Re-landing the same text after a revert is a new attempt, not a revert of the revert."""
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": V1})
    a = repo.commit("Lock the pool", {"pool.py": V2})
    undo = repo.commit(f"Revert it\n\nThis reverts commit {a}.", {"pool.py": V1})
    again = repo.commit("Lock the pool, with a timeout this time", {"pool.py": V2})
    pairs = revert_pairs(mine(repo))
    assert (undo, a) in pairs and not any(p[0] == again for p in pairs)


def test_a_sha_that_is_not_in_the_history_and_a_number_that_is_no_pr_name_nothing(make_repo):
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": V1})
    repo.commit("Lock the pool", {"pool.py": V2})
    repo.commit("revert 1234567 and #99999, see the thread", {"pool.py": V3})
    assert revert_pairs(mine(repo)) == []
