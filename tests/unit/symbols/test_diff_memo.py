"""Whole-version diffs remembered by blob pair, shared by the line blame and the anchorer."""

from __future__ import annotations

from whylens.pipeline.anchoring import _Both
from whylens.symbols import hunks
from whylens.symbols.hunks import DiffMemo, diff_hunks

OLD = b"".join(b"def f%d(x):\n    return x + %d\n\n" % (n, n) for n in range(50))
NEW = OLD.replace(b"x + 7\n", b"x * 7\n").replace(b"def f30", b"def g30") + b"def h():\n    pass\n"


def test_a_remembered_pair_gives_the_same_hunks_without_diffing_again(monkeypatch):
    memo = DiffMemo()
    first = memo.diff("a" * 40, "b" * 40, OLD, NEW)
    assert first == diff_hunks(OLD, NEW) and first
    calls = []
    monkeypatch.setattr(hunks, "diff_hunks", lambda *a, **k: calls.append(a) or [])
    again = memo.diff("a" * 40, "b" * 40, OLD, NEW)
    assert again == first and again is not first  # a fresh list: callers may keep their own
    assert not calls
    assert memo.diff("b" * 40, "a" * 40, NEW, OLD) == [] and len(calls) == 1  # another pair


def test_the_memo_holds_at_most_its_lines():
    memo = DiffMemo(max_lines=40)
    for n in range(20):
        memo.diff(f"{n:040d}", "f" * 40, OLD, NEW.replace(b"def h", b"def h%d" % n))
    assert memo._held <= 40


def test_the_blame_and_the_anchorer_share_one_memo():
    both = _Both(lambda sha: None, (), {}, None)
    assert both.anchorer._diffs is both.blame._diffs
