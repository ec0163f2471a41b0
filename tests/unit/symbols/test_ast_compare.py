"""``same_tree`` answers as ``ast.dump`` equality does, without the dumps."""

from __future__ import annotations

import ast
import itertools

import pytest

from whylens.symbols.ast_compare import same_module, same_tree
from whylens.symbols.formatting import same_ast

SNIPPETS = [
    "x = 1", "x = 1.0", "x = True", "x = -0.0", "x = 0.0", "x = float('nan')", "x = ...",
    "x = None", "x = 'a'", "x = b'a'", "x = u'a'", "x = 1j", "x = (1, 2)", "x = [1, 2]",
    "from . import a", "from .a import b", "from a import b", "import a as b", "import a",
    "def f(a: int) -> int: return a", "def f(a): return a", "def f(a) -> None: return",
    "def f(*, a=None): pass", "def f(a=None): pass", "f(a=1)", "f(**a)", "f(*a)",
    "x: int", "x: int = 1", "x = y = 1", "global a, b", "global ab", "lambda: 0",
    "class A: pass", "class A(B): pass", "class A(metaclass=M): pass", "a[1:2]", "a[1:2:]",
    "a[::2]", "raise", "raise E", "raise E from None", "return", "return None",
]


def _dump_equal(a: str, b: str) -> bool:
    dump = lambda s: ast.dump(ast.parse(s), annotate_fields=False)  # noqa: E731
    return dump(a) == dump(b)


def test_same_tree_answers_as_dump_equality_for_every_pair():
    for a, b in itertools.product(SNIPPETS, repeat=2):
        assert same_tree(ast.parse(a), ast.parse(b)) is _dump_equal(a, b), (a, b)


def test_a_field_left_out_or_missing_is_compared_as_dump_leaves_it_out():
    # a transform may blank an optional field or build a node without one
    plain, blanked = ast.parse("def f(a: int): pass"), ast.parse("def f(a): pass")
    plain.body[0].args.args[0].annotation = None
    assert same_tree(plain, blanked)
    built = ast.Module(body=[ast.Assign(targets=[ast.Name("x", ast.Store())],
                                        value=ast.Constant(1))], type_ignores=[])
    assert same_tree(built, ast.parse("x = 1"))
    assert not same_tree(built, ast.parse("x = 2"))


def _nested(depth: int, leaf: int) -> ast.expr:
    node: ast.expr = ast.Constant(leaf)
    for _ in range(depth):
        node = ast.UnaryOp(ast.USub(), node)
    return node


def test_a_tree_too_deep_for_ast_dump_is_compared():
    deep = _nested(5000, 1)
    with pytest.raises(RecursionError):
        ast.dump(deep)
    assert same_tree(deep, _nested(5000, 1))
    assert not same_tree(deep, _nested(5000, 2))
    assert not same_tree(deep, _nested(4999, 1))


def test_same_ast_still_sees_layout_as_layout_and_code_as_code():
    assert same_ast(b"x = foo(a,\n        b)\n", b"x = foo(a, b)  # c\n") is True
    assert same_ast(b"    if a:\n        g()\n", b"    if a:\n            g()\n") is True
    assert same_ast(b"x = 1\n", b"x = 1.0\n") is False
    assert same_ast(b"x = (\n", b"x = 1\n") is None


_HEAD = "".join(f"def head{i}(a, b):\n    return a + {i}\n\n\n" for i in range(30))
_TAIL = "".join(f"class Tail{i}:\n    x = {i}\n\n\n" for i in range(30))
EDITS = [  # (old middle, new middle) between a shared head and tail of a whole file
    ("def f(a,\n      b):\n    return a\n", "def f(a, b):\n    return a\n"),  # a reformat
    ("def f(a, b):\n    return a\n", "def f(a, b):\n    return b\n"),
    ("x = 1\n", "x = 1; y = 2\n"),  # statements sharing a line
    ('s = """\n', 's = 1\n'),  # the old middle opens a string the tail closes... or not
    ("if a:\n    pass\n", "if a:\n    pass\nelse:\n    pass\n"),
    ("    pass\n", ""),  # an indented line continuing the head's last function
    ("@decorator\n", ""),  # a decorator of the tail's first class
    ("# a comment\n", "# another comment\n"),
    ("x = (\n", "x = 1\n"),  # an open bracket the tail does not close
    ("x = 1\r\n", "x = 1\n"),
    ("", "def g():\n    pass\n"),
    ("def f():\n    return 1\n", "def f():\n    return 1\n\n\n# trailing\n"),
    ("z = [\n1,\n]; w = 2\n", "z = [\n1, 2,\n]; w = 2\n"),  # the shared line holds two
    ("a = 1\rb = (2)\rc = 3\n", "a = 1\rb = 2\rc = 3\n"),  # old Mac line ends count in the AST
]


def _full(old: str, new: str) -> bool | None:
    try:
        return ast.dump(ast.parse(old)) == ast.dump(ast.parse(new))
    except SyntaxError:
        return None


def test_same_module_answers_as_parsing_both_files_whole():
    for old_middle, new_middle in EDITS:
        for head, tail in ((_HEAD, _TAIL), ("", _TAIL), (_HEAD, ""), ("", "")):
            old, new = head + old_middle + tail, head + new_middle + tail
            assert same_module(old, new) is _full(old, new), (old_middle, new_middle, len(head))
            assert same_module(new, old) is _full(new, old), (new_middle, old_middle, len(head))


def test_same_module_parses_the_old_file_only_where_it_differs(monkeypatch):
    parsed: list[int] = []
    real = ast.parse
    monkeypatch.setattr(ast, "parse", lambda text, *a, **k: parsed.append(len(text)) or real(text, *a, **k))
    old = _HEAD + "def f(a,\n      b):\n    return a\n" + _TAIL
    new = _HEAD + "def f(a, b):\n    return a\n" + _TAIL
    assert same_module(old, new) is True
    assert parsed[0] == len(new) and sum(parsed[1:]) < 100
