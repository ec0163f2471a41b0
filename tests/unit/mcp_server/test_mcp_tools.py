"""The four tools through the SDK's client over stdio: the CLI's JSON, cited items, abstentions."""

from __future__ import annotations

import io
import json
import re

from whylens.cli import main

from mcp_server.mcp_helpers import SEND_LINE, TRACE, text_of

BIG = 16_000  # max_tokens large enough for every item of these small histories


def cli_json(capsys, *argv: str) -> dict:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def same_as_cli(data: dict, expected: dict) -> bool:
    """Every field of the CLI's JSON, equal; beyond them only the budget and abstention keys."""
    assert set(data) - set(expected) <= {"abstained", "omitted", "text_cut"}
    return {k: v for k, v in data.items() if k in expected} == expected


def test_exactly_four_read_only_tools_with_their_arguments(served):
    tools = {tool.name: tool for tool in served.tools()}
    assert set(tools) == {"why", "search", "explain_error", "review_diff"}
    required = {name: set(tool.input_schema.get("required", [])) for name, tool in tools.items()}
    assert required == {"why": {"path"}, "search": {"query"}, "explain_error": {"text"},
                        "review_diff": set()}
    assert set(tools["why"].input_schema["properties"]) == {"path", "line", "symbol", "max_tokens"}
    assert set(tools["search"].input_schema["properties"]) == {"query", "k", "path", "type",
                                                              "max_tokens"}
    assert set(tools["review_diff"].input_schema["properties"]) == {"base", "head", "diff",
                                                                   "max_tokens"}
    for tool in tools.values():
        assert tool.annotations.read_only_hint and not tool.annotations.open_world_hint
        assert tool.description


def test_why_is_the_cli_story_with_every_item_cited(served, project, capsys):
    result = served.call("why", {"path": "src/session.py", "line": SEND_LINE, "max_tokens": BIG})
    assert not result.is_error
    data = result.structured_content
    expected = cli_json(capsys, "why", f"src/session.py:{SEND_LINE}", "--json", *project.args)
    assert same_as_cli(data, expected)
    assert data["abstained"] is False and data["omitted"] == 0
    text = text_of(result)
    assert text.startswith("**`Session.send`**")
    for entry in data["history"] + data["units"]:
        assert f"`{entry['commit'][:7]}`" in text
    for record in data["records"]:
        assert f"`{record['fixing_commits'][0][:7]}`" in text
    assert project.shas["deadlock"][:7] in text and "#21" in text


def test_why_by_symbol_name(served):
    result = served.call("why", {"path": "src/session.py", "symbol": "Session.send"})
    assert result.structured_content["symbol"]["name"] == "Session.send"
    assert result.structured_content["known"]


def test_search_is_the_cli_json_and_the_budget_keeps_the_same_items(served, project, capsys):
    query = "deadlock connection pool"
    full = served.call("search", {"query": query, "max_tokens": BIG})
    expected = cli_json(capsys, "search", query, "--json", *project.args)
    assert same_as_cli(full.structured_content, expected)
    assert len(expected["results"]) >= 3 and not expected["abstained"]
    small = served.call("search", {"query": query, "max_tokens": 120})
    text = text_of(small)
    assert len(text) <= 120 * 4 and re.search(r"… \d+ more \(raise max_tokens\)$", text)
    shown = text.count("\n- [")
    data = small.structured_content
    assert 1 <= shown < len(expected["results"])
    assert data["results"] == expected["results"][:shown]  # the same items, in the same order
    assert data["omitted"] == len(expected["results"]) - shown
    for hit in data["results"]:
        assert f"`{hit['commit'][:7]}`" in text


def test_search_filters_by_type_and_path(served):
    result = served.call("search", {"query": "deadlock connection pool", "type": "pattern",
                                    "path": "src/session.py"})
    hits = result.structured_content["results"]
    assert hits and {h["type"] for h in hits} == {"pattern"}
    assert all("src/session.py" in h["files"] for h in hits)
    listed = served.call("search", {"query": "deadlock connection pool",
                                    "type": ["pattern", "skill"]})
    assert {h["type"] for h in listed.structured_content["results"]} <= {"pattern", "skill"}
    bad = served.call("search", {"query": "deadlock", "type": "wisdom"})
    assert bad.is_error and "wisdom" in text_of(bad)


def test_explain_error_is_the_cli_json(served, project, capsys, monkeypatch):
    result = served.call("explain_error", {"text": TRACE})
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(TRACE.encode())))
    expected = cli_json(capsys, "explain-error", "--json", *project.args)
    assert same_as_cli(result.structured_content, expected)
    assert expected["pitfalls"] and not result.structured_content["abstained"]
    assert "TimeoutError" in text_of(result)
    assert f"`{expected['pitfalls'][0]['commit'][:7]}`" in text_of(result)


def test_review_diff_of_the_working_tree_is_the_cli_json(served, project, capsys):
    result = served.call("review_diff", {"max_tokens": BIG})
    expected = cli_json(capsys, "pr-comments", "--format", "json", *project.args)
    assert same_as_cli(result.structured_content, expected)
    kinds = [s["kind"] for s in expected["suggestions"]]
    assert "reverted-before" in kinds
    text = text_of(result)
    assert "An earlier change here was reverted" in text and "`src/pool.py:" in text
    assert project.shas["pool_revert"][:7] in text  # the evidence is cited


def test_review_diff_of_a_diff_text_and_of_revisions(served, project):
    patch = project.repo.git("diff", "--", "src/pool.py")
    assert "reject_closed" in patch
    by_tree = served.call("review_diff", {}).structured_content["suggestions"]
    by_text = served.call("review_diff", {"diff": patch + "\n"})
    assert by_text.structured_content["suggestions"] == by_tree
    assert by_text.structured_content["diff"] == {"files": 1, "skipped": []}
    same = served.call("review_diff", {"base": "HEAD", "head": "HEAD"})
    assert same.structured_content["abstained"] and same.structured_content["suggestions"] == []
    assert text_of(same).startswith("Nothing in the history calls for a comment")
    assert "\n" not in text_of(same)  # an abstention is one line


def test_nothing_known_is_an_explicit_abstention(served, project):
    (project.repo.root / "src" / "nothing_here.py").write_text("x = 1\n")  # no history yet
    cases = [("why", {"path": "src/nothing_here.py", "line": 1}),
             ("search", {"query": "quantum chromodynamics lattice gauge"}),
             ("explain_error", {"text": "KeyError: 'zebra_stripes'"})]
    for name, arguments in cases:
        result = served.call(name, arguments)
        assert not result.is_error, name
        assert result.structured_content["abstained"] is True, name
        text = text_of(result)
        assert "\n" not in text and "abstains rather than guess" in text, name


def test_a_missing_file_is_an_error_that_names_close_files(served):
    result = served.call("why", {"path": "src/pol.py", "line": 1})
    assert result.is_error
    assert "no file 'src/pol.py'" in text_of(result) and "src/pool.py" in text_of(result)
