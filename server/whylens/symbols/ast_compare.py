"""Are two Python ASTs the same? ``same_tree(a, b)`` is ``ast.dump(a, annotate_fields=False)
== ast.dump(b, annotate_fields=False)`` (attributes left out), without building either string:
one walk over both trees that stops at the first difference.

``ast.dump`` writes a node as its class name and its fields in order, leaving out a field that
is missing or None where its class's default is None (and naming the fields after it); lists
element by element; anything else by ``repr``. Two nodes dump alike exactly when they are of one
class, leave out the same fields and their remaining values dump alike, which is what this
compares. No recursion: a tree deep enough to stop ``ast.dump`` is compared all the same.

``same_module(old, new)``: the same answer for two whole files, the old one parsed only where
it differs from the new one."""

from __future__ import annotations

import ast

_MISSING = object()


def same_tree(a: object, b: object) -> bool:
    """Whether ``a`` and ``b`` (AST nodes, lists of them, or field values) dump alike."""
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if isinstance(x, ast.AST):
            cls = type(x)
            if type(y) is not cls:
                return False
            for name, optional in _fields(cls):
                vx, vy = getattr(x, name, _MISSING), getattr(y, name, _MISSING)
                if optional:
                    vx = _MISSING if vx is None else vx
                    vy = _MISSING if vy is None else vy
                if vx is _MISSING or vy is _MISSING:
                    if vx is not vy:
                        return False
                else:
                    pending.append((vx, vy))
        elif isinstance(x, list):
            if not isinstance(y, list) or len(x) != len(y):
                return False
            pending.extend(zip(x, y))
        elif isinstance(y, (ast.AST, list)):
            return False
        elif type(x) is type(y) and type(x) in _PLAIN:
            if x != y:  # repr is one-to-one on these
                return False
        elif repr(x) != repr(y):
            return False
    return True


_PLAIN = (str, int)
_FIELDS: dict[type[ast.AST], tuple[tuple[str, bool], ...]] = {}


def _fields(cls: type[ast.AST]) -> tuple[tuple[str, bool], ...]:
    """A class's fields, each with whether ``ast.dump`` leaves it out when it is None (its
    class default is None)."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple((name, getattr(cls, name, ...) is None)
                                      for name in cls._fields)
    return fields


def same_module(old: str, new: str) -> bool | None:
    """``same_tree(ast.parse(old), ast.parse(new))`` for two versions of a whole file (None
    when either does not parse), parsing the old version only where it differs: the new one is
    parsed whole, and the old one's differing lines, cut at top-level statement boundaries of
    the new tree that lie in the lines both share, are parsed alone. What precedes the cut is
    the same text, so the old file's lexer meets the cut outside any statement, bracket or
    string, as the new file's does; a cut-out stretch that parses alone starts at column 0 and
    ends with every statement closed, so its statements are the old file's own there, and the
    shared tail then starts a new statement in both. Anything else (a stretch that does not
    parse alone, statements sharing a line, carriage returns, the future import that makes ``<>``
    an operator) parses the old file whole."""
    try:
        new_tree = ast.parse(new)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    odd = "\r" in old or "\r" in new or "barry_as_FLUFL" in new  # other line ends, '<>'
    region = None if odd else _region(old, new, new_tree.body)
    if region is not None:
        text, statements = region
        try:
            old_statements = ast.parse(text).body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            pass
        else:
            return same_tree(old_statements, statements)
    try:
        return same_tree(ast.parse(old), new_tree)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _region(old: str, new: str, body: list[ast.stmt]) -> tuple[str, list[ast.stmt]] | None:
    """The old file's lines between the cuts and the new tree's statements between them."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    most = min(len(old_lines), len(new_lines))
    head = 0
    while head < most and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < most - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    firsts = [min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))]) - 1
              for s in body]  # 0-based first line of each statement, decorators included
    lasts = [(s.end_lineno or s.lineno) - 1 for s in body]
    start = 0  # statements [start, stop) are cut out; line cuts at their first lines
    while start < len(body) and lasts[start] < head:
        start += 1  # wholly inside the shared head
    stop = len(body)
    while stop > start and firsts[stop - 1] >= len(new_lines) - tail:
        stop -= 1  # wholly inside the shared tail
    cut_start = firsts[start] if start < len(body) else len(new_lines)
    cut_end = firsts[stop] if stop < len(body) else len(new_lines)
    if cut_start > head or len(new_lines) - cut_end > tail:
        return None
    if (start > 0 and lasts[start - 1] >= cut_start) or (stop > start and lasts[stop - 1] >= cut_end):
        return None  # statements share a line (``a = 1; b = 2``)
    old_end = len(old_lines) - (len(new_lines) - cut_end)
    if old_end < cut_start:
        return None
    return "\n".join(old_lines[cut_start:old_end]), body[start:stop]
