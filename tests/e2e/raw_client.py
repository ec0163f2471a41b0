"""A raw JSON-RPC client for the real server: sends any bytes-level message (params no typed
client would build), answers the server's own requests, records what the server sends.

Used by the malformed-request tests and ``bench/drills.py`` (the fuzz).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Answer:
    result: Any = None
    error: dict | None = None
    seconds: float = 0.0


@dataclass
class RawClient:
    proc: asyncio.subprocess.Process
    notifications: list[dict] = field(default_factory=list)
    pending: dict[int, asyncio.Future] = field(default_factory=dict)
    next_id: int = 1
    reader: asyncio.Task | None = None

    @classmethod
    async def start(cls, *args: str, cwd: str | None = None) -> RawClient:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "whylens", "serve", *args, cwd=cwd,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, limit=1 << 24)
        client = cls(proc)
        client.reader = asyncio.ensure_future(client._read())
        return client

    async def initialize(self, root: Path, index_dir: Path, settings: dict | None = None) -> None:
        await self.request("initialize", {
            "processId": None, "rootUri": root.as_uri(),
            "capabilities": {"workspace": {"configuration": True, "workspaceFolders": True},
                             "textDocument": {"hover": {"contentFormat": ["markdown"]}}},
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": {"indexDirectory": str(index_dir),
                                      "settings": settings or {}},
        }, timeout=30)
        self.notify("initialized", {})

    async def wait_indexed(self, timeout: float = 60) -> dict:
        """The first ``whylens/indexStatus`` that ends a run (idle, degraded or error)."""
        async def first():
            while True:
                for n in self.notifications:
                    if n.get("method") == "whylens/indexStatus" and n["params"]["state"] != "indexing":
                        return n["params"]
                await asyncio.sleep(0.05)
        return await asyncio.wait_for(first(), timeout)

    @classmethod
    async def indexed(cls, root: Path, index_dir: Path, settings: dict | None = None
                      ) -> tuple[RawClient, dict]:
        """A server on ``root``, initialized, after its first index run (and that run's status)."""
        client = await cls.start()
        await client.initialize(root, index_dir, settings)
        return client, await client.wait_indexed()

    def send_raw(self, body: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode())

    async def request(self, method: str, params: Any, timeout: float = 5.0,
                      omit_params: bool = False) -> Answer | None:
        """The answer, or None when none came within ``timeout`` seconds."""
        msg_id = self.next_id
        self.next_id += 1
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.pending[msg_id] = future
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if not omit_params:
            message["params"] = params
        started = time.perf_counter()
        self.send_raw(json.dumps(message).encode())
        try:
            reply = await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            return None
        finally:
            self.pending.pop(msg_id, None)
        return Answer(reply.get("result"), reply.get("error"), time.perf_counter() - started)

    def shown(self) -> list[str]:
        """The ``window/showMessage`` texts so far (what a user would see pop up)."""
        return [n["params"]["message"] for n in self.notifications
                if n.get("method") == "window/showMessage"]

    async def stop(self) -> int | None:
        try:
            await self.request("shutdown", None, timeout=5, omit_params=True)
            self.notify("exit", None)
            await asyncio.wait_for(self.proc.wait(), 5)
        except (asyncio.TimeoutError, ConnectionError, BrokenPipeError):
            self.proc.kill()
            await self.proc.wait()
        if self.reader:
            self.reader.cancel()
        return self.proc.returncode

    async def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = await stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message = json.loads(await stream.readexactly(length))
            if "method" in message and "id" in message:  # the server asks the client
                self._answer_server(message)
            elif "method" in message:
                self.notifications.append(message)
            elif message.get("id") in self.pending:
                self.pending[message["id"]].set_result(message)

    def _answer_server(self, message: dict) -> None:
        result: Any = None
        if message["method"] == "workspace/configuration":
            result = [{} for _ in message.get("params", {}).get("items", [])]
        self.send_raw(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                                  "result": result}).encode())
