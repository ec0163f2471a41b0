"""The real server over stdio, with the VS Code and Neovim capability snapshots.

The tests of one client run in order on one server: initialize → progress → hover → null
hover → lenses → pitfall diagnostics → search → a new commit during the session.
"""

from __future__ import annotations

import re

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from e2e_helpers import as_data, statuses, wait_for_runs, wait_until
from e2e_history import NEW_COMMIT_SUBJECT, V3, commit_new

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

# The buffer as the editor has it: unsaved lines above the class (a new function too), so
# symbols are found by name in the current text, never by the committed line numbers.
UNSAVED_PREFIX = "import logging\n\n\ndef brand_new(x):\n    return x\n\n"
BUFFER = V3.replace("DEFAULT_TIMEOUT = 10\n", "DEFAULT_TIMEOUT = 10\n" + UNSAVED_PREFIX)


def session_uri(client: LanguageClient) -> str:
    return (client.workspace_repo.root / "src" / "session.py").as_uri()


def line_of(text: str, needle: str) -> int:
    """0-based line of the first line containing ``needle``."""
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


def name_position(text: str, line_needle: str, name: str) -> types.Position:
    line = line_of(text, line_needle)
    return types.Position(line=line, character=text.splitlines()[line].index(name) + 1)


async def hover(client: LanguageClient, text: str, line_needle: str, name: str):
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=session_uri(client)),
        position=name_position(text, line_needle, name)))


async def test_initialize_and_progress(client: LanguageClient):
    # The folder that is not a repository got exactly one message; the server kept running.
    shown = [m.message for m in client.messages]
    assert sum("whylens.hover" in m for m in shown) == 1, shown  # bad setting: one message
    if client.client_name == "visual-studio-code":
        assert sum("not inside a git repository" in m for m in shown) == 1, shown
    # One cancellable work-done progress: begin, at least one report with a percentage, end.
    tokens = [t for t in client.progress_reports if str(t).startswith("whylens-index")]
    assert tokens, client.progress_reports
    reports = client.progress_reports[tokens[0]]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].cancellable
    middle = [r for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert middle and all(r.percentage is None or 0 <= r.percentage <= 100 for r in middle)
    assert any(r.percentage is not None for r in middle), middle
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    # Status notifications: indexing with a percentage, then idle with counts.
    states = [s["state"] for s in statuses(client)]
    assert states[0] == "indexing" and "idle" in states
    idle = next(s for s in statuses(client) if s["state"] == "idle")
    assert idle["units"] > 0 and idle["folder"] == client.workspace_repo.root.as_uri()
    # Server logs reach the client as window/logMessage.
    assert any("index updated" in m.message for m in client.log_messages)


async def test_hover_on_a_function_with_history_uses_the_unsaved_buffer(client: LanguageClient):
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=session_uri(client), language_id="python",
                                             version=1, text=BUFFER)))
    result = await hover(client, BUFFER, "def send(", "send")
    assert result is not None
    card = result.contents.value
    assert result.contents.kind == types.MarkupKind.Markdown
    assert "Session.send" in card
    assert "deadlock" in card.lower() or "TimeoutError" in card, card
    assert len(card) <= 1500
    # The range is the name in the current buffer (shifted by the unsaved lines).
    assert result.range.start.line == line_of(BUFFER, "def send(")


async def test_null_hover_where_nothing_is_known(client: LanguageClient):
    assert await hover(client, BUFFER, "def brand_new(", "brand_new") is None
    assert await hover(client, BUFFER, "import logging", "logging") is None


async def test_lenses_only_where_knowledge_is_and_titles_on_resolve(client: LanguageClient):
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=session_uri(client))))
    assert lenses, "expected a lens above Session.send"
    symbols = {lens.data["symbol"] for lens in lenses}
    assert "Session.send" in symbols
    assert not symbols & {"brand_new", "untouched", "Session.close"}
    send_lens = next(lens for lens in lenses if lens.data["symbol"] == "Session.send")
    assert send_lens.command is None  # cheap first
    assert send_lens.range.start.line == line_of(BUFFER, "def send(")
    resolved = await client.code_lens_resolve_async(send_lens)
    assert resolved.command.title.startswith("why:"), resolved.command.title
    assert resolved.command.command == "whylens.server.explainSymbol"
    story = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=resolved.command.command, arguments=resolved.command.arguments))
    assert isinstance(story, str) and "Session.send" in story


