"""Records from the history alone, on real repositories built by make_repo."""

from __future__ import annotations

from dataclasses import replace

from whylens.models import SymbolEvent
from whylens.records.history import build_records, coalesce
from whylens.records.reverts import effective_reverts, revert_pairs
from whylens.records.outcome import outcome_status

from .conftest import merge, mine

POOL = "class Pool:\n    def get(self):\n        return self.free.pop()\n"
POOL_LOCKED = "class Pool:\n    def get(self):\n        with self.lock:\n            return self.free.pop()\n"


def by_id(records):
    return {r.id: r for r in records}


def unit_text(record, unit_id):
    return next(u.text for u in record.thread if u.id == unit_id)


def assert_citable(record):
    """Every claim cites a unit of the record's own thread and is a sentence of it."""
    ids = [u.id for u in record.thread]
    assert ids == [f"U{i}" for i in range(1, len(ids) + 1)]
    for claim in (record.problem, *record.cause, *record.decision, *record.rejected):
        if claim is None:
            continue
        assert claim.unit in ids
        tail = claim.text.split(" — ")[-1].rstrip("…")
        assert tail[:40] in unit_text(record, claim.unit)


def test_merge_commit_pr_with_the_commits_it_brought_in(make_repo):
    repo = make_repo()
    base = repo.commit("Add the connection pool", {"pool.py": POOL})
    repo.git("checkout", "-q", "-b", "fix-pool")
    c1 = repo.commit(
        "Guard the pool with a lock\n\nThe pool handed one connection to two threads because "
        "pop() raced with release() under load.",
        {"pool.py": POOL_LOCKED},
    )
    c2 = repo.commit("Add a regression test for the pool race", {"test_pool.py": "def test(): pass\n"})
    repo.git("checkout", "-q", "main")
    unrelated = repo.commit("Document the retry policy in the README with examples",
                            {"README.md": "retries\n"})
    m = merge(repo, "fix-pool", "Merge pull request #7 from ada/fix-pool\n\nFix pool exhaustion under load")

    records = by_id(build_records(mine(repo), {}))
    pr = records["pr-7"]
    assert pr.kind == "pr" and pr.number == 7 and pr.title == "Fix pool exhaustion under load"
    assert pr.fixing_commits == (m, c1, c2)  # the landing merge first, then the PR's commits
    assert base not in pr.fixing_commits and unrelated not in pr.fixing_commits
    assert pr.fix_edge_source == "text" and pr.merged and pr.distilled_by == "rules"
    assert pr.label == "distilled, unreviewed"
    assert pr.author == "Ada Lovelace"  # the PR's author, not the merger
    # a commit's subject is a step the history lists already, never the record's decision;
    # the body says why
    assert not any(c.text == "Guard the pool with a lock" for c in pr.decision)
    stated = [c.text for c in (*pr.cause, *pr.decision, *([pr.problem] if pr.problem else []))]
    assert any("because pop() raced" in t for t in stated), stated
    assert pr.files == ("pool.py", "test_pool.py")
    # the PR's own commits are not answered a second time as standalone records
    assert not any(r.id.startswith("commit-") and r.fixing_commits[0] in (c1, c2) for r in records.values())
    assert_citable(pr)
    assert outcome_status(pr, lambda sha: False) == "landed"


def test_squash_pr_with_description_fills_every_field(make_repo):
    repo = make_repo()
    repo.commit("Add the connection pool", {"pool.py": POOL})
    sha = repo.commit(
        "Use a lock around pool access (#12)\n\n"
        "Connections were handed out twice under concurrent load, so requests failed.\n\n"
        "The root cause is that pop and release() touch the free list without synchronisation.\n\n"
        "We considered a queue.Queue instead of the lock, but it didn't work because the pool "
        "must hand back the most recently used connection first.\n\n"
        "This PR switches to a threading.Lock held only around the free list.\n\n"
        "```python\nwith self.lock:\n    return self.free.pop()\n```",
        {"pool.py": POOL_LOCKED},
    )
    record = by_id(build_records(mine(repo), {}))["pr-12"]
    assert record.title == "Use a lock around pool access"
    assert record.fixing_commits == (sha,)
    assert record.problem.text == ("Connections were handed out twice under concurrent load, so "
                                   "requests failed.")
    assert [c.text for c in record.cause][0].startswith("The root cause is that pop")
    assert any("switches to a threading.Lock" in c.text for c in record.decision)
    assert any("queue.Queue instead of the lock" in c.text for c in record.rejected)
    assert all("with self.lock" not in u.text for u in record.thread)  # code block dropped
    assert record.thread_shape == "investigation"
    assert_citable(record)


