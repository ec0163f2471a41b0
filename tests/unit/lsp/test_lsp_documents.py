"""The symbol under a cursor, from the current text's outline."""

from __future__ import annotations

from pathlib import Path

import pytest

from whylens.lsp.documents import Document, word_at
from whylens.lsp.workspaces import RepoWorkspace
from whylens.symbols.outline import outline

SOURCE = '''\
class Session:
    def send(self, request):
        return self.retry(request)

    def retry(self, request):
        return request


def helper():
    return Session().send(None)
'''


@pytest.fixture
def doc():
    ws = RepoWorkspace("file:///r", Path("/r"), Path("/r/.git"), Path("/idx"))
    symbols = tuple(outline(SOURCE.encode(), "python"))
    return Document("file:///r/s.py", ws, "s.py", SOURCE, SOURCE.splitlines(True), "python",
                    symbols)


@pytest.mark.parametrize(
    ("line", "column", "expected"),
    [
        pytest.param(2, 9, "Session.send", id="on-the-name"),
        pytest.param(2, 4, "Session.send", id="on-def-keyword"),
        pytest.param(1, 8, "Session", id="class-name"),
        pytest.param(3, 22, "Session.retry", id="call-site-in-same-file"),
        pytest.param(10, 22, "Session.send", id="call-site-other-symbol"),
        pytest.param(3, 8, None, id="keyword-in-body"),
        pytest.param(7, 0, None, id="blank-line"),
    ],
)
def test_symbol_under_cursor(doc, line, column, expected):
    found = doc.symbol_under_cursor(line, column)
    assert (found.name if found else None) == expected


DUPLICATE_NAMES = '''\
class A:
    @property
    def name(self):
        return 1


class B:
    @property
    def name(self):
        return 2
'''


@pytest.mark.parametrize("column", [8, 10, 12], ids=["start", "inside", "end"])
def test_a_cursor_anywhere_on_the_name_including_its_end(column):
    """Editors put the cursor after the last character; here nothing else can rescue the lookup
    (the decorator line starts the definition, and the short name is not unique)."""
    ws = RepoWorkspace("file:///r", Path("/r"), Path("/r/.git"), Path("/idx"))
    symbols = tuple(outline(DUPLICATE_NAMES.encode(), "python"))
    doc = Document("file:///r/d.py", ws, "d.py", DUPLICATE_NAMES, DUPLICATE_NAMES.splitlines(True),
                   "python", symbols)
    found = doc.symbol_under_cursor(3, column)
    assert found is not None and found.name == "A.name"
    assert doc.symbol_under_cursor(3, 13) is None  # past the name: "(" is not part of it


def test_innermost_and_by_name(doc):
    assert doc.innermost(3).name == "Session.send"
    assert doc.innermost(7) is None
    assert doc.symbol_named("helper").start_line == 9
    assert doc.symbol_named("nope") is None


@pytest.mark.parametrize(
    ("line", "column", "word"),
    [("return self.retry(x)", 13, "retry"), ("a = b", 2, None), ("", 0, None), ("x_1", 3, "x_1")],
)
def test_word_at(line, column, word):
    assert word_at(line, column) == word
