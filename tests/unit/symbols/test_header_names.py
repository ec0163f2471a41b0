"""``hunks.defined_names``: which names the definition headers of changed lines spell, read
without the regex engine's backtracking blowing up on lines nobody writes by hand."""

from __future__ import annotations

import base64
import random
import signal
from collections import Counter

import pytest

from whylens.symbols.hunks import HEADER_LINE_MAX, defined_names


@pytest.fixture
def hang_guard():
    """Fail instead of hanging: each call below takes milliseconds; it took seconds before."""
    def _timeout(signum, frame):
        raise AssertionError("defined_names hung")

    previous = signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_headers_are_found_in_ordinary_code():
    js = [b"function send(req) {\n", b"  const retry = async (n) => n + 1;\n",
          b"exports.close = function () {\n", b"  static get timeout() {\n"]
    assert defined_names("javascript", js) == Counter({b"send": 1, b"retry": 1, b"close": 1,
                                                        b"timeout": 1})
    java = [b"  public static Map<String, Integer> counts(List<String> words) {\n"]
    assert defined_names("java", java) == Counter({b"counts": 1})


def test_a_source_map_line_is_read_in_linear_time(hang_guard):
    """axios's dist/axios.js removed a 51 KB base64 source-map line: every start inside its one
    long word was tried against `name = function` (2.4 s; 70 s of one index run). A name is now
    only tried where one starts; the line, longer than any header, is not searched at all."""
    blob = base64.b64encode(random.Random(5).randbytes(300_000))
    line = b"//# sourceMappingURL=data:application/json;base64," + blob + b"\n"
    assert defined_names("javascript", [line]) is None  # unknown: the anchorer parses
    short = b"x" * (HEADER_LINE_MAX - 40) + b" = function () {\n"
    assert defined_names("javascript", [short]) == Counter({b"x" * (HEADER_LINE_MAX - 40): 1})


def test_a_long_line_of_blanks_is_not_searched(hang_guard):
    """Java's header pattern took 7 s on 50 KB of alternating blanks and tabs."""
    assert defined_names("java", [b" \t" * 25_000 + b"x\n"]) is None
    assert defined_names("java", [b" \t" * 400 + b"void run() {\n"]) == Counter({b"run": 1})
