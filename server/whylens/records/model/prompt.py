"""A record's frozen input snapshot → chat messages, the reply's JSON schema, and their hash.

The snapshot holds only what the model may use: the title, the numbered thread units and the
candidate anchors. The hash (``model_input_hash``) covers the model name, the messages and the
schema, so an unchanged input is recognised and never sent twice.
"""

from __future__ import annotations

import hashlib
import json

from whylens.models import Record

MAX_PROMPT_UNITS = 120
MAX_UNIT_CHARS = 800
MAX_THREAD_CHARS = 24_000  # the whole thread in the prompt; small local models have small windows
MAX_CLAIMS = 3

SYSTEM = (
    "You distil a decision record from a software development thread (issue, pull request, "
    "commit messages). Report what was broken or asked for (problem), the underlying cause, the "
    "approach that landed (decision), and alternatives that were considered and not taken "
    "(rejected). Every claim is one short sentence taken or faithfully condensed from ONE thread "
    "unit, and cites that unit's id (U1, U2, ...). Never invent facts or units; leave a field "
    "empty when the thread does not say it. Choose anchors only from the candidate list: the "
    "code symbols the fix is really about. Answer with one JSON object matching the schema and "
    "nothing else."
)


def snapshot(record: Record) -> dict:
    """The frozen input: what the model sees of ``record``, nothing else."""
    units, total = [], 0
    for unit in record.thread[:MAX_PROMPT_UNITS]:
        text = unit.text[:MAX_UNIT_CHARS]
        total += len(text)
        if total > MAX_THREAD_CHARS:
            break
        units.append({"id": unit.id, "kind": unit.kind, "author": unit.author, "text": text})
    return {"id": record.id, "title": record.title, "units": units, "candidates": list(record.anchors)}


def schema(snap: dict) -> dict:
    """The reply's JSON schema; citations and anchors are enumerated from the snapshot."""
    unit_ids = [u["id"] for u in snap["units"]] or ["U1"]
    claim = {
        "type": "object",
        "additionalProperties": False,
        "required": ["text", "unit"],
        "properties": {
            "text": {"type": "string", "minLength": 1, "maxLength": 400},
            "unit": {"type": "string", "enum": unit_ids},
        },
    }
    claims = {"type": "array", "items": claim, "maxItems": MAX_CLAIMS}
    anchors = {"type": "array", "items": {"type": "string", "enum": snap["candidates"]}} \
        if snap["candidates"] else {"type": "array", "maxItems": 0}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["problem", "cause", "decision", "rejected", "anchors"],
        "properties": {
            "problem": {"anyOf": [claim, {"type": "null"}]},
            "cause": claims,
            "decision": claims,
            "rejected": claims,
            "anchors": anchors,
        },
    }


def messages(snap: dict) -> list[dict]:
    thread = "\n".join(f"[{u['id']}] ({u['kind']}{', ' + u['author'] if u['author'] else ''}) "
                       f"{u['text']}" for u in snap["units"])
    candidates = ", ".join(snap["candidates"]) or "(none: answer an empty list)"
    user = (
        f"Title: {snap['title']}\n\nThread:\n{thread}\n\nCandidate anchors: {candidates}\n\n"
        f"JSON schema of the answer:\n{json.dumps(schema(snap), sort_keys=True)}"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def input_hash(snap: dict, model: str) -> str:
    """``model_input_hash``: sha256 over the model name, the messages and the schema."""
    payload = {"model": model, "messages": messages(snap), "schema": schema(snap)}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()
