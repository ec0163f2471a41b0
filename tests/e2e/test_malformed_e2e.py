"""Every request is answered: out-of-spec positions and missing text documents get an
InvalidParams error within a second, nothing pops up, and the server keeps answering."""

from __future__ import annotations

import asyncio

import pytest

from e2e_history import build
from raw_client import RawClient

pytestmark = [pytest.mark.e2e]

MALFORMED_POSITIONS = [
    {"line": -1, "character": 0}, {"line": 0, "character": -5}, {"line": 2 ** 32, "character": 0},
    {"line": 0, "character": 2 ** 40}, {"line": None, "character": 0}, {"line": 1.5, "character": 0},
    {"line": "1", "character": 0}, None, [], {},
]


async def test_malformed_requests_are_answered_and_show_nothing(make_repo, tmp_path):
    repo = make_repo("project")
    build(repo)
    client, _ = await RawClient.indexed(repo.root, tmp_path / "index")
    try:
        uri = (repo.root / "src" / "session.py").as_uri()
        cases = [("textDocument/hover", {"textDocument": {"uri": uri}, "position": p})
                 for p in MALFORMED_POSITIONS]
        cases += [("textDocument/hover", {"position": {"line": 0, "character": 0}}),
                  ("textDocument/hover", {"textDocument": None}),
                  ("textDocument/hover", {"textDocument": {"uri": 5}, "position": {}}),
                  ("textDocument/hover", "not an object"),
                  ("textDocument/codeLens", {}),
                  ("codeLens/resolve", {"range": None})]
        for method, params in cases:
            answer = await client.request(method, params, timeout=1.0)
            assert answer is not None, f"{method} {params!r} was never answered"
            # InvalidParams, or null where the typed params still make sense (a line of 1.5)
            assert (answer.error or {}).get("code", -32602) == -32602, (params, answer)
            assert answer.error or answer.result is None, (params, answer)
        client.notify("textDocument/didOpen", {"textDocument": {"uri": 1}})  # dropped, logged
        client.notify("whylens/errorsChanged", {"uri": uri, "errors": "x"})  # logged
        answer = await client.request("whylens/search", {"query": "deadlock"}, timeout=5)
        assert answer is not None and answer.result is not None  # still answering
        assert client.shown() == [], client.shown()
    finally:
        assert await client.stop() == 0


async def test_a_burst_of_error_reports_neither_blocks_hovers_nor_piles_up(make_repo, tmp_path):
    """Twenty reports of 300 errors each for one document: a hover sent after them is answered
    before the matching ends (the matcher yields the loop), and the burst coalesces into far
    fewer matched reports than twenty (the latest report per document wins)."""
    from e2e_history import V3

    repo = make_repo("project")
    build(repo)
    client, _ = await RawClient.indexed(repo.root, tmp_path / "index")
    try:
        uri = (repo.root / "src" / "session.py").as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": V3}})
        lines = V3.splitlines()
        line = next(i for i, text in enumerate(lines) if "except TimeoutError" in text)
        send = next(i for i, text in enumerate(lines) if "def send(" in text)

        def report(n: int) -> dict:
            errors = [{"range": {"start": {"line": line, "character": 0},
                                 "end": {"line": line, "character": 5}},
                       "message": f"TimeoutError: the server did not answer in time ({n}.{i})",
                       "source": "pytest"} for i in range(300)]
            return {"uri": uri, "errors": errors}

        for n in range(20):
            client.notify("whylens/errorsChanged", report(n))
        hover = await client.request("textDocument/hover", {
            "textDocument": {"uri": uri},
            "position": {"line": send, "character": lines[send].index("send") + 1}}, timeout=30)
        published_before_hover = _published(client, uri)
        assert hover is not None and hover.result is not None
        async def settled():
            while not _published(client, uri):
                await asyncio.sleep(0.05)
        await asyncio.wait_for(settled(), 120)
        await asyncio.sleep(1.0)
        assert published_before_hover == 0, "the hover waited for the matching"
        assert 1 <= _published(client, uri) < 20
    finally:
        assert await client.stop() == 0


def _published(client: RawClient, uri: str) -> int:
    return sum(1 for n in client.notifications if n.get("method") ==
               "textDocument/publishDiagnostics" and n["params"]["uri"] == uri)
