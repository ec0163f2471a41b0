"""package.json's contributes.configuration (the user-facing contract) and whylens.config agree.

Every key is declared on both sides with the same default (the client sends them all as
initializationOptions.settings; see vscode-client/src/pure/settings.ts SERVER_KEYS).
CLIENT_ONLY names keys the server may ignore and need not mirror (none at present).
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

from whylens import config

ROOT = Path(__file__).resolve().parents[2]
CLIENT_ONLY: set[str] = set()


def _manifest_properties() -> dict[str, dict]:
    manifest = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    properties: dict[str, dict] = {}
    for group in manifest["contributes"]["configuration"]:
        assert group.get("title"), "every settings group has a title"
        properties.update(group["properties"])
    return properties


PROPERTIES = _manifest_properties()
SERVER_DEFAULTS = config.flat_defaults()


def test_same_keys_on_both_sides():
    declared = set(PROPERTIES) - CLIENT_ONLY
    assert declared == set(SERVER_DEFAULTS), (
        f"only in package.json: {sorted(declared - set(SERVER_DEFAULTS))}; "
        f"only in config.py: {sorted(set(SERVER_DEFAULTS) - declared)}"
    )


@pytest.mark.parametrize("key", sorted(SERVER_DEFAULTS))
def test_default_matches(key):
    assert key in PROPERTIES, f"{key} is missing from package.json"
    assert PROPERTIES[key]["default"] == SERVER_DEFAULTS[key]


def test_package_json_defaults_parse_to_the_config_defaults():
    nested: dict = {}
    for key, prop in PROPERTIES.items():
        if key not in CLIENT_ONLY:
            nested[key] = prop["default"]
    settings, problems = config.parse_settings(nested)
    assert problems == []
    assert settings == config.Settings()


@pytest.mark.parametrize("key", sorted(PROPERTIES))
def test_declared_types_accept_the_default(key):
    prop = PROPERTIES[key]
    kinds = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
    python_types = {"string": str, "boolean": bool, "integer": int, "number": (int, float),
                    "array": list, "object": dict}
    default = prop["default"]
    assert any(isinstance(default, python_types[k]) and not (k == "integer" and isinstance(default, bool))
               for k in kinds), f"{key}: default {default!r} is not a {kinds}"
    if "enum" in prop:
        assert default in prop["enum"]
    if "minimum" in prop:
        assert prop["minimum"] <= default <= prop.get("maximum", default)
    assert prop.get("description") or prop.get("markdownDescription"), f"{key} has no description"


def test_enums_match_the_server_validators():
    assert PROPERTIES["whylens.trace.server"]["enum"] == list(config.TRACE_LEVELS)
    assert PROPERTIES["whylens.logging.level"]["enum"] == list(config.LOG_LEVELS)


def _server_int_ranges() -> dict[str, tuple[int, int]]:
    """{package.json key: (minimum, maximum)} from the server's ``in_(range(...))`` validators."""
    ranges = {}
    for group in attrs.fields(config.Settings):
        for field in attrs.fields(group.type):
            options = getattr(field.validator, "options", None)
            if isinstance(options, range):
                key = f"whylens.{config.to_camel(group.name)}.{config.to_camel(field.name)}"
                ranges[key] = (options.start, options.stop - 1)
    return ranges


def test_integer_ranges_are_the_same_on_both_sides_and_enforced():
    """Widening a range on one side only (package.json lets the user type 100, the server falls
    back to the default without a word) must fail here."""
    ranges = _server_int_ranges()
    integers = {k for k, p in PROPERTIES.items() if p["type"] == "integer"} - CLIENT_ONLY
    assert set(ranges) == integers, "every integer setting has a range on both sides"
    for key, (low, high) in ranges.items():
        prop = PROPERTIES[key]
        assert (prop.get("minimum"), prop.get("maximum")) == (low, high), key
        group, name = key.split(".")[1:]
        for value, ok in ((low, True), (high, True), (low - 1, False), (high + 1, False)):
            _, problems = config.parse_settings({group: {name: value}})
            assert (problems == []) is ok, (key, value, problems)