def test_closing_keyword_coalesces_issue_and_pr_into_one_record(make_repo):
    repo = make_repo()
    repo.commit("Add the connection pool", {"pool.py": POOL})
    squash = repo.commit("Retry when the connection is reset (#34)\n\nFixes #12.",
                         {"pool.py": POOL_LOCKED})
    direct = repo.commit(
        "Close stale sockets before retrying\n\nThe retry reused a socket that the server had "
        "already closed, because the pool never checked it. Closes psf/requests#12",
        {"pool.py": POOL_LOCKED + "\n    def close(self):\n        pass\n"},
    )
    records = by_id(build_records(mine(repo), {}))
    assert "pr-34" not in records and "issue-34" not in records
    issue = records["issue-12"]
    assert issue.kind == "issue" and issue.number == 12 and issue.partner == 34
    assert issue.fixing_commits == (squash, direct)  # one record for the work, both fixes
    assert issue.fix_edge_source == "text"
    assert any("because the pool never checked it" in c.text for c in issue.cause)
    assert_citable(issue)


def test_revert_detection_makes_the_outcome_reverted(make_repo):
    repo = make_repo()
    repo.commit("Add the connection pool", {"pool.py": POOL})
    fix = repo.commit("Cache DNS lookups in the pool (#40)\n\nLookups were slow because every "
                      "request resolved again.", {"pool.py": POOL_LOCKED})
    undo = repo.commit(f'Revert "Cache DNS lookups in the pool (#40)"\n\nThis reverts commit {fix}.\n\n'
                       "It broke hosts whose address changes.", {"pool.py": POOL})
    again = repo.commit("Cache DNS lookups for one minute (#41)\n\nInstead of caching forever we "
                        "now expire entries.", {"pool.py": POOL_LOCKED})
    by_subject = repo.commit('Revert "Cache DNS lookups for one minute (#41)"', {"pool.py": POOL})
    commits = mine(repo)
    pairs = revert_pairs(commits)
    assert sorted(pairs) == sorted([(undo, fix), (by_subject, again)])
    reverted = effective_reverts(pairs)
    records = by_id(build_records(commits, {}))
    assert outcome_status(records["pr-40"], lambda s: s in reverted) == "reverted"
    assert outcome_status(records["pr-41"], lambda s: s in reverted) == "reverted"
    assert "pr-40" in records and not any(r.number == 40 and r.id != "pr-40" for r in records.values())


def test_a_reverted_revert_no_longer_counts():
    pairs = [("b", "a"), ("c", "b")]  # b reverted a, c reverted b: a is back
    assert effective_reverts(pairs) == {"b"}


