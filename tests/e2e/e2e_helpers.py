"""Waiting helpers for the e2e tests: on notifications, never on the clock."""

from __future__ import annotations

import asyncio
from typing import Any

from pytest_lsp import LanguageClient

WAIT_S = 30  # indexing a tiny repository takes about a second; this bounds a broken run


def as_data(value: Any) -> Any:
    """pygls hands custom payloads to the client as namedtuples: turn them back into dicts."""
    if hasattr(value, "_asdict"):
        return {k: as_data(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [as_data(v) for v in value]
    return value


async def wait_until(client: LanguageClient, method: str, condition, timeout: float = WAIT_S):
    """Wait for notifications of ``method`` until ``condition()`` holds (checked first)."""

    async def loop():
        while not condition():
            await client.wait_for_notification(method)

    await asyncio.wait_for(loop(), timeout)


def statuses(client: LanguageClient) -> list[dict]:
    return client.whylens_statuses  # type: ignore[attr-defined]


def finished_runs(client: LanguageClient) -> int:
    """Index runs that ended (idle, degraded or error after indexing)."""
    return sum(1 for s in statuses(client) if s["state"] in ("idle", "degraded", "error"))


async def wait_for_runs(client: LanguageClient, count: int) -> dict:
    await wait_until(client, "whylens/indexStatus", lambda: finished_runs(client) >= count)
    return [s for s in statuses(client) if s["state"] != "indexing"][count - 1]
