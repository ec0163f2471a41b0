"""User settings: the ``whylens`` section of the editor configuration, as attrs classes.

These mirror ``contributes.configuration`` in the root ``package.json`` (the user-facing contract):
same keys, same defaults (``tests/unit/test_config.py`` checks both agree). Keys are camelCase on
the wire (``whylens.codeLens.enabled``) and snake_case here (``settings.code_lens.enabled``).

``parse_settings(raw)`` never raises: a group with an invalid value falls back to that group's
defaults and the problem is returned as one readable line, so the server can show ONE message.
"""

from __future__ import annotations

from typing import Any

import attrs
import cattrs
from cattrs.errors import BaseValidationError
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

TRACE_LEVELS = ("off", "messages", "verbose")
LOG_LEVELS = ("error", "warning", "info", "debug")


@attrs.frozen
class ServerSettings:
    """How the client starts the server (read by the client; mirrored for completeness)."""

    interpreter: tuple[str, ...] = ()
    """Python command to run the server with, e.g. ``["/usr/bin/python3"]``; empty: auto-detect."""


@attrs.frozen
class IndexSettings:
    """Where the index lives and when it is updated."""

    directory: str = ""
    """Index folder override; empty: the editor's workspace storage, else the user cache folder."""

    auto_update: bool = True
    """Re-index incrementally when a new commit appears (watches ``.git/HEAD`` and refs)."""


@attrs.frozen
class HoverSettings:
    enabled: bool = True
    """Show a why-card when hovering a symbol that has history."""


@attrs.frozen
class CodeLensSettings:
    enabled: bool = True
    """Show "why: …" lenses above symbols that have decisions or pitfalls."""


@attrs.frozen
class PitfallSettings:
    enabled: bool = True
    """Add known-pitfall hints on lines where other tools report errors."""

    max_per_file: int = attrs.field(default=3, validator=attrs.validators.in_(range(0, 51)))
    """At most this many known-pitfall hints in one file (0 to 50)."""


@attrs.frozen
class SearchSettings:
    """The Search Knowledge quick pick (read by the client only)."""

    debounce_ms: int = attrs.field(default=150, validator=attrs.validators.in_(range(0, 2001)))
    """Milliseconds to wait after a keystroke before asking the server (0 to 2000)."""

    max_results: int = attrs.field(default=20, validator=attrs.validators.in_(range(1, 101)))
    """Most results shown (1 to 100)."""


@attrs.frozen
class TraceSettings:
    server: str = attrs.field(default="off", validator=attrs.validators.in_(TRACE_LEVELS))
    """LSP message tracing between the editor and the server: off, messages or verbose."""


@attrs.frozen
class LoggingSettings:
    level: str = attrs.field(default="info", validator=attrs.validators.in_(LOG_LEVELS))
    """Lowest level of server log records sent to the editor's output: error … debug."""


@attrs.frozen
class Settings:
    """The whole ``whylens`` section."""

    server: ServerSettings = ServerSettings()
    index: IndexSettings = IndexSettings()
    hover: HoverSettings = HoverSettings()
    code_lens: CodeLensSettings = CodeLensSettings()
    pitfalls: PitfallSettings = PitfallSettings()
    search: SearchSettings = SearchSettings()
    trace: TraceSettings = TraceSettings()
    logging: LoggingSettings = LoggingSettings()


# attrs field.type is a string under `from __future__ import annotations`; resolve once.
for _cls in (ServerSettings, IndexSettings, HoverSettings, CodeLensSettings, PitfallSettings,
             SearchSettings, TraceSettings, LoggingSettings, Settings):
    attrs.resolve_types(_cls)


def to_camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _strict(kind: type):
    """cattrs would turn "false" into True via bool(); settings must have the declared type."""

    def hook(value: Any, _type: type) -> Any:
        if type(value) is bool and kind is not bool:
            raise TypeError(f"expected {kind.__name__}, got a boolean")
        if kind is float and isinstance(value, int):
            return float(value)
        if not isinstance(value, kind):
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__} {value!r}")
        return value

    return hook


