"""Reply text → a validated distillation, or a ``ReplyInvalid`` saying why not.

Strict parsing takes the reply as JSON and nothing else; tolerant parsing strips a markdown fence
or surrounding chatter first. Validation rejects a citation to a unit that does not exist and an
anchor outside the candidate list; duplicate claims and anchors are dropped, first one kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from whylens.models import Claim, Record
from whylens.records.model.prompt import MAX_CLAIMS

FIELDS = ("cause", "decision", "rejected")
_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.DOTALL)


class ReplyInvalid(ValueError):
    """The reply cannot be used; ``str()`` says why (kept with the raw reply)."""


def parse_strict(text: str) -> dict:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError) as exc:
        raise ReplyInvalid(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ReplyInvalid("the reply is not a JSON object")
    return value


def parse_tolerant(text: str) -> dict:
    """Strip a ```json fence, or cut from the first ``{`` to the last ``}``, then parse."""
    fenced = _FENCE.search(text or "")
    if fenced:
        return parse_strict(fenced.group(1).strip())
    start, end = (text or "").find("{"), (text or "").rfind("}")
    if start < 0 or end <= start:
        raise ReplyInvalid("no JSON object in the reply")
    return parse_strict(text[start:end + 1])


def validate(value: dict, snap: dict) -> dict:
    """The reply checked against the snapshot, normalised to plain JSON (deduped, capped)."""
    units = {u["id"] for u in snap["units"]}
    candidates = set(snap["candidates"])
    missing = [k for k in ("problem", *FIELDS, "anchors") if k not in value]
    if missing:
        raise ReplyInvalid(f"missing fields: {', '.join(missing)}")
    out: dict = {"problem": None if value["problem"] is None else _claim(value["problem"], units)}
    for name in FIELDS:
        items = value[name]
        if not isinstance(items, list):
            raise ReplyInvalid(f"{name} must be a list")
        claims = [_claim(item, units) for item in items]
        out[name] = _dedupe(claims, key=lambda c: (c["unit"], c["text"].lower()))[:MAX_CLAIMS]
    anchors = value["anchors"]
    if not isinstance(anchors, list) or not all(isinstance(a, str) for a in anchors):
        raise ReplyInvalid("anchors must be a list of names")
    off_list = [a for a in anchors if a not in candidates]
    if off_list:
        raise ReplyInvalid(f"anchors not in the candidate list: {', '.join(off_list[:5])}")
    out["anchors"] = _dedupe(anchors, key=lambda a: a)
    return out


def apply(record: Record, result: dict) -> Record:
    """``record`` with the model's fields; anchors narrow only when the model chose some."""
    def claim(c):
        return Claim(text=c["text"], unit=c["unit"])

    return replace(
        record,
        problem=claim(result["problem"]) if result.get("problem") else record.problem,
        cause=tuple(claim(c) for c in result.get("cause", ())),
        decision=tuple(claim(c) for c in result.get("decision", ())),
        rejected=tuple(claim(c) for c in result.get("rejected", ())),
        anchors=tuple(result.get("anchors") or record.anchors),
        distilled_by="model",
    )


def _claim(item, units: set[str]) -> dict:
    if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not isinstance(item.get("unit"), str):
        raise ReplyInvalid("a claim must be an object with text and unit strings")
    text, unit = " ".join(item["text"].split()), item["unit"].strip()
    if not text:
        raise ReplyInvalid("a claim has empty text")
    if unit not in units:
        raise ReplyInvalid(f"a claim cites {unit}, which is not a unit of the thread")
    return {"text": text[:400], "unit": unit}


def _dedupe(items: list, key) -> list:
    seen, out = set(), []
    for item in items:
        k = key(item)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out
