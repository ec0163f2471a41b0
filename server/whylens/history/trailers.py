"""Git trailers (``Signed-off-by: …``) in the last paragraph of a commit body. Pure text."""

from __future__ import annotations

import re

_TRAILER = re.compile(r"^([A-Za-z][A-Za-z0-9-]*)\s*:\s*(.+)$")


def parse_trailers(body: str) -> tuple[tuple[str, str], ...]:
    """``Key: value`` lines of the body's last paragraph, when every line there is one."""
    if not body:
        return ()
    last = body.rstrip().rsplit("\n\n", 1)[-1]
    trailers: list[tuple[str, str]] = []
    for line in last.splitlines():
        if line[:1] in (" ", "\t") and trailers:  # continuation of the previous value
            key, value = trailers[-1]
            trailers[-1] = (key, f"{value} {line.strip()}")
            continue
        m = _TRAILER.match(line)
        if not m or m.group(1).lower() in ("http", "https"):
            return ()
        trailers.append((m.group(1), m.group(2).strip()))
    if not any("-" in k or k.lower() in _SINGLE_WORD_KEYS for k, _ in trailers):
        return ()  # a paragraph of "Note: ..." lines is prose, not trailers
    return tuple(trailers)


_SINGLE_WORD_KEYS = frozenset({"fixes", "closes", "resolves", "refs", "see", "cc", "change-id",
                               "bug", "issue", "reviewed", "tested"})


def body_without_trailers(body: str) -> str:
    """The body with its trailer paragraph removed."""
    if not body or not parse_trailers(body):
        return body
    parts = body.rstrip().rsplit("\n\n", 1)
    return parts[0] if len(parts) == 2 else ""
