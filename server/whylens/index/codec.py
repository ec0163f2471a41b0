"""Units and records to JSON and back (the sidecar stores them whole), and dates to timestamps."""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import date, datetime, timezone

from whylens.errors import InvalidInputError
from whylens.models import Claim, Record, ThreadUnit, Unit


def dump(item: Unit | Record) -> str:
    # ASCII escapes: a lone surrogate (from a badly decoded message) survives the round trip
    # instead of failing sqlite's UTF-8 encoding
    return json.dumps(asdict(item), ensure_ascii=True, separators=(",", ":"))



def load_unit(text: str) -> Unit:
    data = json.loads(text)
    data["files"] = tuple(data.get("files") or ())
    data["symbols"] = tuple(data.get("symbols") or ())
    return Unit(**data)


def _claim(data: dict | None) -> Claim | None:
    return Claim(**data) if data else None


def load_record(text: str) -> Record:
    data = json.loads(text)
    data["problem"] = _claim(data.get("problem"))
    for key in ("cause", "decision", "rejected"):
        data[key] = tuple(Claim(**c) for c in data.get(key) or ())
    data["thread"] = tuple(ThreadUnit(**t) for t in data.get("thread") or ())
    for key in ("fixing_commits", "supersedes", "anchors", "files"):
        data[key] = tuple(data.get(key) or ())
    return Record(**data)


def record_text(record: Record) -> str:
    """The prose of a record that search should see (title, problem, cause, decision, rejected)."""
    claims = [record.problem] if record.problem else []
    claims += list(record.cause) + list(record.decision) + list(record.rejected)
    return "\n".join(c.text for c in claims)


def iso_timestamp(value: str) -> int:
    """Unix seconds of an ISO 8601 date; 0 when empty or unreadable (sorts as oldest)."""
    if not value:
        return 0
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return 0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp())


def to_timestamp(value: object, name: str = "date") -> int | None:
    """A --since/--until value (int seconds, datetime, date or ISO text) → unix seconds."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise InvalidInputError(f"{name}: expected a date, got {value!r}")
    if isinstance(value, (int, float)):
        return int(value)
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return int(moment.timestamp())
    if isinstance(value, date):
        return int(datetime(value.year, value.month, value.day, tzinfo=timezone.utc).timestamp())
    text = str(value).strip()
    if text.lstrip("-").isdigit():
        return int(text)
    stamp = iso_timestamp(text)
    if stamp == 0 and not text.startswith("1970"):
        raise InvalidInputError(
            f"{name}: {value!r} is not a date; use YYYY-MM-DD, an ISO 8601 time or unix seconds"
        )
    return stamp
