"""The heuristics table: each row fires on the sentences it is meant for, and no other row wins."""

from __future__ import annotations

import pytest

from whylens.knowledge.heuristics import HEURISTICS, classify, is_resolution, vetoed

# (sentence, expected heuristic name or None)
CASES = [
    # Pattern
    ("os.path.expanduser fails when HOME is not set.", "pattern.fails-when"),
    ("The connection hangs if the server never sends a body.", "pattern.fails-when"),
    ("Headers are silently dropped after a redirect.", "pattern.fails-when"),
    ("Crashes on startup with an empty config file.", "pattern.fails-when"),
    ("Calling json() on an empty body raised a JSONDecodeError.", "pattern.named-failure"),
    ("A deadlock could occur between the pool and the reaper thread.", "pattern.named-failure"),
    ("Users see ConnectionResetError from long-lived sessions.", "pattern.named-failure"),
    ("Streaming uploads regressed in 2.31.", "pattern.regression"),
    ("Proxy support broken since 2.30.0 with an auth error.", "pattern.regression"),
    ("Digest auth no longer works with urllib3 2.", "pattern.regression"),
    ("The retry count was wrong due to a shared counter.", "pattern.cause"),
    ("Reusing the adapter leads to stale connections being lost.", "pattern.cause"),
    # Skill
    ("Fixed by passing the timeout to every adapter.", "skill.fixed-by"),
    ("Avoid the race by taking the lock before reading the queue.", "skill.fixed-by"),
    ("Workaround: pin urllib3 below 2.0 for old OpenSSL.", "skill.solution"),
    ("The fix is to close the response before retrying.", "skill.solution"),
    ("Use Session.mount instead of patching the adapter.", "skill.recommend"),
    ("We recommend a dedicated session per thread.", "skill.recommend"),
    ("Prefer explicit encodings over chardet guesses.", "skill.recommend"),
    ("To stream large files, pass stream=True and iterate over chunks.", "skill.instructional"),
    ("If you need client certificates, set cert on the session.", "skill.instructional"),
    ("Switch to the stdlib json module for speed.", "skill.switch"),
    ("Users can pass a tuple to timeout instead.", "skill.switch"),
    # Fact
    ("Note: the session keeps cookies across redirects.", "fact.annotation"),
    ("Warning: this API is not thread-safe.", "fact.annotation"),
    ("The adapter must be mounted before the first request.", "fact.modal"),
    ("A blueprint name cannot contain a dot.", "fact.modal"),
    ("Certifi is always used for the default bundle.", "fact.always-never"),
    ("The URLRequired exception is never raised.", "fact.always-never"),
    ("SNI support requires pyOpenSSL on Python 2.", "fact.requires"),
    ("The cert option is only valid when verify is enabled.", "fact.requires"),
    ("HEAD requests do not follow redirects by default.", "fact.default"),
    ("The environment proxy takes precedence over the session proxy.", "fact.default"),
    ("Callers should not reuse a prepared request.", "fact.should"),
    ("Passing json=None is equivalent to sending no body at all.", "fact.equivalence"),
    ("The app.route decorator is shorthand for add_url_rule.", "fact.equivalence"),
    ("Proxies should have schemes.", "fact.should"),
    # Nothing
    ("Update the changelog.", None),
    ("Add a new option to the CLI.", None),
    ("This PR should fix the build.", None),
    ("I think we should always close it.", None),
    ("Should the adapter be mounted first?", None),
    ("Thanks to everyone who must have tested this.", None),
    ("Perhaps this never happens in practice.", None),
    ("Add a missing space when referring to Stack Overflow.", None),
    ("Document the timeout parameter.", None),
    ("Rebased on main and addressed review comments.", None),
]


@pytest.mark.parametrize("sentence,expected", CASES, ids=[c[0][:40] for c in CASES])
def test_classify(sentence: str, expected: str | None) -> None:
    fired = classify(sentence)
    assert (fired.name if fired else None) == expected


def test_table_has_three_heuristics_per_type_with_priors() -> None:
    for type_ in ("fact", "skill", "pattern"):
        rows = [h for h in HEURISTICS if h.type == type_]
        assert len(rows) >= 3
        assert all(0 < h.prior < 1 and h.name.startswith(type_ + ".") for h in rows)
    assert len({h.name for h in HEURISTICS}) == len(HEURISTICS)


def test_every_heuristic_has_a_case() -> None:
    covered = {expected for _, expected in CASES}
    assert {h.name for h in HEURISTICS} <= covered


def test_pattern_wins_over_skill_when_a_sentence_names_failure_and_fix() -> None:
    fired = classify("Fix a deadlock when the pool is exhausted by releasing the lock first.")
    assert fired is not None and fired.type == "pattern"


@pytest.mark.parametrize("sentence,veto", [
    ("Is this thread-safe?", "question"),
    ("Maybe it must be closed.", "hedge"),
    ("I changed the adapter so it must close.", "first-person"),
    ("Thank you, this must be merged.", "thanks"),
    ("Squashed and rebased, the pool must close.", "review-chatter"),
    ("The pool must close.", None),
])
def test_vetoes(sentence: str, veto: str | None) -> None:
    assert vetoed(sentence) == veto


@pytest.mark.parametrize("sentence,expected", [
    ("Fixed by closing the pool first.", True),
    ("Workaround: pin the version.", True),
    ("This commit fixes it by draining the queue.", True),
    ("To avoid this, the lock is taken first.", True),
    ("The parser is also faster now.", False),
])
def test_is_resolution(sentence: str, expected: bool) -> None:
    assert is_resolution(sentence) is expected
