"""Is a change only layout? Formatting-only detection, language-aware.

``formatting_only(language, old, new)`` answers for two versions of any piece of code (a whole
file, a definition, or the removed and added lines of a hunk):
- Python, when both sides parse (after removing their common indentation): AST equality (``ast``
  only parses; nothing is executed). Comments, layout, quotes, parentheses, trailing commas and
  line continuations are all invisible to the AST; a changed docstring is not.
- otherwise (other languages, Python fragments): the normalised token streams are equal. Tokens
  leave out whitespace, comments and line continuations; strings compare by value where both
  quote styles mean the same thing (Python, JavaScript/TypeScript, PHP, Ruby without
  interpolation); a comma before a closing bracket, parentheses around a whole expression in a
  delimited slot (``return (x)``, ``x = (a + b)``, ``f((y))``) and JavaScript semicolons are
  dropped; a Kotlin block that only returns (``{ return x }``) is the expression body ``= x``
  (ktlint's rewrite). Python keeps its structure: every logical line starts with a token
  holding its indentation, so moving a statement into a block is never formatting.

``typing_only`` (``symbols.annotations``) says that Python versions differ only by type
annotations. ``surely_differs`` is the C-speed pre-check the anchorer runs first: True means
some token certainly changed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from whylens.symbols.ast_compare import same_module, same_tree
from whylens.symbols.lexer import (
    BOTH_COMMENTS, HASH_COMMENTS, QUOTE_EQUIVALENT, lexer, raw_verdict,
)

_JS = frozenset({"javascript", "typescript", "tsx"})
REGION_CHARS = 4_000  # Python texts longer than this (both together) compare by region

OPEN = {b"(": b")", b"[": b"]", b"{": b"}"}
CLOSE = frozenset({b")", b"]", b"}"})
# A parenthesised expression may lose its parentheses when it fills a whole delimited slot:
# preceded by one of these and followed by one of ``_SLOT_AFTER`` (or the end).
_SLOT_BEFORE = frozenset({b"=", b"(", b"[", b",", b"{", b"return", b":"})
_PY_SLOT_BEFORE = _SLOT_BEFORE | {b"yield", b"in", b"if", b"elif", b"while", b"assert",
                                  b"await", b"else", b"+=", b"-=", b"|=", b"&="}
_SLOT_AFTER = frozenset({b")", b"]", b"}", b",", b";", b":"})
INDENT = b"\x00I"  # a Python logical line's indentation token starts with this

_LAYOUT = b" \t\r\n\f\v'\"`(),\\;"  # bytes formatting may add, drop or swap
# what a diff may move between the changed lines of one definition: a formatter that re-nests a
# block leaves a closing brace the diff pairs with another line (okhttp's Spotless reformat)
_MOVABLE = _LAYOUT + b"{}[]"
_RETURN = re.compile(rb"\breturn\b")

def _string_value(language: str, text: bytes) -> bytes:
    """A string token as compared: its value where quote styles are equivalent."""
    if language not in QUOTE_EQUIVALENT:
        return text
    start = 0
    while start < len(text) and text[start] not in b"'\"`":
        start += 1
    prefix = bytes(sorted(text[:start].lower().replace(b"u", b"")))
    body = text[start:]
    quote = body[:3] if body[:3] in (b"'''", b'"""') else body[:1]
    if language == "ruby" and (b"#{" in body or quote != b"'" and b"\\" in body):
        return text  # interpolation or escapes: '…' and "…" differ
    if quote == b"`":
        return text  # template literals interpolate
    inner = body[len(quote):]
    if inner.endswith(quote):
        inner = inner[:-len(quote)]
    inner = inner.replace(b"\\'", b"'").replace(b'\\"', b'"')
    return b"S" + prefix + b":" + inner


def raw_tokens(language: str, text: bytes) -> Iterator[tuple[bytes, int]]:
    """(token, 0-based line) for every token of ``text``; Python logical lines start with an
    indentation token. Comments, blanks and line continuations are left out."""
    python = language == "python"
    line = 0
    depth = 0
    at_start = True
    indent = 0
    for match in lexer(language).finditer(text):
        kind = match.lastgroup
        value = match.group()
        if kind == "n":
            line += 1
            if depth == 0:
                at_start, indent = True, 0
            continue
        if kind == "w":
            if at_start:
                indent += len(value.expandtabs(8))
            continue
        if kind == "k":
            line += 1
            continue
        if kind == "c":
            line += value.count(b"\n")
            continue
        if python and at_start and depth == 0:
            yield INDENT + str(indent).encode(), line
        at_start = False
        if kind == "s":
            yield _string_value(language, value), line
            line += value.count(b"\n")
            continue
        if value in OPEN:
            depth += 1
        elif value in CLOSE and depth:
            depth -= 1
        yield value, line


