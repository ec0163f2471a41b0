"""extract_units with the rules (the fallback when the classifier's data cannot be loaded):
typed, cited units from a commit's prose, with the precision components. The classifier's path
is tested in test_classify.py."""

from __future__ import annotations

import time

import pytest

from whylens.knowledge.extract import (
    FALLBACK_PRIOR,
    MAX_UNITS,
    RESOLUTION_BONUS,
    short_title,
)
from whylens.knowledge.extract import extract_units as extract_with
from whylens.knowledge.heuristics import HEURISTICS
from whylens.knowledge.ids import unit_id
from whylens.knowledge.substance import is_substantive
from whylens.models import Commit, FileChange

PRIOR = {h.name: h.prior for h in HEURISTICS}
SHA = "a" * 40


def make_commit(subject: str, body: str = "", paths=("src/pool.py",), **kw) -> Commit:
    return Commit(
        sha=kw.pop("sha", SHA), parents=("b" * 40,), author="Ada Lovelace", email="ada@x.org",
        timestamp=1_700_000_000, date="2023-11-14T22:13:20+00:00", subject=subject, body=body,
        changes=tuple(FileChange(path=p, status="M") for p in paths), **kw,
    )


def extract_units(commit: Commit, *args, **kwargs):
    return extract_with(commit, *args, use_model=False, **kwargs)


def kinds(units) -> list[tuple[str, str]]:
    return [(u.type, u.heuristic) for u in units]


def test_filtered_commit_yields_nothing() -> None:
    commit = make_commit("Bump urllib3 from 1.0 to 2.0", "The pool must be closed.",
                         skip_reason="release")
    assert extract_units(commit) == []


def test_units_from_subject_and_body_carry_their_commit() -> None:
    commit = make_commit(
        "Fix hang when the server closes the socket (#42)",
        "The adapter must be mounted before the first request.\n\nSigned-off-by: Ada <a@x.org>",
        pr=42,
    )
    units = extract_units(commit, symbols=("HTTPAdapter.send",))
    assert kinds(units) == [("pattern", "pattern.fails-when"), ("fact", "fact.modal")]
    pattern, fact = units
    assert pattern.content == "Fix hang when the server closes the socket"
    assert pattern.context == "Fix hang when the server closes the socket (#42)"
    assert fact.content == "The adapter must be mounted before the first request."
    for unit in units:
        assert unit.commit == SHA and unit.author == "Ada Lovelace"
        assert unit.date == "2023-11-14T22:13:20+00:00" and unit.source == "commit"
        assert unit.files == ("src/pool.py",) and unit.symbols == ("HTTPAdapter.send",)
        assert unit.pr == 42
        assert unit.id == unit_id(unit.type, unit.content)
        assert unit.weight == pytest.approx(PRIOR[unit.heuristic])


def test_explicit_files_win_over_the_commit_paths() -> None:
    units = extract_units(make_commit("x", "Proxies must have schemes."), files=("a.py",))
    assert units[0].files == ("a.py",)


def test_pattern_absorbs_the_sentence_that_resolves_it() -> None:
    body = ("Streaming downloads hang when the pool is exhausted. Fixed by releasing the "
            "connection before retrying. The docs are also clearer.")
    units = extract_units(make_commit("Release pool connections early", body))
    pattern = units[0]
    assert pattern.type == "pattern"
    assert pattern.content == (
        "Streaming downloads hang when the pool is exhausted. "
        "Fixed by releasing the connection before retrying."
    )
    assert pattern.context.endswith("Fixed by releasing the connection before retrying.")
    assert pattern.weight == pytest.approx(PRIOR[pattern.heuristic] + RESOLUTION_BONUS)
    assert pattern.title == "Streaming downloads hang when the pool is exhausted"
    assert all("Fixed by" not in u.content for u in units[1:])  # absorbed, not repeated


def test_resolution_capture_is_capped_in_length() -> None:
    long_fix = "Fixed by " + " ".join(f"step{i}" for i in range(120)) + "."
    body = f"Uploads fail when the body is a generator. {long_fix}"
    units = extract_units(make_commit("Handle generator bodies", body))
    assert units[0].content == "Uploads fail when the body is a generator."