async def test_hover_anywhere_in_a_body_gives_its_card_and_the_lens_counts_agree(
        client: LanguageClient):
    uri = session_uri(client)
    line = line_of(BUFFER, "conn = self.pool.get()")  # inside Session.send, not on its name
    inside = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=14)))
    assert inside is not None and "Session.send" in inside.contents.value
    assert inside.range.start.line == line  # the hovered line, not the name
    blank = line_of(BUFFER, "def close(") - 1
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=blank, character=0))) is None
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    lens = await client.code_lens_resolve_async(
        next(x for x in lenses if x.data["symbol"] == "Session.send"))
    card = (await hover(client, BUFFER, "def send(", "send")).contents.value

    def numbers(text: str) -> tuple[int, int, int]:
        grab = [re.search(p, text) for p in (r"(\d+) decisions?", r"(\d+) pitfalls?", r"changed (\d+)×")]
        return tuple(int(m.group(1)) if m else 0 for m in grab)  # type: ignore[return-value]

    assert numbers(lens.command.title) == numbers(card.splitlines()[0]) == numbers(
        inside.contents.value.splitlines()[0])
    assert numbers(lens.command.title)[2] >= 2


async def test_error_on_a_known_line_gets_a_pitfall_hint_then_clears(client: LanguageClient):
    uri = session_uri(client)
    line = line_of(BUFFER, "except TimeoutError")
    error = {"range": {"start": {"line": line, "character": 8}, "end": {"line": line, "character": 27}},
             "message": "TimeoutError: the server did not answer in time", "source": "pytest",
             "code": None}
    client.protocol.notify("whylens/errorsChanged", {"uri": uri, "errors": [error]})
    await wait_until(client, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                     lambda: bool(client.diagnostics.get(uri)))
    diagnostics = client.diagnostics[uri]
    assert 1 <= len(diagnostics) <= 3
    hint = diagnostics[0]
    assert hint.source == "whylens" and hint.code == "known-pitfall"
    assert hint.severity == types.DiagnosticSeverity.Information
    assert hint.range.start.line == line
    assert hint.message  # "Known pitfall: …"
    client.protocol.notify("whylens/errorsChanged", {"uri": uri, "errors": []})
    await wait_until(client, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                     lambda: uri in client.diagnostics and len(client.diagnostics[uri]) == 0)


async def test_search_round_trip(client: LanguageClient):
    raw = await client.protocol.send_request_async(
        "whylens/search", {"query": "deadlock connection pool exhausted", "k": 5})
    result = as_data(raw)
    assert result["query"] == "deadlock connection pool exhausted"
    assert not result["abstained"]
    commits = [hit["commit"] for hit in result["results"]]
    assert client.shas["deadlock"] in commits
    assert all(set(hit) >= {"id", "type", "title", "score", "commit", "url"} for hit in result["results"])


async def test_pr_suggestions_round_trip(client: LanguageClient):
    result = as_data(await client.protocol.send_request_async(
        "whylens/prSuggestions", {"base": client.shas["deadlock"], "head": client.shas["timeout"]}))
    assert result["base"] == client.shas["deadlock"]
    assert isinstance(result["suggestions"], list)
    for item in result["suggestions"]:
        assert {"path", "line", "side", "kind", "body", "confidence"} <= set(item)
    refused = await client.protocol.send_request_async(
        "whylens/prSuggestions", {"base": "--output=/tmp/x"})
    assert refused is None