def normalise(language: str, pairs: list[tuple[bytes, int]]) -> list[tuple[bytes, int]]:
    """Drop what formatting tools add or remove: trailing commas, redundant parentheses and
    (JavaScript) semicolons."""
    js = language in _JS
    kept = [p for p in pairs if not (js and p[0] == b";")]
    if language == "kotlin":
        kept = _expression_bodies(kept)
    out: list[tuple[bytes, int]] = []
    for index, pair in enumerate(kept):
        if pair[0] == b"," and index + 1 < len(kept) and kept[index + 1][0] in CLOSE:
            continue
        out.append(pair)
    return _drop_parentheses(language, out)


def _expression_bodies(pairs: list[tuple[bytes, int]]) -> list[tuple[bytes, int]]:
    """Kotlin: every block whose first statement is a ``return`` as an expression body,
    ``{ return x }`` as ``= x`` (code after that return never runs; where the block is not a
    function's body, the rewritten side is no Kotlin a formatter writes)."""
    stack: list[int] = []
    rewrite: dict[int, int] = {}
    for index, (value, _) in enumerate(pairs):
        if value == b"{":
            stack.append(index)
        elif value == b"}" and stack:
            start = stack.pop()
            if index > start + 1 and pairs[start + 1][0] == b"return":
                rewrite[start] = index
    if not rewrite:
        return pairs
    drop = set(rewrite.values()) | {start + 1 for start in rewrite}
    return [(b"=", line) if index in rewrite else (value, line)
            for index, (value, line) in enumerate(pairs) if index not in drop]


def _drop_parentheses(language: str, pairs: list[tuple[bytes, int]]) -> list[tuple[bytes, int]]:
    before_ok = _PY_SLOT_BEFORE if language == "python" else _SLOT_BEFORE
    stack: list[tuple[int, bool]] = []  # (index of "(", a top-level comma inside)
    partner: dict[int, int] = {}
    for index, (value, _) in enumerate(pairs):
        if value in OPEN:
            stack.append((index, False))
        elif value == b"," and stack:
            stack[-1] = (stack[-1][0], True)
        elif value in CLOSE and stack:
            start, comma = stack.pop()
            if pairs[start][0] == b"(" and value == b")" and not comma and index > start + 1:
                partner[start] = index
    if not partner:
        return pairs
    drop: set[int] = set()
    for start in sorted(partner, reverse=True):  # inner pairs first: ((x)) loses both
        end = partner[start]
        previous = _neighbour(pairs, start, -1, drop)
        following = _neighbour(pairs, end, 1, drop)
        if (previous is None or previous in before_ok or previous.startswith(INDENT)) and (
                following is None or following in _SLOT_AFTER or following.startswith(INDENT)):
            drop.update((start, end))
    return [p for i, p in enumerate(pairs) if i not in drop]


def _neighbour(pairs, index: int, step: int, drop: set[int]) -> bytes | None:
    index += step
    while 0 <= index < len(pairs) and index in drop:
        index += step
    return pairs[index][0] if 0 <= index < len(pairs) else None


def tokens(language: str, text: bytes) -> list[bytes]:
    """The normalised tokens of ``text`` (what two formatting-equivalent versions share)."""
    return [t for t, _ in normalise(language, list(raw_tokens(language, text)))]


_NAIVE: dict[str, re.Pattern[bytes]] = {}


def _naive_comments(language: str) -> re.Pattern[bytes]:
    found = _NAIVE.get(language)
    if found is None:
        parts = []
        if language in HASH_COMMENTS or language in BOTH_COMMENTS:
            parts.append(rb"\#[^\n]*")
        if language not in HASH_COMMENTS:
            parts += [rb"//[^\n]*", rb"/\*.*?(?:\*/|\Z)"]
        found = _NAIVE[language] = re.compile(b"|".join(parts), re.DOTALL)
    return found


