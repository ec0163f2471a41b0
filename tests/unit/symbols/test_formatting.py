"""Formatting-only and typing-only detection, per language (issue 13 item 4)."""

from __future__ import annotations

import pytest

from whylens.symbols.annotations import typing_only
from whylens.symbols.formatting import differs_beyond_brackets, formatting_only, surely_differs, tokens

SAME = [  # (language, old, new): only formatting differs
    ("python", b"x = foo(a, b)\n", b"x = foo(\n    a,\n    b,\n)\n"),
    ("python", b"x = 'a'\n", b'x = "a"\n'),
    ("python", b"return (x)\n", b"return x\n"),
    ("python", b"x = 1  # one\n", b"x = 1\n"),
    ("python", b"x = a + \\\n   b\n", b"x = a + b\n"),
    ("python", b"    def f(self):\n        return 1\n", b"    def f(self):\n        return (1)\n"),
    ("c", b"int x = 1; // c\n", b"int x = 1; /* other */\n"),
    ("c", b"return (x);\n", b"return x;\n"),
    ("javascript", b"const a = 'x';\n", b'const a = "x"\n'),
    ("javascript", b"return (\n  <div/>\n);\n", b"return <div/>;\n"),
    ("go", b"f(a,\n\tb)\n", b"f(a, b)\n"),
    ("rust", b"fn f<'a>(x: &'a str) {}\n", b"fn f<'a>(x: &'a str)  {}\n"),
    ("rust", b'let p = r"a\\b";\nlet q = r#"say "hi""#;\nf(x)\n',
     b'let p = r"a\\b";\nlet q = r#"say "hi""#;\nf(\n    x,\n)\n'),  # layout after raw strings
]
DIFFERENT = [
    ("python", b"    h()\n", b"        h()\n"),  # into a block: not layout
    ("python", b"    if a:\n        g()\n    h()\n", b"    if a:\n        g()\n        h()\n"),
    ("python", b"y = (a + b) * c\n", b"y = a + b * c\n"),
    ("python", b"f((a, b))\n", b"f(a, b)\n"),
    ("python", b'"""Doc."""\n', b'"""Docs."""\n'),
    ("c", b"char c = 'a';\n", b'char c = "a";\n'),  # a char is not a string
    ("ruby", b"x = '#{a}'\n", b'x = "#{a}"\n'),  # interpolation
    ("go", b"f(a, b)\n", b"f(a, b, c)\n"),
    ("rust", b'let p = r"a";\nf(x)\n', b'let p = r"a";\nf(y)\n'),  # code after a raw string
]


def test_a_rust_raw_string_ends_where_its_hashes_close():
    assert tokens("rust", b'let q = r#"say "hi""#; g()\n')[3:] == [b'r#"say "hi""#', b";", b"g",
                                                                  b"(", b")"]


@pytest.mark.parametrize("language,old,new", SAME)
def test_formatting_only(language, old, new):
    assert formatting_only(language, old, new)
    assert not surely_differs(language, old, new)


@pytest.mark.parametrize("language,old,new", DIFFERENT)
def test_substantive(language, old, new):
    assert not formatting_only(language, old, new)


def test_typing_only_is_python_annotations_and_nothing_else():
    assert typing_only("python", b"def f(a, b=1):\n    return a\n",
                       b"def f(a: int, b: int = 1) -> int:\n    return a\n")
    assert typing_only("python", b"    def f(a, b=1):\n",
                       b"    def f(a: int, b: 'Optional[int]' = 1) -> List[int]:\n")
    assert typing_only("python", b"    x = 1\n", b"    x: int = 1\n")
    assert not typing_only("python", b"    x = 2\n", b"    x: int = 1\n")
    assert not typing_only("python", b"x = 1\n", b"x = 1\n")  # nothing changed at all
    assert not typing_only("c", b"int f(a)\n", b"int f(int a)\n")


def test_garbage_never_raises():
    for language in ("python", "c", "javascript", "ruby", "rust", None):
        formatting_only(language, b"\xff\xfe '''\n", b"\x00\x01 ((\n")
        typing_only(language, b"def f(:\n", b"def f(:  \n")
    assert tokens("python", b"'unterminated\n") == [b"\x00I0", b"S:unterminated\n"] or tokens(
        "python", b"'unterminated\n")


def _c_file(lines: int) -> bytes:
    body = [b"/* A file of many functions. */\n", b'static const char *name = "/* not a comment";\n']
    for n in range(lines):
        body.append(b"int f%d(int x) {\n    /* step %d */\n    return x + %d; // done\n}\n" % (n, n, n))
    return b"".join(body)


