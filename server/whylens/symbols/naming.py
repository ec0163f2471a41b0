"""Turning a definition's name node text into the part of a qualified name it contributes.

Qualified names join nesting levels with dots in every language: ``Session.send``,
``Outer.Inner.method``, C++ ``ns::Class::method`` → ``ns.Class.method``, Ruby ``A::B`` → ``A.B``,
PHP ``App\\Models`` → ``App.Models``. Template and generic arguments are dropped
(``Box<T>::get`` → ``Box.get``). Go methods carry their receiver, ``(*Server).Serve``; a Rust impl
is named ``impl Trait for Type`` (or ``impl Type``) and qualifies its items by ``Type``.
``definition_names`` applies these rules to a definition query's match.
"""

from __future__ import annotations

import re

from tree_sitter import Node

_SPACE = re.compile(r"\s+")
_SEPARATORS = re.compile(r"::|\\|->")
_RUST_TYPE_NOISE = re.compile(r"&|'\w+\s*|\bmut\s+|\bdyn\s+|\bconst\s+|\*")


def strip_arguments(text: str, open_char: str = "<", close_char: str = ">") -> str:
    """``Box<Vec<T>>::get`` → ``Box::get``: drop every bracketed argument list."""
    if open_char not in text:
        return text
    out, depth = [], 0
    for char in text:
        if char == open_char:
            depth += 1
        elif char == close_char and depth:
            depth -= 1
        elif not depth:
            out.append(char)
    return "".join(out)


def clean_name(text: str) -> str:
    """A definition name as one dotted component (or several, for ``A::B``-style names)."""
    if text.isidentifier():
        return text
    text = _SPACE.sub("", text).strip("\"'`")
    if text.startswith("operator") or "operator" in text.rsplit("::", 1)[-1]:
        head, _, tail = text.rpartition("operator")
        return (_SEPARATORS.sub(".", strip_arguments(head)) + "operator" + tail).strip(".")
    return _SEPARATORS.sub(".", strip_arguments(text)).strip(".")


def js_member(text: str) -> str:
    """``Foo.prototype.bar`` → ``Foo.bar``; ``module.exports.render``, ``this.render`` → ``render``."""
    parts = [p for p in _SPACE.sub("", text).split(".") if p and p != "prototype"]
    if parts in (["module", "exports"], ["exports"]):
        return "module.exports"
    while len(parts) > 1 and parts[0] in ("module", "exports", "this", "self", "window"):
        parts.pop(0)
    return ".".join(parts) or "_"


def js_property(owner: str, key: str) -> str:
    """``(req, 'query')`` → ``req.query``; on ``exports``, ``module.exports`` or ``this`` just the
    key (nested in its function, as ``this.x = function`` is)."""
    prop = key.strip().strip("\"'`") or "_"
    base = js_member(owner)
    return prop if base in ("module.exports", "this", "self", "_") else f"{base}.{prop}"


def go_receiver(text: str) -> str:
    """``*Server[T]`` → ``(*Server)``; ``Server`` → ``(Server)``."""
    text = strip_arguments(_SPACE.sub("", text), "[", "]")
    return f"({text})"


_GO_RECEIVER = re.compile(r"^\(\*?([^()]+)\)\.")


def without_receiver_marks(name: str) -> str:
    """A Go method named as its documentation writes it: ``(*Server).Serve`` and
    ``(Server).Serve`` (``go_receiver``'s names) → ``Server.Serve``; other names unchanged."""
    return _GO_RECEIVER.sub(r"\1.", name)


def rust_type(text: str) -> str:
    """The base name of a Rust type: ``&'a mut Vec<T>`` → ``Vec``, ``crate::Foo`` → ``Foo``."""
    text = strip_arguments(_RUST_TYPE_NOISE.sub("", text)).strip()
    return _SPACE.sub("", text).rsplit("::", 1)[-1] or "_"


def rust_impl(trait_text: str | None, type_text: str) -> tuple[str, str]:
    """(display name, scope for the impl's items) of ``impl [Trait for] Type``."""
    scope = rust_type(type_text)
    if trait_text:
        trait = _SPACE.sub("", strip_arguments(trait_text))
        return f"impl {trait} for {scope}", scope
    return f"impl {scope}", scope


def definition_names(source: bytes, captures: dict) -> tuple[str, str, Node]:
    """A definition query match's (own name, scope for its children, node whose position names
    the symbol); ``captures`` maps capture names to nodes."""
    def text(n: Node) -> str:
        return source[n.start_byte:n.end_byte].decode("utf-8", "replace")

    if "impl.type" in captures:
        type_node = captures["impl.type"][0]
        trait = captures.get("impl.trait")
        display, scope = rust_impl(text(trait[0]) if trait else None, text(type_node))
        return display, scope, type_node
    name_node = captures["name"][0]
    if "owner" in captures:  # JS/TS: Object.defineProperty(obj, 'prop', …) → "obj.prop"
        name = js_property(text(captures["owner"][0]), text(name_node))
        return name, name, name_node
    if name_node.type == "member_expression":  # JS/TS: obj.prop = function () {}
        name = js_member(text(name_node))
        own = _exported_function_name(name, name_node)
        if own is not None:  # module.exports = function buildURL () {}: "buildURL"
            return text(own), text(own), own
        return name, name, name_node.child_by_field_name("property") or name_node
    name = clean_name(text(name_node)) or "_"
    receiver = captures.get("receiver")
    if receiver:
        name = f"{go_receiver(text(receiver[0]))}.{name}"
    return name, name, name_node


def _exported_function_name(name: str, target: Node) -> Node | None:
    """The name node of a named function assigned to ``module.exports``: the
    name its callers and an ES module's ``export default function buildURL`` use, so the
    history of a file converted from CommonJS stays one symbol's."""
    if name != "module.exports" or target.parent is None:
        return None
    value = target.parent.child_by_field_name("right")
    if value is None or value.type not in ("function_expression", "generator_function"):
        return None
    return value.child_by_field_name("name")
