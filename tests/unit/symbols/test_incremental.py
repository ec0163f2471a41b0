"""Incremental outlines (edited tree + copied definitions) equal outlines parsed from scratch."""

from __future__ import annotations

import difflib

import pytest

from whylens.models import Hunk
from whylens.symbols.hunks import hunk_rows as _rows
from whylens.symbols.extract import parse_outline, reparse_outline
from whylens.symbols.outline import outline


def _hunks(a: list[str], b: list[str]) -> list[Hunk]:
    """``git diff -U0`` style hunks between two line lists."""
    hunks = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        old_count, new_count = i2 - i1, j2 - j1
        hunks.append(Hunk(i1 if old_count == 0 else i1 + 1, old_count,
                          j1 if new_count == 0 else j1 + 1, new_count))
    return hunks


def _shape(o):
    return [(d.symbol, d.start_byte, d.end_byte, d.body_byte, d.parent, d.scope)
            for d in o.definitions]


BASE = '''\
import os


class Session:
    """A session."""

    timeout = 3

    def send(self, request):
        return self.adapter.send(request)

    @property
    def closed(self):
        return self._closed

    def close(self):
        def inner():
            pass
        self.adapter.close()


def helper(x):
    return x * 2


def other():
    return 1
'''

EDITS = {
    "body line": BASE.replace("return x * 2", "return x * 3"),
    "insert a method": BASE.replace("    def close(self):",
                                    "    def reset(self):\n        pass\n\n    def close(self):"),
    "delete the last methods of a class": BASE.replace(
        "    @property\n    def closed(self):\n        return self._closed\n\n", ""),
    "rename a class": BASE.replace("class Session:", "class Client:"),
    "indent a function into the class": BASE.replace(
        "\n\ndef helper(x):\n    return x * 2\n",
        "\n    def helper(self, x):\n        return x * 2\n"),
    "unclosed bracket": BASE.replace("return self._closed", "return (self._closed"),
    "comment out a block": BASE.replace("    def send(self, request):\n        return",
                                        "    # def send(self, request):\n    #     return"),
    "append at the end": BASE + "\n\nclass Extra:\n    def go(self):\n        return 0\n",
    "prepend at the start": "import sys\n" + BASE,
    "delete everything": "",
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_reparse_equals_a_fresh_parse_both_ways(edit):
    before, after = BASE.encode(), EDITS[edit].encode()
    hunks = _hunks(BASE.splitlines(), EDITS[edit].splitlines())
    ranges = [_rows(h) for h in hunks]
    old, new = parse_outline(before, "python"), parse_outline(after, "python")
    assert _shape(reparse_outline(old, after, ranges)) == _shape(new)
    back = [(nr, nc, orow, oc) for orow, oc, nr, nc in ranges]
    assert _shape(reparse_outline(new, before, back)) == _shape(old)


def test_reparse_in_other_languages():
    go = "package x\n\nfunc A() {}\n\ntype S struct{}\n\nfunc (s *S) M() int {\n\treturn 1\n}\n"
    edited = go.replace("return 1", "return 2\n\t// more")
    hunks = _hunks(go.splitlines(), edited.splitlines())
    old = parse_outline(go.encode(), "go")
    assert _shape(reparse_outline(old, edited.encode(), [_rows(h) for h in hunks])) == \
        _shape(parse_outline(edited.encode(), "go"))
    assert [s.name for s in outline(edited.encode(), "go")] == ["A", "S", "(*S).M"]


def test_deeply_nested_definitions_follow_the_same_depth_rule():
    js = ("describe('x', () => {\n  it('y', () => {\n    function deep() {\n      return 1;\n"
          "    }\n  });\n});\nfunction top() {\n  return 2;\n}\n")
    edited = js.replace("return 1;", "return 3;")
    hunks = _hunks(js.splitlines(), edited.splitlines())
    old = parse_outline(js.encode(), "javascript")
    again = reparse_outline(old, edited.encode(), [_rows(h) for h in hunks])
    assert _shape(again) == _shape(parse_outline(edited.encode(), "javascript"))
    assert [s.name for s in again.symbols] == ["top"]  # "deep" is past the search depth
