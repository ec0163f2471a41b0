"""Known pitfalls: the gate's table, then matching against a real indexed history."""

from __future__ import annotations

import pytest

from whylens.models import Unit
from whylens.retrieval.errortext import parse_error_text
from whylens.retrieval.pitfall_signals import GATE, score
from whylens.retrieval.pitfalls import MAX_PER_FILE, commits_of, explain_error, match_errors

from retrieval.pool_history import POOL_V5


def _unit(content: str, type_: str = "pattern") -> Unit:
    return Unit(id="u1", type=type_, title=content[:30], content=content, weight=0.8,
                context=content, commit="c" * 40, author="A", date="2024-01-01T00:00:00+00:00",
                files=("src/pool.py",), symbols=("fetch",))


PATTERN = _unit("fetch deadlocked with PoolExhaustedError when every connection was checked out")

GATE_TABLE = [
    # error text, symbol strength, search rank signal, passes?  (why)
    ("PoolExhaustedError: no connection", 0.0, 0.0, False),  # a specific failure name alone
    ("PoolExhaustedError", 1.0, 0.0, True),  # ... and the failing symbol
    ("PoolExhaustedError", 0.0, 1.0, True),  # ... or search's first hit for the error
    ("every connection checked out, deadlocked fetch", 0.0, 0.0, False),  # words alone
    ("something unrelated happened", 1.0, 0.0, False),  # the symbol alone
    ("something unrelated happened", 0.0, 1.0, False),  # the search rank alone
    ("TypeError: bad operand", 1.0, 0.0, False),  # generic name not in the unit, symbol only
    ("every connection checked out, deadlocked fetch", 1.0, 0.0, True),  # symbol + 4 words
]


@pytest.mark.parametrize("text,strength,retrieval,passes", GATE_TABLE)
def test_gate_table(text, strength, retrieval, passes):
    """No single signal passes the gate (bench/tune_errors.py chose the weights under that
    rule); two strong ones do."""
    confidence, _signals = score(PATTERN, parse_error_text(text), strength, retrieval)
    assert (confidence >= GATE) is passes, confidence


def test_a_generic_name_counts_for_less_than_a_specific_one():
    unit = _unit("fetch got TypeError when the url was bytes")
    generic, _ = score(unit, parse_error_text("TypeError: x"), 1.0)
    specific, _ = score(PATTERN, parse_error_text("PoolExhaustedError: x"), 1.0)
    assert generic < GATE <= specific


def test_a_skill_alone_is_not_a_pitfall():
    skill = _unit("Fixed PoolExhaustedError by calling try_get", type_="skill")
    confidence, _ = score(skill, parse_error_text("PoolExhaustedError"), 0.0)
    assert confidence < GATE


TRACE = '''Traceback (most recent call last):
  File "/home/dev/checkout/src/pool.py", line 11, in fetch
    conn = pool.get()
src.pool.PoolExhaustedError: every connection is checked out
'''


def test_explain_error_finds_the_fixed_failure(pool_repo):
    repo, shas, reader = pool_repo
    pitfalls = explain_error(reader, TRACE)
    assert pitfalls, "the deadlock fixed in commit 2 should match"
    top = pitfalls[0]
    assert top.item.commit == shas["deadlock"] and top.item.type == "pattern"
    assert top.score >= GATE
    assert "PoolExhaustedError" in top.reason
    assert top.fix is None or top.fix.commit == shas["deadlock"]
    seen = [c for p in pitfalls for c in commits_of(p.item)]
    assert len(seen) == len(set(seen))  # a unit and its commit's record are one pitfall


@pytest.mark.parametrize("text", ["", "all good", "KeyError: 'x'", "\x00\xff" * 100])
def test_explain_error_stays_silent_when_unsure(pool_repo, text):
    _repo, _shas, reader = pool_repo
    assert explain_error(reader, text) == []


def test_match_errors_on_lines(pool_repo):
    repo, shas, reader = pool_repo
    errors = [
        {"line": 11, "message": "PoolExhaustedError: every connection is checked out",
         "source": "pytest", "code": None},
        {"line": 3, "message": "list index out of range", "source": "pytest", "code": None},
        {"line": "x", "message": "garbage"}, "not a dict",
        {"line": 0, "message": "PoolExhaustedError"},
    ]
    found = match_errors(reader, "src/pool.py", POOL_V5, errors)
    assert [p.line for p in found] == [11]
    assert found[0].item.commit == shas["deadlock"]
    assert "fetch" in found[0].reason


