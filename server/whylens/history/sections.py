"""The ``-p -U0`` sections of one commit record: hunk ranges, the binary flag, patch text.

``walk.parse_changes`` reads a record's ``--raw -z`` entries as ``RawEntry``; ``read_patch``
matches each ``diff --git`` section to its entry and reads only the ``@@`` hunk headers (and
keeps the text from the first ``@@`` on when asked).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from whylens.models import Hunk

DIFF_START = b"\ndiff --git "
_HUNK = re.compile(rb"\n@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# Hunk headers repeat a lot ("@@ -0,0 +1 @@"); Hunks are immutable, so equal ones are shared.
_HUNK_CACHE: dict[bytes, Hunk] = {}
_HUNK_CACHE_SIZE = 50_000
# A file's patch text is kept up to this size (the anchorer reads the changed lines from it;
# beyond it the anchorer reads the blobs instead, and skips files over 1 MB anyway).
MAX_PATCH_BYTES = 2_000_000


class RawEntry(NamedTuple):
    """One ``--raw -z`` entry of a commit, before its patch section is matched to it."""

    status: str  # git's letter: A M D R C T
    path: str  # after the change (``gitcli.path_text``: every byte kept)
    old_path: str | None  # before a rename or copy
    old_blob: str | None  # None when added
    new_blob: str | None  # None when deleted
    raw_old: bytes  # the paths as git printed them, to find the ``diff --git`` header
    raw_new: bytes
    same_mode: bool  # old mode == new mode


class PatchInfo(NamedTuple):
    """What the ``-p -U0`` section of one entry says: its hunks, whether it is binary, and its
    text from the first ``@@`` on (when the walk keeps it)."""

    hunks: list[Hunk]
    binary: bool
    text: bytes = b""



def read_patch(record: bytes, pos: int, entries: list[RawEntry],
                patches: list[PatchInfo | None],
                keep_patch: Callable[[str], bool] | None = None) -> None:
    """Attach hunk ranges, the binary flag and (when ``keep_patch`` accepts the path) the
    patch text of each ``diff --git`` section to its entry."""
    headers = [b"diff --git " + _quote(b"a/" + e.raw_old) + b" " + _quote(b"b/" + e.raw_new)
               for e in entries]
    starts = []
    at = record.find(b"diff --git ", pos)
    while at >= 0:
        starts.append(at)
        at = record.find(DIFF_START, at + 1)
        at = at + 1 if at >= 0 else -1
    starts.append(len(record))
    expected = 0
    for begin, finish in zip(starts, starts[1:]):
        line_end = record.find(b"\n", begin, finish)
        header = record[begin:line_end if line_end >= 0 else finish]
        index = _match_section(header, headers, expected)
        if index < 0:
            continue
        expected = index + 1
        first_hunk = record.find(b"\n@@ ", begin, finish)
        head_end = first_hunk if first_hunk >= 0 else finish
        found, binary, text = patches[index] or PatchInfo([], False)
        if record.find(b"\nBinary files ", begin, head_end) >= 0:
            binary = True
        if (first_hunk >= 0 and keep_patch is not None and finish - first_hunk <= MAX_PATCH_BYTES
                and keep_patch(entries[index].path)):
            text = record[first_hunk + 1:finish]
        if first_hunk >= 0:
            for m in _HUNK.finditer(record, first_hunk, finish):
                key = m.group(0)
                hunk = _HUNK_CACHE.get(key)
                if hunk is None:
                    hunk = _HUNK_CACHE[key] = _make_hunk(*m.groups())
                found.append(hunk)
        patches[index] = PatchInfo(found, binary, text)
    if len(_HUNK_CACHE) > _HUNK_CACHE_SIZE:
        _HUNK_CACHE.clear()


def _make_hunk(old_start, old_count, new_start, new_count) -> Hunk:
    return Hunk(int(old_start), 1 if old_count is None else int(old_count),
                int(new_start), 1 if new_count is None else int(new_count))


def _match_section(header: bytes, headers: list[bytes], expected: int) -> int:
    """Entry of a section: normally the expected next one; a type change prints two sections."""
    if expected < len(headers) and headers[expected] == header:
        return expected
    if expected > 0 and headers[expected - 1] == header:
        return expected - 1
    try:
        return headers.index(header)
    except ValueError:
        return -1


_ESCAPES = {7: b"\\a", 8: b"\\b", 9: b"\\t", 10: b"\\n", 11: b"\\v", 12: b"\\f", 13: b"\\r",
            34: b'\\"', 92: b"\\\\"}


_NEEDS_QUOTE = re.compile(rb'[\x00-\x1f"\\\x7f]')


def _quote(path: bytes) -> bytes:
    """A path as git's C-style quoting prints it (``core.quotePath=false``)."""
    if not _NEEDS_QUOTE.search(path):
        return path
    out = bytearray(b'"')
    for b in path:
        if b in _ESCAPES:
            out += _ESCAPES[b]
        elif b < 0x20 or b == 0x7F:
            out += b"\\%03o" % b
        else:
            out.append(b)
    out += b'"'
    return bytes(out)