async def test_bad_requests_answer_null(client: LanguageClient):
    outside = client.workspace_repo.root.parent / "outside.py"
    outside.write_text("def f():\n    pass\n")
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=outside.as_uri()),
        position=types.Position(line=0, character=5))) is None
    binary = client.workspace_repo.root / "blob.py"
    binary.write_bytes(b"def f():\x00\xff\xfe\n" * 10)
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=binary.as_uri()),
        position=types.Position(line=0, character=5))) is None
    assert await client.protocol.send_request_async("whylens/search", {"query": 42}) is None
    assert await client.protocol.send_request_async("whylens/why", {"uri": outside.as_uri()}) is None
    assert await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="whylens.server.explainSymbol", arguments=[{"nonsense": True}])) is None
    binary.unlink()
    huge = client.workspace_repo.root / "huge.py"
    huge.write_text("def f():\n    pass\n" * 150_000)  # 2.4 MB: generated code, no answers
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=huge.as_uri()),
        position=types.Position(line=0, character=5))) is None
    huge.unlink()
    # The server is still there and answering.
    why = as_data(await client.protocol.send_request_async("whylens/why", {
        "uri": session_uri(client), "position": name_position(BUFFER, "def send(", "send")}))
    assert why["symbol"]["name"] == "Session.send" and why["markdown"]


async def test_settings_changes_are_pulled_and_applied(client: LanguageClient):
    def settings_logged(count: int):
        return lambda: sum("settings:" in m.message for m in client.log_messages) >= count

    before = sum("settings:" in m.message for m in client.log_messages)
    client.set_configuration({"hover": {"enabled": False}}, section="whylens")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_until(client, types.WINDOW_LOG_MESSAGE, settings_logged(before + 1))
    assert await hover(client, BUFFER, "def send(", "send") is None
    client.set_configuration({"hover": {"enabled": True}}, section="whylens")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_until(client, types.WINDOW_LOG_MESSAGE, settings_logged(before + 2))
    assert await hover(client, BUFFER, "def send(", "send") is not None


async def test_a_new_commit_shows_up_after_the_incremental_update(client: LanguageClient):
    before = await hover(client, BUFFER, "def close(", "close")
    assert before is None or NEW_COMMIT_SUBJECT not in before.contents.value
    runs = sum(1 for s in statuses(client) if s["state"] != "indexing")
    refreshes = client.lens_refreshes
    # An error reported before the history explains it gets its hint once the index knows.
    uri = session_uri(client)
    line = line_of(BUFFER, "def close(") + 1
    error = {"range": {"start": {"line": line, "character": 8}, "end": {"line": line, "character": 20}},
             "message": "AttributeError: 'NoneType' object has no attribute 'close'",
             "source": "pytest", "code": None}
    client.protocol.notify("whylens/errorsChanged", {"uri": uri, "errors": [error]})
    repo = client.workspace_repo
    commit_new(repo)
    if client.registrations:  # a client that watches files tells the server itself
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=(repo.root / ".git" / "refs" / "heads" / "main").as_uri(),
                            type=types.FileChangeType.Changed)]))
    await wait_for_runs(client, runs + 1)
    after = await hover(client, BUFFER, "def close(", "close")
    assert after is not None and "idempotent" in after.contents.value, after
    await wait_until(client, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: any(
        d.code == "known-pitfall" and d.range.start.line == line
        for d in client.diagnostics.get(uri, [])))
    caps = client.capabilities.workspace.code_lens
    if caps and caps.refresh_support:  # new knowledge: the client is asked to re-ask for lenses
        assert client.lens_refreshes > refreshes
    client.protocol.notify("whylens/errorsChanged", {"uri": uri, "errors": []})
    await wait_until(client, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                     lambda: len(client.diagnostics.get(uri, [])) == 0)


async def test_file_watchers_registered_when_the_client_can(client: LanguageClient):
    caps = client.capabilities.workspace.did_change_watched_files
    if caps and caps.dynamic_registration:
        methods = [r.method for r in client.registrations]
        assert types.WORKSPACE_DID_CHANGE_WATCHED_FILES in methods
    else:
        assert client.registrations == []


async def test_a_deleted_index_is_rebuilt_and_answers_resume(client: LanguageClient):
    import shutil

    index_root = client.workspace_repo.root.parent / "index"
    seen = len(statuses(client))
    shutil.rmtree(index_root)

    def rebuilt() -> bool:
        later = [s["state"] for s in statuses(client)[seen:]]
        return "degraded" in later and "idle" in later[later.index("degraded"):]

    await wait_until(client, "whylens/indexStatus", rebuilt)
    assert index_root.exists()
    result = await hover(client, BUFFER, "def send(", "send")
    assert result is not None and "Session.send" in result.contents.value