@pytest.mark.parametrize("edit", [
    (b"/* step 500 */", b"/*   step 500, explained */"),  # a comment edited deep in the file
    (b"return x + 7; // done", b"return x + 7;   // done, surely"),
    (b"/* A file", b"/*\n * A file"),  # at the start
    (b"    return x + 999; // done\n}\n", b"    return x + 999; // done\n}\n\n\n"),  # the end
])
def test_a_whole_file_comment_edit_is_decided_without_lexing_it_all(monkeypatch, edit):
    """Only the stretch between the first and last difference is lexed (then both lexings
    meet again); the full token comparison is not run for an answer the raw tokens give."""
    import whylens.symbols.formatting as formatting

    old = _c_file(1000)
    new = old.replace(*edit)
    assert new != old
    monkeypatch.setattr(formatting, "tokens", lambda *a: pytest.fail("lexed both files whole"))
    assert formatting_only("c", old, new)


@pytest.mark.parametrize("old, new, same", [
    (b"a /* x */ b;\n", b"a /* xy */ b;\n", True),
    (b"a /* x b;\n*/ c;\n", b"a /* x b;\n */ c;\n", True),  # the edit inside a comment the head opens
    (b"/* x */ a; b; c;\n", b"/* x a; b; c;\n", False),  # the edit opens a comment that runs on
    (b's = "a b";\n', b's = "a  b";\n', False),  # inside a string: a different token
    (b"a = 1; // x\nb = 2;\n", b"a = 1; \nb = 2;\n", True),
    (b"int a;\n", b"inta;\n", False),
    (b"f(a, b);\n", b"f(a, b,);\n", True),  # raw tokens differ: normalised ones decide
])
def test_whole_file_formatting_agrees_with_token_comparison(old, new, same):
    prefix = b"int z;\n" * 300
    assert formatting_only("c", prefix + old + prefix, prefix + new + prefix) is same
    assert (tokens("c", prefix + old + prefix) == tokens("c", prefix + new + prefix)) is same


def test_a_whole_file_token_change_is_refused_without_lexing_it_all(monkeypatch):
    """Raw tokens that differ even without the commas, semicolons and parentheses normalising
    may drop answer False at once."""
    import whylens.symbols.formatting as formatting

    old = _c_file(1000)
    new = old.replace(b"return x + 500;", b"return x + '500';")  # quotes: squeezed alike
    assert not surely_differs("c", old, new)
    monkeypatch.setattr(formatting, "tokens", lambda *a: pytest.fail("lexed both files whole"))
    assert not formatting_only("c", old, new)


@pytest.mark.parametrize("opening", [
    b"/* a comment\n   that runs on\n" * 1 + b"   for many lines\n" * 200,  # the edit is inside it
    b'const char *s = "a string \\\n' + b"continued \\\n" * 200,  # a string continued by \
], ids=["block comment", "continued string"])
def test_the_head_resumes_before_a_construct_that_runs_into_the_edit(monkeypatch, opening):
    """The resume point for a whole-file edit is a line start no block comment or continued
    string covers: the stretch the edit sits in is lexed from where it opened."""
    import whylens.symbols.formatting as formatting

    head = _c_file(300)
    old = head + opening + b"   x y z\n" + (b"*/\n" if opening.startswith(b"/*") else b'";\n') \
        + _c_file(300)
    new = old.replace(b"   x y z\n", b"   x  y z w\n")  # in the comment / string: w is no token
    assert new != old
    assert (tokens("c", old) == tokens("c", new)) is opening.startswith(b"/*")
    monkeypatch.setattr(formatting, "tokens", lambda *a: pytest.fail("lexed both files whole"))
    assert formatting_only("c", old, new) is opening.startswith(b"/*")


def test_a_literal_whose_case_a_formatter_changed_is_formatting_only():
    # black upper-cases hex digits (flask's "Reformat with black" on send_file): the pre-check
    # must not call that a sure change; the AST then says it is the same code
    old = b"def f(name):\n    return hash(name) & 0xffffffff\n"
    new = b'def f(name):\n    return hash(name) & 0xFFFFFFFF\n'
    assert not surely_differs("python", old, new)
    assert formatting_only("python", old, new)
    # a name differing only in case is still a change
    assert not formatting_only("python", b"x = Foo\n", b"x = foo\n")
    assert not formatting_only("c", b"int x = Foo;\n", b"int x = foo;\n")
    # cut out of a definition, the changed lines leave it to the whole definition
    assert not differs_beyond_brackets("python", b"    return h & 0xff\n", b"    return h & 0xFF\n")