def test_pattern_does_not_absorb_an_unrelated_sentence() -> None:
    body = "Uploads fail when the body is a generator. The changelog lists it."
    units = extract_units(make_commit("Handle generator bodies", body))
    assert units[0].content == "Uploads fail when the body is a generator."


@pytest.mark.parametrize("sentence,expected", [
    ("Fixes #12, #13 and #14.", False),  # only references
    ("See gh-12 and #13 for the abc1234 sha.", False),
    ("The facade defaced accessed", True),  # hex-looking words are words, not shas
    ("Must be fixed.", False),  # fewer than three content words
    ("Raises KeyError.", True),  # a named failure is substantive on its own
    ("The adapter must be mounted first.", True),
    ("x" * 500, False),  # too long to be a sentence
    ("Too short", False),
    ("Otherwise the docs builds are broken due to", False),  # cut off where code was
    ("The session proxies are merged with:", False),
    ("but it only works with FLASK_APP set", False),  # its start was cut
])
def test_substantive_filter(sentence: str, expected: bool) -> None:
    assert is_substantive(sentence) is expected


def test_reference_only_sentences_yield_no_unit() -> None:
    units = extract_units(make_commit("Add pool reaper thread", "This must close #12 and #13."))
    assert units == []


@pytest.mark.parametrize("subject,body,expected_type", [
    ("Don't send cookies to the redirect target", "", "skill"),
    ("Fix crash in the chunked parser", "", "pattern"),
    ("Guard against users sending unprepared requests", "", "skill"),
    ("Session cookies are now kept across redirects", "", "fact"),
    ("Add a directory of trusted CA bundles",
     "This allows corporate proxies to be trusted without patching certifi.", "fact"),
])
def test_subject_fallback(subject: str, body: str, expected_type: str) -> None:
    units = extract_units(make_commit(subject, body))
    assert len(units) == 1
    unit = units[0]
    assert (unit.type, unit.heuristic) == (expected_type, f"{expected_type}.subject-fallback")
    assert unit.weight == FALLBACK_PRIOR
    assert unit.content.startswith(subject)
    if body:
        assert unit.content == f"{subject}. {body}"


def test_fallback_prefers_the_body_sentence_that_gives_the_reason() -> None:
    body = ("The cookie jar is copied per request. Previously the jar was shared, so a "
            "redirect to another host leaked cookies.")
    units = extract_units(make_commit("Copy cookies per request", body))
    assert units[0].content == (
        "Copy cookies per request. Previously the jar was shared, so a redirect to another "
        "host leaked cookies."
    )


@pytest.mark.parametrize("subject,paths", [
    ("Add a new option to the CLI", ("src/cli.py",)),  # says nothing about behaviour
    ("Fix typo in the quickstart", ("src/cli.py",)),  # housekeeping wording
    ("Handle empty headers properly", ("docs/api.rst", "tests/test_api.py")),  # docs/tests only
    ("Fixes #1234", ("src/cli.py",)),  # only a reference
    ("wip", ("src/cli.py",)),
])
def test_no_fallback_for_housekeeping_or_empty_subjects(subject: str, paths) -> None:
    assert extract_units(make_commit(subject, paths=paths)) == []


def test_docs_tests_and_ci_only_commits_yield_nothing() -> None:
    body = "The adapter must be mounted before the first request."
    paths = ("docs/api.rst", "tests/test_adapters.py", ".github/workflows/ci.yml", "README.md")
    assert extract_units(make_commit("Explain adapters", body, paths=paths)) == []
    assert extract_units(make_commit("Explain adapters", body, paths=paths + ("src/a.py",)))


def test_housekeeping_subject_keeps_body_units_only() -> None:
    commit = make_commit("Fix typo and must-have wording in the docstring",
                         "The adapter must be mounted before the first request.")
    assert [u.content for u in extract_units(commit)] == [
        "The adapter must be mounted before the first request."]


