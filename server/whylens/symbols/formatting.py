"""Is a change only layout? Formatting-only and typing-only detection, language-aware.

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
  dropped. Python keeps its structure: every logical line starts with a token holding its
  indentation, so moving a statement into a block is never formatting.

``typing_only`` (Python) says that the versions differ only by type annotations (parameter and
return annotations, annotated assignments, ``typing`` imports). ``surely_differs`` is the C-speed
pre-check the anchorer runs first: True means some token certainly changed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from whylens.symbols.lexer import (
    BOTH_COMMENTS, HASH_COMMENTS, QUOTE_EQUIVALENT, lexer, raw_verdict,
)

_JS = frozenset({"javascript", "typescript", "tsx"})

_OPEN = {b"(": b")", b"[": b"]", b"{": b"}"}
_CLOSE = frozenset({b")", b"]", b"}"})
# A parenthesised expression may lose its parentheses when it fills a whole delimited slot:
# preceded by one of these and followed by one of ``_SLOT_AFTER`` (or the end).
_SLOT_BEFORE = frozenset({b"=", b"(", b"[", b",", b"{", b"return", b":"})
_PY_SLOT_BEFORE = _SLOT_BEFORE | {b"yield", b"in", b"if", b"elif", b"while", b"assert",
                                  b"await", b"else", b"+=", b"-=", b"|=", b"&="}
_SLOT_AFTER = frozenset({b")", b"]", b"}", b",", b";", b":"})
_INDENT = b"\x00I"  # a Python logical line's indentation token starts with this

_LAYOUT = b" \t\r\n\f\v'\"`(),\\;"  # bytes formatting may add, drop or swap
# what a diff may move between the changed lines of one definition: a formatter that re-nests a
# block leaves a closing brace the diff pairs with another line (okhttp's Spotless reformat)
_MOVABLE = _LAYOUT + b"{}[]"

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
            yield _INDENT + str(indent).encode(), line
        at_start = False
        if kind == "s":
            yield _string_value(language, value), line
            line += value.count(b"\n")
            continue
        if value in _OPEN:
            depth += 1
        elif value in _CLOSE and depth:
            depth -= 1
        yield value, line


def normalise(language: str, pairs: list[tuple[bytes, int]]) -> list[tuple[bytes, int]]:
    """Drop what formatting tools add or remove: trailing commas, redundant parentheses and
    (JavaScript) semicolons."""
    js = language in _JS
    kept = [p for p in pairs if not (js and p[0] == b";")]
    out: list[tuple[bytes, int]] = []
    for index, pair in enumerate(kept):
        if pair[0] == b"," and index + 1 < len(kept) and kept[index + 1][0] in _CLOSE:
            continue
        out.append(pair)
    return _drop_parentheses(language, out)


def _drop_parentheses(language: str, pairs: list[tuple[bytes, int]]) -> list[tuple[bytes, int]]:
    before_ok = _PY_SLOT_BEFORE if language == "python" else _SLOT_BEFORE
    stack: list[tuple[int, bool]] = []  # (index of "(", a top-level comma inside)
    partner: dict[int, int] = {}
    for index, (value, _) in enumerate(pairs):
        if value in _OPEN:
            stack.append((index, False))
        elif value == b"," and stack:
            stack[-1] = (stack[-1][0], True)
        elif value in _CLOSE and stack:
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
        if (previous is None or previous in before_ok or previous.startswith(_INDENT)) and (
                following is None or following in _SLOT_AFTER or following.startswith(_INDENT)):
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


def surely_differs(language: str, old: bytes, new: bytes) -> bool:
    """True when some token certainly changed (C-speed); False means "maybe only layout"."""
    return squeeze(language, old) != squeeze(language, new)


def differs_beyond_brackets(language: str, old: bytes, new: bytes) -> bool:
    """Like ``surely_differs``, for changed lines cut out of a definition: their brackets need
    not balance, and a comment need not open or close among them (a re-wrapped doc comment's
    " * " lines read as code). False when they are equal without brackets and braces, or also
    without the lines that read as a comment's: then the whole definition decides."""
    return all(cut(language, old) != cut(language, new) for cut in (_unbracketed, _uncommented))


_COMMENT_LINE = re.compile(rb"^[ \t]*(?:\*|/\*|//).*\n?", re.MULTILINE)


def _unbracketed(language: str, text: bytes) -> bytes:
    return squeeze(language, text, _MOVABLE)


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
        same = _same_ast(old, new, strip_types=False)
        if same is not None:
            return same
    else:
        verdict = raw_verdict(language, old, new)  # a whole file's edit: only its stretch lexed
        if verdict is not None:
            return verdict
    return tokens(language, old) == tokens(language, new)


