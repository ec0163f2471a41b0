"""Units and records to JSON and back (the sidecar stores them whole, deflated), and dates to
timestamps."""

from __future__ import annotations

import json
import zlib
from dataclasses import asdict
from datetime import date, datetime, timezone

from whylens.errors import InvalidInputError
from whylens.models import Claim, Record, ThreadUnit, Unit


# The sidecar stores each unit's and record's JSON as raw deflate with this preset dictionary:
# their keys and the values most of them share. A unit is ~850 bytes of JSON and a record ~1.7 KB;
# deflated alone they shrink 2.3x, with the dictionary 2.8x (redis/redis: records 7.2 MB of JSON
# -> 1.9 MB). Never edit it without bumping PIPELINE_VERSION: stored items are read with it.
PACK_DICTIONARY = (
    '{"id":"","type":"fact","title":"","content":"","weight":0.5,"context":"","commit":"",'
    '"author":"","date":"","files":[],"symbols":[],"source":"commit","heuristic":"model.fact",'
    '"pr":null}{"id":"pr-","kind":"pr","number":,"title":"","problem":{"text":"","unit":"U1",'
    '"weight":0.2},"cause":[{"text":"","unit":"U2","weight":0.2}],"decision":[{"text":"",'
    '"unit":"U1","weight":0.0}],"rejected":[],"fixing_commits":[""],"partner":null,'
    '"merged":true,"supersedes":[],"fix_edge_source":"text","thread_shape":"thin",'
    '"distilled_by":"rules","thread":[{"id":"U1","author":"","kind":"description","text":"",'
    '"url":null,"commit":""},{"id":"U2","author":"","kind":"description","text":"","url":null,'
    '"commit":""}],"anchors":[],"files":["src/"],"author":"","date":"","url":null,'
    '"label":"distilled, unreviewed"}'
).encode("ascii")


def dump(item: Unit | Record) -> bytes:
    """``item`` as the sidecar stores it: its JSON, deflated (``pack``)."""
    # ASCII escapes: a lone surrogate (from a badly decoded message) survives the round trip
    # instead of failing sqlite's UTF-8 encoding
    return pack(json.dumps(asdict(item), ensure_ascii=True, separators=(",", ":")))


def pack(text: str) -> bytes:
    deflate = zlib.compressobj(6, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY,
                               PACK_DICTIONARY)
    return deflate.compress(text.encode("utf-8", "surrogatepass")) + deflate.flush()


def unpack(data: bytes | str) -> str:
    """The JSON text ``pack`` stored (text is passed through)."""
    if isinstance(data, str):
        return data
    inflate = zlib.decompressobj(-15, PACK_DICTIONARY)
    return (inflate.decompress(data) + inflate.flush()).decode("utf-8", "surrogatepass")


def load_unit(text: bytes | str) -> Unit:
    data = json.loads(unpack(text))
    data["files"] = tuple(data.get("files") or ())
    data["symbols"] = tuple(data.get("symbols") or ())
    return Unit(**data)


def _claim(data: dict | None) -> Claim | None:
    return Claim(**data) if data else None


def load_record(text: bytes | str) -> Record:
    data = json.loads(unpack(text))
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