def test_superseded_by_a_later_record_that_says_so(make_repo):
    repo = make_repo()
    repo.commit("Add the connection pool", {"pool.py": POOL})
    first = repo.commit("Guard the pool with a global flag (#5)\n\nWe now set a flag while a "
                        "connection is out.", {"pool.py": POOL_LOCKED})
    second = repo.commit("Guard the pool with a lock (#9)\n\nThis supersedes #5.\n\nPool.get "
                         "must take a real lock around the free list, because a flag is not "
                         "atomic and two threads still raced for the same connection.",
                         {"pool.py": POOL})
    third = repo.commit("Rewrite Pool.get around a deque (#11)\n\nThis replaces `Pool.get` "
                        "wholesale; the lock stays.", {"pool.py": POOL_LOCKED})
    events = {sha: [SymbolEvent(sha, "pool.py", "Pool.get", "body")] for sha in (first, second, third)}
    records = by_id(build_records(mine(repo), events))
    old, newer, newest = records["pr-5"], records["pr-9"], records["pr-11"]
    assert newer.supersedes == ("#5",)
    assert outcome_status(old, lambda s: False, records.values()) == "superseded"
    assert newest.supersedes == ("Pool.get",)
    # names an anchor of pr-9 and touches the same symbol → pr-9 is superseded too
    assert outcome_status(newer, lambda s: False, records.values()) == "superseded"
    assert outcome_status(newest, lambda s: False, records.values()) == "landed"
    # a record never supersedes what came after it
    assert outcome_status(newest, lambda s: False, [replace(old, supersedes=("#11",))]) == "landed"


def test_standalone_rationale_commit_and_silence_for_the_rest(make_repo):
    repo = make_repo()
    repo.commit("Add the connection pool", {"pool.py": POOL})
    why = repo.commit("Keep idle connections for 30 seconds\n\nServers drop idle sockets after "
                      "60 seconds, so reusing one older than that failed with a reset.",
                      {"pool.py": POOL_LOCKED})
    repo.commit("Update docs", {"README.md": "x\n"})
    repo.commit("Bump urllib3 from 1.26.0 to 2.0.0", {"reqs.txt": "urllib3==2.0.0\n"},
                author="dependabot[bot] <support@github.com>")
    repo.commit("fix typo", {"README.md": "y\n"})
    records = build_records(mine(repo), {})
    assert [r.id for r in records] == [f"commit-{why[:12]}"]
    record = records[0]
    assert record.kind == "commit" and record.number is None and record.fixing_commits == (why,)
    assert record.thread[0].kind == "commit"
    assert "so reusing one older" in record.problem.text  # the problem as stated, not the title
    assert any("Keep idle connections" in c.text for c in record.decision)
    assert_citable(record)


def test_anchors_come_from_the_events_of_the_fixing_commits(make_repo):
    """(Work known only by its title is left unanchored: test_distil.py.)"""
    repo = make_repo()
    repo.commit("Add the connection pool", {"pool.py": POOL})
    sha = repo.commit("Use a lock around pool access (#12)\n\nTwo threads took the same "
                      "connection because pop is not atomic.", {"pool.py": POOL_LOCKED})
    events = {sha: [
        SymbolEvent(sha, "pool.py", "Pool.release", "body"),
        SymbolEvent(sha, "pool.py", "Pool.get", "body"),
        SymbolEvent(sha, "other.py", "Pool.get", "moved", previous="pool.py::Pool.get"),
        SymbolEvent(sha, "pool.py", "Pool.old_get", "deleted"),
    ], "f" * 40: [SymbolEvent("f" * 40, "x.py", "Unrelated", "body")]}
    record = by_id(build_records(mine(repo), events))["pr-12"]
    assert record.anchors == ("Pool.get", "Pool.release")  # most changed first; deleted left out
    assert record.files == ("pool.py",)


def test_incremental_run_on_new_commits_builds_the_same_record(make_repo):
    repo = make_repo()
    repo.commit("Add the connection pool", {"pool.py": POOL})
    old = set(c.sha for c in mine(repo))
    repo.git("checkout", "-q", "-b", "fix")
    repo.commit("Guard the pool with a lock\n\nTwo threads raced because pop() is not atomic.",
                {"pool.py": POOL_LOCKED})
    repo.git("checkout", "-q", "main")
    merge(repo, "fix", "Merge pull request #3 from ada/fix\n\nFix the pool race")
    everything = mine(repo)
    new_only = [c for c in everything if c.sha not in old]
    assert by_id(build_records(new_only, {}))["pr-3"] == by_id(build_records(everything, {}))["pr-3"]