def strip_comments(language: str, text: bytes) -> bytes:
    """``text`` without comments (naively: a marker inside a string cuts it too)."""
    if b"#" in text or b"/" in text:
        return _naive_comments(language).sub(b"", text)
    return text


def squeeze(language: str, text: bytes, drop: bytes = _LAYOUT) -> bytes:
    """``text`` without comments (naively: markers inside strings cut them too) and without the
    bytes formatting may touch (``drop``). Equal for any two formatting-equivalent versions."""
    return strip_comments(language, text).translate(None, drop)


def _squeezed(language: str, text: bytes, drop: bytes = _LAYOUT) -> bytes:
    """``squeeze`` as the formatting pre-checks compare: for Kotlin also without what an
    expression body rewrites (braces, ``return``, ``=``)."""
    if language == "kotlin":
        return squeeze(language, _RETURN.sub(b"", text), drop + b"{}=")
    return squeeze(language, text, drop)


def surely_differs(language: str, old: bytes, new: bytes) -> bool:
    """True when some token certainly changed (C-speed); False means "maybe only layout".
    Case-blind: a formatter may change a literal's case (black: ``0xffffffff`` → ``0xFFFFFFFF``),
    and the exact checks after it tell a renamed ``Foo`` from ``foo``."""
    return _squeezed(language, old).lower() != _squeezed(language, new).lower()


def differs_beyond_brackets(language: str, old: bytes, new: bytes) -> bool:
    """Like ``surely_differs``, for changed lines cut out of a definition: their brackets need
    not balance, and a comment need not open or close among them (a re-wrapped doc comment's
    " * " lines read as code). False when they are equal without brackets and braces, or also
    without the lines that read as a comment's: then the whole definition decides."""
    return all(cut(language, old).lower() != cut(language, new).lower()
               for cut in (_unbracketed, _uncommented))  # case-blind, as ``surely_differs``


_COMMENT_LINE = re.compile(rb"^[ \t]*(?:\*|/\*|//).*\n?", re.MULTILINE)


def _unbracketed(language: str, text: bytes) -> bytes:
    return _squeezed(language, text, _MOVABLE)


def _uncommented(language: str, text: bytes) -> bytes:
    return _unbracketed(language, _COMMENT_LINE.sub(b"", text))


def formatting_only(language: str | None, old: bytes, new: bytes) -> bool:
    """Whether ``old`` and ``new`` differ only by formatting (see the module docstring).

    Equal inputs are formatting-only (nothing substantive changed). Never raises.
    """
    if old == new:
        return True
    if not language or surely_differs(language, old, new):
        return False
    if language == "python":
        same = same_ast(old, new)
        if same is not None:
            return same
    else:
        verdict = raw_verdict(language, old, new)  # a whole file's edit: only its stretch lexed
        if verdict is not None:
            return verdict
    return tokens(language, old) == tokens(language, new)


# -- Python ------------------------------------------------------------------------------------

def _margin(texts: list[str]) -> int:
    """Length of the leading whitespace every non-blank line of ``texts`` shares."""
    prefix: str | None = None
    for text in texts:
        for line in text.split("\n"):
            if not line.strip():
                continue
            lead = line[:len(line) - len(line.lstrip())]
            if prefix is None:
                prefix = lead
            else:
                common = 0
                for a, b in zip(prefix, lead):
                    if a != b:
                        break
                    common += 1
                prefix = prefix[:common]
            if not prefix:
                return 0
    return len(prefix or "")


def same_ast(old: bytes, new: bytes,
             transform: ast.NodeTransformer | None = None) -> bool | None:
    """AST equality of two Python snippets (each first rewritten by ``transform``, if given);
    None when either side does not parse alone."""
    try:
        texts = [old.decode("utf-8"), new.decode("utf-8")]
    except UnicodeDecodeError:
        return None
    margin = _margin(texts)  # one margin for both: a changed indentation stays visible
    if not margin and transform is None and len(texts[0]) + len(texts[1]) > REGION_CHARS:
        return same_module(*texts)  # a whole file: the old one parsed only where it differs
    trees = []
    for text in texts:
        if margin:
            text = "\n".join(line[margin:] for line in text.split("\n"))
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return None
        trees.append(tree if transform is None else transform.visit(tree))
    return same_tree(trees[0], trees[1])  # ast.dump equality, without the dumps
