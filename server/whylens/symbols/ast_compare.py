"""Are two Python ASTs the same? ``same_tree(a, b)`` is ``ast.dump(a, annotate_fields=False)
== ast.dump(b, annotate_fields=False)`` (attributes left out), without building either string:
one walk over both trees that stops at the first difference.

``ast.dump`` writes a node as its class name and its fields in order, leaving out a field that
is missing or None where its class's default is None (and naming the fields after it); lists
element by element; anything else by ``repr``. Two nodes dump alike exactly when they are of one
class, leave out the same fields and their remaining values dump alike, which is what this
compares. No recursion: a tree deep enough to stop ``ast.dump`` is compared all the same."""

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
