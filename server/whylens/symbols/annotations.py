"""Is a Python change only typing? ``typing_only`` says that two versions differ, but only by
type annotations: parameter and return annotations, annotated assignments, ``typing`` imports.
Both sides parse: their ASTs with annotations stripped are equal; a fragment that does not parse
alone: its tokens (``formatting.raw_tokens``) with annotations skipped."""

from __future__ import annotations

import ast
import re

from whylens.symbols.formatting import (
    CLOSE, INDENT, OPEN, formatting_only, raw_tokens, same_ast, tokens,
)


def typing_only(language: str | None, old: bytes, new: bytes) -> bool:
    """Python: the versions differ, but only by type annotations (and typing imports)."""
    if language != "python" or old == new:
        return False
    same = same_ast(old, new, _StripTypes())
    if same is not None:
        return same and not formatting_only(language, old, new)
    stripped_old = strip_annotations(list(raw_tokens(language, old)))
    stripped_new = strip_annotations(list(raw_tokens(language, new)))
    if stripped_old == stripped_new:
        return tokens(language, old) != tokens(language, new)
    return False


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
        if value.startswith(INDENT):
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
        if value in OPEN:
            depth += 1
        elif value in CLOSE:
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
    while i < len(values) and not values[i].startswith(INDENT):
        i += 1
    return i


def _skip_type(values: list[bytes], i: int, stop: set[bytes]) -> int:
    """Index just past a type expression starting at ``i`` (brackets balanced)."""
    depth = 0
    while i < len(values):
        value = values[i]
        if value.startswith(INDENT) and depth == 0:
            return i
        if depth == 0 and value in stop:
            return i
        if value in OPEN:
            depth += 1
        elif value in CLOSE:
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and not _TYPE_TOKENS.match(value):
            return i
        i += 1
    return i


def _annotated_target(line: list[bytes]) -> bool:
    """``x`` / ``self.x`` at the start of a logical line (after its indentation token)."""
    body = line[1:] if line and line[0].startswith(INDENT) else line
    if not body or body[0] in _KEYWORDS:
        return False
    return all(t == b"." or re.match(rb"^[A-Za-z_\x80-\xff][\w\x80-\xff]*$", t) for t in body)