def typing_only(language: str | None, old: bytes, new: bytes) -> bool:
    """Python: the versions differ, but only by type annotations (and typing imports)."""
    if language != "python" or old == new:
        return False
    same = _same_ast(old, new, strip_types=True)
    if same is not None:
        return same and not formatting_only(language, old, new)
    stripped_old = strip_annotations(list(raw_tokens(language, old)))
    stripped_new = strip_annotations(list(raw_tokens(language, new)))
    if stripped_old == stripped_new:
        return tokens(language, old) != tokens(language, new)
    return False


# -- Python ------------------------------------------------------------------------------------

_TYPING_MODULES = frozenset({"typing", "typing_extensions", "__future__"})


class _StripTypes(ast.NodeTransformer):
    """Annotations out: parameters, returns, annotated assignments, typing imports."""

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def _function(self, node):
        node.returns = None
        self.generic_visit(node)
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if node.value is None:
            return None
        return ast.Assign(targets=[node.target], value=node.value)

    def visit_ImportFrom(self, node: ast.ImportFrom):
        return None if node.module in _TYPING_MODULES else node

    def visit_Import(self, node: ast.Import):
        return None if all(a.name in _TYPING_MODULES for a in node.names) else node


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


def _same_ast(old: bytes, new: bytes, strip_types: bool) -> bool | None:
    """AST equality of two Python snippets; None when either side does not parse alone."""
    try:
        texts = [old.decode("utf-8"), new.decode("utf-8")]
    except UnicodeDecodeError:
        return None
    margin = _margin(texts)  # one margin for both: a changed indentation stays visible
    trees = []
    for text in texts:
        try:
            tree = ast.parse("\n".join(line[margin:] for line in text.split("\n")))
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return None
        if strip_types:
            tree = _StripTypes().visit(tree)
        trees.append(ast.dump(tree, annotate_fields=False, include_attributes=False))
    return trees[0] == trees[1]


_TYPE_TOKENS = re.compile(rb"^(?:[A-Za-z_\x80-\xff][\w\x80-\xff]*|[.\[\],|]|S.*|\d+)$",
                          re.DOTALL)
_KEYWORDS = frozenset({b"else", b"try", b"finally", b"lambda", b"except", b"class", b"def",
                       b"if", b"elif", b"while", b"for", b"with", b"return", b"match", b"case"})


def strip_annotations(pairs: list[tuple[bytes, int]]) -> list[bytes]:
    """Python tokens without annotations: ``: T`` of parameters, ``-> T``, ``x: T`` of an
    annotated assignment (the whole line when it has no value), typing imports."""
    values = [t for t, _ in pairs]
    out: list[bytes] = []
    i, depth, in_params = 0, 0, False
    line_start = 0
    while i < len(values):
        value = values[i]
        if value.startswith(_INDENT):
            line_start = len(out)
            rest = values[i + 1:i + 4]
            if rest[:1] == [b"from"] and len(rest) > 1 and rest[1] in {b"typing", b"__future__",
                                                                         b"typing_extensions"}:
                i = _end_of_line(values, i + 1)
                continue
            if rest[:2] == [b"import", b"typing"]:
                i = _end_of_line(values, i + 1)
                continue
            out.append(value)
            i += 1
            continue
        if value == b"def":
            in_params = True
        if value in _OPEN:
            depth += 1
        elif value in _CLOSE:
            depth = max(depth - 1, 0)
            if depth == 0:
                in_params = False if value == b")" and in_params else in_params
        if value == b"->" or (value == b":" and in_params and depth == 1):
            i = _skip_type(values, i + 1, stop={b",", b")", b"=", b":"} if value == b":"
                           else {b":"})
            continue
        if value == b":" and depth == 0 and _annotated_target(out[line_start:]):
            end = _skip_type(values, i + 1, stop={b"="})
            if end >= len(values) or values[end] != b"=":
                del out[line_start + 1:]  # ``x: int`` declares nothing at run time
                i = end
                continue
            i = end
            continue
        out.append(value)
        i += 1
    return out


def _end_of_line(values: list[bytes], i: int) -> int:
    while i < len(values) and not values[i].startswith(_INDENT):
        i += 1
    return i


def _skip_type(values: list[bytes], i: int, stop: set[bytes]) -> int:
    """Index just past a type expression starting at ``i`` (brackets balanced)."""
    depth = 0
    while i < len(values):
        value = values[i]
        if value.startswith(_INDENT) and depth == 0:
            return i
        if depth == 0 and value in stop:
            return i
        if value in _OPEN:
            depth += 1
        elif value in _CLOSE:
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and not _TYPE_TOKENS.match(value):
            return i
        i += 1
    return i


def _annotated_target(line: list[bytes]) -> bool:
    """``x`` / ``self.x`` at the start of a logical line (after its indentation token)."""
    body = line[1:] if line and line[0].startswith(_INDENT) else line
    if not body or body[0] in _KEYWORDS:
        return False
    return all(t == b"." or re.match(rb"^[A-Za-z_\x80-\xff][\w\x80-\xff]*$", t) for t in body)
