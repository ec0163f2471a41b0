"""Drain the queue through the model, one record at a time, with the output ladder:

1. guided decode (``response_format`` json_schema) → strict parse + validation;
2. one unguided retry → strict parse + validation;
3. one tolerant fence-strip of the replies received → validation;
4. else fail: keep the raw reply, re-queue.

A run with nothing pending returns before touching the endpoint. A timeout or an unreachable
endpoint stops the run and leaves the record pending (it is not the record's fault).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from whylens.records.model.client import EndpointError, GuidedRejected, chat
from whylens.records.model.prompt import messages, schema
from whylens.records.model.queue import DistillQueue
from whylens.records.model.settings import DistillSettings
from whylens.records.model.validate import ReplyInvalid, parse_strict, parse_tolerant, validate


@dataclass
class DrainSummary:
    done: list[str] = field(default_factory=list)  # record ids finished in this run
    failed: list[str] = field(default_factory=list)  # ladders that ended in failure (re-queued)
    requests: int = 0  # chat calls made
    stopped: str | None = None  # why the run stopped early

    def as_dict(self) -> dict:
        return {"done": self.done, "failed": self.failed, "requests": self.requests,
                "stopped": self.stopped}


@dataclass
class LadderResult:
    result: dict | None
    raw: str | None
    error: str | None
    steps: list[str]  # which rungs ran: guided, retry, tolerant


def drain(
    queue: DistillQueue,
    settings: DistillSettings,
    limit: int,
    on_done: Callable[[str, dict], None] | None = None,
) -> DrainSummary:
    """Distil up to ``limit`` pending records; each result is durable before the next starts."""
    summary = DrainSummary()
    work = queue.pending(limit)
    if not work:
        return summary  # zero work: the endpoint is never touched
    for record_id, digest, snap in work:
        try:
            ladder = run_ladder(settings, snap, summary)
        except EndpointError as exc:
            queue.fail(record_id, digest, None, str(exc), count=False)
            summary.stopped = str(exc)
            break
        if ladder.result is not None:
            queue.finish(record_id, digest, ladder.result, ladder.raw or "")
            summary.done.append(record_id)
            if on_done:
                on_done(record_id, ladder.result)
        else:
            queue.fail(record_id, digest, ladder.raw, ladder.error or "invalid reply")
            summary.failed.append(record_id)
    return summary


def run_ladder(settings: DistillSettings, snap: dict, summary: DrainSummary | None = None) -> LadderResult:
    """The output ladder for one snapshot; raises ``EndpointError`` when the endpoint fails."""
    summary = summary or DrainSummary()
    prompt, reply_schema = messages(snap), schema(snap)
    replies: list[str] = []
    errors: list[str] = []
    steps: list[str] = []
    for step, guided in (("guided", True), ("retry", False)):
        steps.append(step)
        summary.requests += 1
        try:
            raw = chat(settings, prompt, reply_schema if guided else None)
        except GuidedRejected as exc:
            errors.append(f"{step}: endpoint refused the request ({exc})")
            continue
        replies.append(raw)
        try:
            return LadderResult(validate(parse_strict(raw), snap), raw, None, steps)
        except ReplyInvalid as exc:
            errors.append(f"{step}: {exc}")
    steps.append("tolerant")
    for raw in reversed(replies):
        try:
            return LadderResult(validate(parse_tolerant(raw), snap), raw, None, steps)
        except ReplyInvalid as exc:
            errors.append(f"tolerant: {exc}")
    return LadderResult(None, replies[-1] if replies else None, "; ".join(errors), steps)
