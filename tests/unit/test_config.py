"""Settings: defaults agree with package.json; camelCase keys; bad values → defaults + a message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from whylens.config import Settings, flat_defaults, parse_settings, unstructure

PACKAGE_JSON = Path(__file__).resolve().parents[2] / "package.json"


def _package_json_properties() -> dict:
    manifest = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))
    configuration = manifest["contributes"]["configuration"]
    groups = configuration if isinstance(configuration, list) else [configuration]
    props: dict = {}
    for group in groups:
        props.update(group.get("properties", {}))
    return props


@pytest.mark.skipif(not PACKAGE_JSON.exists(), reason="the root package.json is not written yet")
def test_package_json_defaults_equal_the_config_defaults():
    props = _package_json_properties()
    declared = {key: spec.get("default") for key, spec in props.items() if key.startswith("whylens.")}
    ours = flat_defaults()
    assert sorted(ours) == sorted(declared), "settings differ between config.py and package.json"
    assert declared == ours
    # Turning the package.json defaults into the config class gives the class defaults.
    nested: dict = {}
    for key, value in declared.items():
        node = nested
        *parents, name = key.split(".")[1:]
        for part in parents:
            node = node.setdefault(part, {})
        node[name] = value
    settings, problems = parse_settings(nested)
    assert problems == []
    assert settings == Settings()


def test_camel_case_round_trip():
    raw = unstructure(Settings())
    assert raw["codeLens"] == {"enabled": True}
    assert raw["pitfalls"] == {"enabled": True, "maxPerFile": 3}
    assert raw["index"] == {"directory": "", "autoUpdate": True}
    assert parse_settings(raw) == (Settings(), [])


@pytest.mark.parametrize(
    ("raw", "check"),
    [
        pytest.param({"codeLens": {"enabled": False}}, lambda s: not s.code_lens.enabled, id="nested"),
        pytest.param({"hover.enabled": False}, lambda s: not s.hover.enabled, id="dotted"),
        pytest.param({"whylens.pitfalls.maxPerFile": 1}, lambda s: s.pitfalls.max_per_file == 1,
                     id="prefixed"),
        pytest.param({"index": {"directory": "/tmp/x"}}, lambda s: s.index.directory == "/tmp/x",
                     id="directory"),
        pytest.param({"server": {"interpreter": ["/usr/bin/python3", "-X", "utf8"]}},
                     lambda s: s.server.interpreter == ("/usr/bin/python3", "-X", "utf8"),
                     id="interpreter"),
        pytest.param({"somethingNew": {"x": 1}, "hover": {"enabled": True, "extra": 2}},
                     lambda s: s == Settings(), id="unknown-keys-ignored"),
    ],
)
def test_valid_settings(raw, check):
    settings, problems = parse_settings(raw)
    assert problems == []
    assert check(settings)


@pytest.mark.parametrize(
    ("raw", "group"),
    [
        pytest.param({"hover": {"enabled": "no"}}, "whylens.hover", id="string-for-bool"),
        pytest.param({"pitfalls": {"maxPerFile": 500}}, "whylens.pitfalls", id="out-of-range"),
        pytest.param({"pitfalls": {"maxPerFile": True}}, "whylens.pitfalls", id="bool-for-int"),
        pytest.param({"trace": {"server": "loud"}}, "whylens.trace", id="unknown-choice"),
        pytest.param({"logging": "debug"}, "whylens.logging", id="not-an-object"),
        pytest.param({"server": {"interpreter": "python3"}}, "whylens.server", id="string-for-list"),
    ],
)
def test_invalid_group_falls_back_to_its_defaults_only(raw, group):
    raw = {**raw, "codeLens": {"enabled": False}}
    settings, problems = parse_settings(raw)
    assert len(problems) == 1 and problems[0].startswith(group), problems
    assert "using the defaults" in problems[0]
    assert not settings.code_lens.enabled  # the valid group still applies
    name = group.split(".")[1]
    assert getattr(settings, {"codeLens": "code_lens"}.get(name, name)) == getattr(Settings(), name)


@pytest.mark.parametrize("raw", [None, {}, [], "x", 3])
def test_missing_or_malformed_section(raw):
    settings, problems = parse_settings(raw)
    assert settings == Settings()
    assert bool(problems) == (raw not in (None, {}))