def test_coalesce_unions_work_seen_in_two_runs(make_repo):
    repo = make_repo()
    repo.commit("Add the connection pool", {"pool.py": POOL})
    first = repo.commit("Retry on reset (#34)\n\nFixes #12.", {"pool.py": POOL_LOCKED})
    a = by_id(build_records(mine(repo), {}))["issue-12"]
    second = repo.commit("Retry on timeouts as well (#35)\n\nThe first fix missed read timeouts "
                         "because they raise a different error. Fixes #12.", {"pool.py": POOL})
    b = by_id(build_records([c for c in mine(repo) if c.sha == second], {}))["issue-12"]
    both = coalesce(a, b)
    assert both.fixing_commits == (first, second)
    assert [u.id for u in both.thread] == [f"U{i}" for i in range(1, len(both.thread) + 1)]
    assert both.cause and unit_text(both, both.cause[0].unit).startswith("The first fix missed")


def test_non_utf8_and_empty_messages_do_not_crash(make_repo):
    repo = make_repo()
    repo.commit(b"Fix caf\xe9 encoding because latin-1 bytes broke the parser\n\n\xff\xfe",
                {"a.py": "x = 1\n"})
    repo.commit("x", {"a.py": "x = 2\n"})
    records = build_records(mine(repo), {})
    assert len(records) == 1 and "because latin-1" in records[0].title
    assert records[0].problem is None  # the title is not restated as the problem
    assert build_records([], {}) == []


def test_brought_in_is_not_fooled_by_skewed_author_dates():
    from whylens.models import Commit
    from whylens.records.history import brought_in

    def c(sha, parents, ts):
        return Commit(sha=sha * 40, parents=tuple(p * 40 for p in parents), author="a", email="e",
                      timestamp=ts, date="2023-01-01T00:00:00+00:00", subject=sha)

    # root r (dated far in the future), mainline m1, branch b1 (dated in the past), merge M
    commits = [c("r", "", 9_000), c("m", "r", 100), c("b", "r", 1), c("x", "b", 2), c("M", "mx", 300)]
    by_sha = {k.sha: k for k in commits}
    assert [k.subject for k in brought_in(by_sha["M" * 40], by_sha)] == ["b", "x"]


def test_a_release_merge_does_not_answer_again_for_the_prs_it_integrates(make_repo):
    repo = make_repo()
    repo.commit("Add the connection pool", {"pool.py": POOL})
    repo.git("checkout", "-q", "-b", "develop")
    repo.git("checkout", "-q", "-b", "fix")
    fix = repo.commit("Guard the pool with a lock\n\nTwo threads raced because pop is not atomic.",
                      {"pool.py": POOL_LOCKED})
    repo.git("checkout", "-q", "develop")
    inner = merge(repo, "fix", "Merge pull request #1 from ada/fix\n\nFix the pool race")
    repo.git("checkout", "-q", "main")
    merge(repo, "develop", "Merge pull request #2 from ada/develop\n\nProposed 2.8.0")
    records = by_id(build_records(mine(repo), {}))
    assert set(records) == {"pr-1"} and records["pr-1"].fixing_commits == (inner, fix)


def test_coalesce_with_what_an_earlier_run_stored(make_repo):
    from whylens.records.history import coalesce_with

    repo = make_repo()
    repo.commit("Add the connection pool", {"pool.py": POOL})
    first = repo.commit("Retry on reset (#34)\n\nFixes #12.", {"pool.py": POOL_LOCKED})
    stored = {r.id: r for r in build_records(mine(repo), {})}
    enriched = replace(stored["issue-12"], fix_edge_source="provider", title="From the tracker")
    stored["issue-12"] = enriched
    # a resumed run that sees the same work again keeps what is stored
    assert coalesce_with(build_records(mine(repo), {}), stored.get) == [enriched]
    second = repo.commit("Retry on timeouts too (#35)\n\nFixes #12.", {"pool.py": POOL})
    new = build_records([c for c in mine(repo) if c.sha == second], {})
    (merged,) = coalesce_with(new, stored.get)
    assert merged.fixing_commits == (first, second) and merged.title == "From the tracker"
    assert merged.fix_edge_source == "provider"