def test_match_errors_caps_per_file_and_never_repeats(pool_repo):
    _repo, _shas, reader = pool_repo
    errors = [{"line": n, "message": "PoolExhaustedError: deadlocked, connection checked out",
               "source": "x", "code": "E1"} for n in range(1, 13)]
    found = match_errors(reader, str(reader.meta["repo"]) + "/src/pool.py", POOL_V5, errors)
    assert 1 <= len(found) <= MAX_PER_FILE
    assert len({p.item.id for p in found}) == len(found)


# --- this round: the signals of where and what failed, trace paths, no question gate -----------

from whylens.retrieval import gate as question_gate  # noqa: E402
from whylens.retrieval.pitfall_signals import names_frame, signals  # noqa: E402


def test_names_frame_by_name_or_by_the_words_of_a_compound_name():
    frames = [("ServerResponse.jsonp", 1.0), ("normalize_header_value", 0.85)]
    assert names_frame("Fix handling of undefined in res.jsonp", frames) == 1.0
    assert names_frame("Clarified error when header value is None", frames) == 0.85
    assert names_frame("Keep jsonpCallback for old clients", frames) == 0.0  # another name
    assert names_frame("Fix main loop", [("main", 1.0), ("<module>", 0.85)]) == 0.0


def test_absent_needs_a_missing_value_on_both_sides():
    unit = _unit("Fix handling of undefined when json escape is enabled")
    missing = parse_error_text("TypeError: Cannot read properties of undefined (reading 'x')")
    other = parse_error_text("TypeError: value.split is not a function")
    assert signals(unit, missing)["absent"] == 1.0
    assert signals(unit, other)["absent"] == 0.0


def test_where_it_failed_alone_never_passes():
    """The failing function, a text naming it and a fix word, without a word of what failed
    (bench/tune_errors.py's design rule): no hint on every error in a function with history."""
    unit = _unit("Fix fetch when the pool is empty", type_="pattern")
    parsed = parse_error_text("RuntimeError: something else entirely")
    confidence, values = score(unit, parsed, 1.0, 0.0, [("fetch", 1.0)])
    assert values["names"] == 1.0 and values["symbol"] == 1.0
    assert confidence < GATE


INSTALLED_TRACE = '''Traceback (most recent call last):
  File "/home/dev/.venv/lib/python3.11/site-packages/pool.py", line 11, in fetch
    conn = pool.get()
pool.PoolExhaustedError: every connection is checked out
'''


def test_a_trace_from_an_installed_copy_finds_the_source_layout_file(pool_repo):
    """site-packages/pool.py is the repository's src/pool.py: the frame anchors there."""
    _repo, shas, reader = pool_repo
    assert reader.paths_for_trace_file(
        "/home/dev/.venv/lib/python3.11/site-packages/pool.py") == ["src/pool.py"]
    assert reader.paths_for_trace_file("/home/u/checkout/src/pool.py") == ["src/pool.py"]
    assert reader.paths_for_trace_file("pool.py") == ["src/pool.py"]  # a JVM-style bare name
    assert reader.paths_for_trace_file("/usr/lib/python3.11/json/decoder.py") == []
    top = explain_error(reader, INSTALLED_TRACE)[0]
    assert top.item.commit == shas["deadlock"]
    assert top.reason.endswith("in fetch")  # found through the failing frame


def test_explain_error_does_not_use_the_question_gate(pool_repo, monkeypatch):
    """An error text is not a question: whatever the question gate would say, explain-error
    finds the same pitfalls with the same confidence."""
    _repo, shas, reader = pool_repo
    seen = []
    for sure in (0.0, 1.0):
        monkeypatch.setattr(question_gate, "confidence", lambda _features, sure=sure: sure)
        seen.append([(p.item.id, p.score) for p in explain_error(reader, TRACE)])
    assert seen[0] == seen[1] and seen[0][0][0]


def test_an_error_without_a_failing_function_here_has_its_own_setting():
    """Frameless: two message words, search's first hit and a fix word pass, where the framed
    setting (which leans on where-it-failed evidence) would stay silent."""
    from whylens.retrieval.pitfall_signals import confidence, setting

    values = {"words": 0.5, "retrieval": 1.0, "fix": 1.0}
    weights, gate = setting(())
    assert confidence("pattern", values, weights) >= gate
    framed_weights, framed_gate = setting((("fetch", 1.0),))
    assert confidence("pattern", values, framed_weights) < framed_gate
    assert setting((), symbol=0.85) == (framed_weights, framed_gate)  # anchored: framed