def _make_converter() -> cattrs.Converter:
    conv = cattrs.Converter(forbid_extra_keys=False)
    for kind in (bool, int, float, str):
        conv.register_structure_hook(kind, _strict(kind))

    def string_list(value: Any, _type: Any) -> tuple[str, ...]:
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise TypeError(f"expected a list of strings, got {value!r}")
        return tuple(value)

    conv.register_structure_hook_func(lambda t: t == tuple[str, ...], string_list)

    def structure_factory(cls):
        renames: dict[str, Any] = {a.name: override(rename=to_camel(a.name))
                                   for a in attrs.fields(cls)}
        return make_dict_structure_fn(cls, conv, **renames)

    def unstructure_factory(cls):
        renames: dict[str, Any] = {a.name: override(rename=to_camel(a.name))
                                   for a in attrs.fields(cls)}
        return make_dict_unstructure_fn(cls, conv, **renames)

    conv.register_structure_hook_factory(attrs.has, structure_factory)
    conv.register_unstructure_hook_factory(attrs.has, unstructure_factory)
    return conv


CONVERTER = _make_converter()


def _exception_text(exc: BaseException, _type: Any) -> str:
    # attrs validators raise ValueError(message, attribute, options, value): keep the message.
    return str(exc.args[0]) if exc.args else type(exc).__name__


def describe_error(exc: Exception) -> str:
    """A cattrs/attrs structuring failure as one readable line."""
    if isinstance(exc, BaseValidationError):
        lines = cattrs.transform_error(exc, format_exception=_exception_text)
        return "; ".join(lines) or str(exc)
    return str(exc)


def parse_settings(raw: Any) -> tuple[Settings, list[str]]:
    """``raw`` is the ``whylens`` section (nested dicts, camelCase keys; dotted keys accepted).

    Returns the settings and one line per group that was invalid and fell back to its defaults.
    """
    if raw is None:
        return Settings(), []
    if not isinstance(raw, dict):
        return Settings(), [f"whylens settings must be an object, got {type(raw).__name__}"]
    raw = _expand_dotted(raw)
    values: dict[str, Any] = {}
    problems: list[str] = []
    for field in attrs.fields(Settings):
        key = to_camel(field.name)
        if key not in raw or raw[key] is None:
            continue
        try:
            if not isinstance(raw[key], dict):
                raise TypeError(f"expected an object, got {type(raw[key]).__name__}")
            assert field.type is not None  # resolved at import (attrs.resolve_types above)
            values[field.name] = CONVERTER.structure(raw[key], field.type)
        except Exception as exc:  # any bad value: this group keeps its defaults
            problems.append(f"whylens.{key}: {describe_error(exc)} (using the defaults)")
    return Settings(**values), problems


def unstructure(settings: Settings) -> dict:
    """Settings → the camelCase nested dict (as in package.json)."""
    return CONVERTER.unstructure(settings)


def flat_defaults() -> dict[str, Any]:
    """``{"whylens.hover.enabled": True, ...}``: the defaults keyed as package.json declares them."""
    flat: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, sub in value.items():
                walk(f"{prefix}.{key}", sub)
        else:
            flat[prefix] = list(value) if isinstance(value, tuple) else value

    walk("whylens", unstructure(Settings()))
    return flat


def _expand_dotted(raw: dict) -> dict:
    """Accept ``{"hover.enabled": false}`` (and a leading ``whylens.``) as well as nested dicts."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        parts = str(key).split(".")
        if parts[0] == "whylens" and len(parts) > 1:
            parts = parts[1:]
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {}) if isinstance(node.get(part, {}), dict) else {}
        if isinstance(value, dict) and isinstance(node.get(parts[-1]), dict):
            node[parts[-1]].update(value)
        else:
            node[parts[-1]] = value
    return out
