"""Protocol compliance without the SDK (raw JSON-RPC lines), a client that goes away mid-call,
no GitPython in the server process, and `whylens mcp` without the optional extra."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from whylens.cli import main

from mcp_server.mcp_helpers import SEND_LINE, RawServer, mcp_session, text_of


def _processes_mentioning(marker: str) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(cmdline)
    return found


def test_raw_json_rpc_session(project):
    server = RawServer(project.args)
    try:
        hello = server.initialize()
        assert hello["jsonrpc"] == "2.0" and hello["result"]["protocolVersion"] == "2025-06-18"
        assert hello["result"]["serverInfo"]["name"] == "whylens"
        assert "tools" in hello["result"]["capabilities"] and hello["result"]["instructions"]

        server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        tools = server.response(1)["result"]["tools"]
        assert sorted(t["name"] for t in tools) == ["explain_error", "review_diff", "search", "why"]
        assert all(t["inputSchema"]["type"] == "object" for t in tools)

        server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "why", "arguments": {"path": "src/session.py", "line": SEND_LINE}}})
        result = server.response(2)["result"]
        assert result["isError"] is False and result["content"][0]["type"] == "text"
        assert result["structuredContent"]["symbol"]["name"] == "Session.send"
        assert result["structuredContent"]["known"] is True

        server.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                     "params": {"name": "why", "arguments": "src/session.py"}})
        assert "error" in server.response(3)  # arguments that are not an object: invalid params
        server.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "why", "arguments": {"path": "../../etc/passwd"}}})
        refused = server.response(4)["result"]
        assert refused["isError"] is True and "outside the repository" in refused["content"][0]["text"]
        server.send({"jsonrpc": "2.0", "id": 5, "method": "resources/subscribe-everything"})
        assert server.response(5)["error"]["code"] == -32601  # method not found
        server.send("{this is not json")
        server.send({"jsonrpc": "2.0", "id": 6, "method": "ping"})
        assert server.response(6)["result"] == {}  # still serving after a garbled line
    finally:
        code, stderr = server.close()
    assert code == 0 and "Traceback" not in stderr


def test_a_client_that_disconnects_mid_call(project):
    server = RawServer(project.args)
    server.initialize()
    server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": "review_diff", "arguments": {}}})  # runs a child process
    server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "explain_error", "arguments": {"text": "x" * 3_000_000}}})
    code, stderr = server.close()  # gone without waiting for either answer
    assert code == 0, stderr
    assert "Traceback" not in stderr
    assert not _processes_mentioning(str(project.index)), "a child outlived the server"


def test_the_server_process_never_imports_gitpython(project):
    """Tools (review_diff included) run in a fresh interpreter; GitPython must not load there."""
    script = textwrap.dedent(f"""
        import json, sys
        import anyio
        from mcp import Client
        from whylens.mcp.keeper import IndexKeeper
        from whylens.mcp.server import build_server

        CALLS = [("why", {{"path": "src/session.py", "line": {SEND_LINE}}}),
                 ("search", {{"query": "deadlock"}}), ("explain_error", {{"text": "TimeoutError"}}),
                 ("review_diff", {{}})]

        async def main():
            keeper = IndexKeeper({str(project.repo.root)!r}, {str(project.index)!r})
            try:
                async with Client(build_server(keeper), mode="legacy") as client:
                    for name, arguments in CALLS:
                        result = await client.call_tool(name, arguments)
                        assert not result.is_error, (name, result.content)
            finally:
                keeper.close()

        anyio.run(main)
        print(json.dumps(sorted(m for m in sys.modules if m == "git" or m.startswith("git."))))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_without_the_mcp_extra(project):
    script = ("import sys; sys.modules['mcp'] = None\n"
              "from whylens.cli import main\n"
              f"sys.exit(main(['mcp', '--repo', {str(project.repo.root)!r}]))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 1
    assert "pip install 'whylens[mcp]'" in out.stderr and "Traceback" not in out.stderr
    helped = subprocess.run([sys.executable, "-c", script.replace("'mcp', '--repo'", "'--help'")
                             .replace(f", {str(project.repo.root)!r}", "")],
                            capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "mcp" in helped.stdout  # every other command still works


def test_an_index_folder_inside_the_repository_is_refused(project, capsys):
    inside = project.repo.root / ".whylens-index"
    assert main(["mcp", "--repo", str(project.repo.root), "--index-dir", str(inside)]) == 2
    assert "inside the repository" in capsys.readouterr().err
    assert not inside.exists()


def test_the_sdk_default_mode_and_the_current_folder_as_repository(project, tmp_path):
    """The SDK's own default negotiation ("auto"), and no --repo: the folder it starts in."""
    args = ["--index-dir", str(project.index)]
    with mcp_session(args, tmp_path / "stderr.txt", cwd=project.repo.root / "src",
                     mode="auto") as session:
        result = session.call("why", {"path": f"src/session.py:{SEND_LINE}"})
        assert not result.is_error, text_of(result)
        assert result.structured_content["symbol"]["name"] == "Session.send"