@pytest.mark.parametrize("subject,expected", [
    ("Use seek from end rather than getvalue", []),  # a refactor: the diff says as much
    ("Remove deprecated config loader", []),  # an edit, no behaviour, no reason
    ("Use seek from end instead of getvalue for file-like bodies", ["skill.recommend"]),
    ("Remove the pool lock. It deadlocked when two workers shut down at once.",
     ["pattern.named-failure"]),
])
def test_subjects_that_name_an_edit_need_a_when_or_why(subject: str, expected) -> None:
    head, _, body = subject.partition(". ")
    assert [u.heuristic for u in extract_units(make_commit(head, body))] == expected


def test_merge_subject_falls_back_to_the_pr_title_in_the_body() -> None:
    commit = make_commit("Merge pull request #7 from ada/empty-headers",
                         "Handle empty link headers without crashing", pr=7)
    units = extract_units(commit)
    assert [(u.type, u.content, u.pr) for u in units] == [
        ("pattern", "Handle empty link headers without crashing", 7)]


def test_duplicate_sentences_are_one_unit() -> None:
    body = "The pool must be closed before exit.\n\nThe pool must be closed before exit!"
    units = extract_units(make_commit("Close pool", body))
    assert len(units) == 1


def test_units_per_commit_are_capped_keeping_the_strongest_in_order() -> None:
    lines = [f"Option{i} must be set before the session{i} starts." for i in range(20)]
    lines.insert(13, "Workers hang when the queue{0} is full.".format(13))
    units = extract_units(make_commit("Document session options", " ".join(lines),
                                      paths=("src/session.py",)))
    assert len(units) == MAX_UNITS
    assert any(u.type == "pattern" for u in units)  # the strongest survives the cap
    positions = [" ".join(lines).index(u.content) for u in units]
    assert positions == sorted(positions)


def test_huge_body_is_bounded_in_time_and_units() -> None:
    body = ("The adapter must be mounted before the first request. " * 20
            + "x" * 2_000_000 + "\n" + "It hangs when the pool is full. " * 50_000)
    started = time.perf_counter()
    units = extract_units(make_commit("Mount adapters early " + "x" * 1_000_000, body))
    assert time.perf_counter() - started < 5  # a guard against runaway regexes, not a benchmark
    assert 1 <= len(units) <= MAX_UNITS


def test_titles_are_short() -> None:
    sentence = ("The connection pool must be drained and every idle socket must be closed "
                "before the interpreter shuts down, or the reaper thread deadlocks.")
    unit = extract_units(make_commit("Drain pool", sentence))[0]
    assert len(unit.title) <= 80 and unit.title.endswith("…")
    assert short_title("Short one.") == "Short one"


def test_replacement_characters_do_not_crash() -> None:
    subject = b"Caf\xe9 fails when \xff\xfe the locale is C".decode("utf-8", "replace")
    units = extract_units(make_commit(subject, "\ufffd" * 50))
    assert [u.type for u in units] == ["pattern"]


def test_empty_commit_message() -> None:
    assert extract_units(make_commit("", "")) == []


def test_real_repository_commit(make_repo) -> None:
    """End to end through history.walk: a latin-1 message and a real change list."""
    from whylens.history.repo import open_repository
    from whylens.history.walk import walk

    repo = make_repo()
    repo.commit("Initial layout of the pool module", {"pool.py": "x = 1\n"})
    repo.commit(
        b"Fix deadlock in the pool reaper\n\nThe reaper deadlocks when a caf\xe9 worker holds "
        b"the lock. Fixed by taking the lock with a timeout.\n\nSigned-off-by: Ada <a@x.org>\n",
        {"pool.py": "x = 2\n"},
    )
    with open_repository(repo.root) as handle:
        commits = list(walk(handle))
    units = extract_units(commits[0])
    assert [u.type for u in units] == ["pattern", "pattern"]
    assert units[1].content.startswith("The reaper deadlocks when a caf")
    assert units[1].content.endswith("Fixed by taking the lock with a timeout.")
    assert all(u.commit == repo.shas[-1] and u.files == ("pool.py",) for u in units)
