"""Bad input gets a tool error (or a JSON-RPC error) with a clear message, never a crash."""

from __future__ import annotations

import os
import time

import pytest

from mcp_server.mcp_helpers import SEND_LINE, TRACE, text_of


def error_text(result) -> str:
    assert result.is_error, text_of(result)
    return text_of(result)


def test_unknown_tool(served):
    assert "Unknown tool: blame" in error_text(served.call("blame", {"path": "src/session.py"}))


@pytest.mark.parametrize("name", ["why", "search", "explain_error"])
def test_missing_arguments(served, name):
    required = {"why": "path", "search": "query", "explain_error": "text"}[name]
    assert required in error_text(served.call(name, {}))


@pytest.mark.parametrize("name, arguments, word", [
    ("why", {"path": "src/session.py", "line": "eight"}, "line"),
    ("why", {"path": ["src/session.py"]}, "path"),
    ("search", {"query": "deadlock", "k": {"n": 3}}, "k"),
    ("explain_error", {"text": 42}, "text"),
    ("review_diff", {"base": 7}, "base"),
    ("why", {"path": "src/session.py", "max_tokens": "lots"}, "max_tokens"),
])
def test_wrong_typed_arguments(served, name, arguments, word):
    assert word in error_text(served.call(name, arguments))


@pytest.mark.parametrize("name, arguments, words", [
    ("why", {"path": "src/session.py", "line": 0}, "lines start at 1"),
    ("why", {"path": "src/session.py", "line": SEND_LINE, "symbol": "Session.send"}, "not both"),
    ("why", {"path": "  "}, "empty"),
    ("search", {"query": "   "}, "empty"),
    ("search", {"query": "x" * 5000}, "a few words"),
    ("search", {"query": "deadlock", "k": 0}, "k must be 1 or more"),
    ("explain_error", {"text": "\n\n"}, "empty"),
])
def test_bad_values(served, name, arguments, words):
    assert words in error_text(served.call(name, arguments))


@pytest.mark.parametrize("name, arguments", [
    ("why", {"path": "src/session.py"}), ("search", {"query": "deadlock"}),
    ("explain_error", {"text": TRACE}), ("review_diff", {}),
])
@pytest.mark.parametrize("max_tokens", [0, -5])
def test_max_tokens_zero_or_less_is_a_tool_error(served, name, arguments, max_tokens):
    text = error_text(served.call(name, {**arguments, "max_tokens": max_tokens}))
    assert "max_tokens must be 1 or more" in text


def test_max_tokens_of_ten_million_is_capped(served):
    arguments = {"path": "src/session.py", "line": SEND_LINE}
    huge = served.call("why", {**arguments, "max_tokens": 10_000_000})
    capped = served.call("why", {**arguments, "max_tokens": 16_000})
    assert not huge.is_error and text_of(huge) == text_of(capped)
    assert len(text_of(huge)) <= 16_000 * 4
    tiny = served.call("why", {**arguments, "max_tokens": 1})  # raised to the smallest answer
    assert not tiny.is_error and len(text_of(tiny)) <= 64 * 4
    assert text_of(tiny).endswith("more (raise max_tokens)")


def test_a_five_megabyte_stack_trace(served):
    noise = "".join(f"INFO worker {n}: request handled in 12 ms\n" for n in range(130_000))
    text = noise + TRACE
    assert len(text) > 5_000_000
    started = time.monotonic()
    result = served.call("explain_error", {"text": text})
    assert not result.is_error and time.monotonic() - started < 30
    data = result.structured_content
    assert data["pitfalls"] and data["text_cut"] > 4_000_000  # the end of the log was read
    assert "TimeoutError" in text_of(result) and "characters cut" in text_of(result)


@pytest.mark.parametrize("path", ["../outside/secret.py", "src/../../outside/secret.py",
                                  "/etc/passwd"])
def test_paths_outside_the_repository(served, project, path):
    text = error_text(served.call("why", {"path": path}))
    assert "outside the repository" in text and str(project.repo.root) in text
    assert "outside the repository" in error_text(served.call("search", {"query": "deadlock",
                                                                         "path": path}))


def test_absolute_path_of_the_outside_file(served, project):
    text = error_text(served.call("why", {"path": str(project.outside)}))
    assert "outside the repository" in text


def test_symlinks_that_escape_are_refused_and_inner_ones_followed(served, project):
    root = project.repo.root
    (root / "escape.py").symlink_to(project.outside)
    (root / "linkdir").symlink_to(project.outside.parent, target_is_directory=True)
    (root / "inner.py").symlink_to(root / "src" / "session.py")
    try:
        for path in ("escape.py", "linkdir/secret.py", str(root / "escape.py")):
            text = error_text(served.call("why", {"path": path, "line": 1}))
            assert "outside the repository" in text and "symlink" in text, path
        inner = served.call("why", {"path": "inner.py", "line": SEND_LINE})
        assert not inner.is_error
    finally:
        for name in ("escape.py", "linkdir", "inner.py"):
            os.unlink(root / name)


@pytest.mark.parametrize("arguments, words", [
    ({"base": "--output=/tmp/owned"}, "starts with '-'"),
    ({"head": "-p"}, "starts with '-'"),
    ({"base": "main extra"}, "is not a revision"),
    ({"base": "no-such-branch"}, "unknown revision"),
    ({"base": "HEAD", "diff": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"}, "not both"),
    ({"diff": "not a diff at all\n"}, "changes no file"),
    ({"diff": "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n"}, "middle of a hunk"),
])
def test_review_diff_bad_revisions_and_diffs(served, arguments, words):
    assert words in error_text(served.call("review_diff", arguments))


def test_review_diff_of_a_diff_too_big(served):
    big = "--- a/src/pool.py\n+++ b/src/pool.py\n@@ -1 +1 @@\n-a\n+" + "b" * 1_500_000 + "\n"
    text = error_text(served.call("review_diff", {"diff": big}))
    assert "the limit is 1 MB" in text and "base/head" in text


def test_the_server_keeps_answering_after_all_that(served):
    result = served.call("why", {"path": "src/session.py", "line": SEND_LINE})
    assert not result.is_error and result.structured_content["known"]
    assert "Traceback" not in served.stderr()
