"""The anchorer's parse cache: the newest parsed blobs (outline and tree) within a count and a
byte budget, each new one re-parsed incrementally from another cached version of its file when
there is one; and ``ChangedLines``, a file change's new lines read on first need."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from whylens.models import FileChange
from whylens.symbols.extract import parse_outline, reparse_outline
from whylens.symbols.hunks import hunk_rows, trimmed_range
from whylens.symbols.parse import Outline
from whylens.symbols.skip import content_skip_reason

DEFAULT_CACHE_ENTRIES = 16  # parsed outlines (source and tree) kept for incremental re-parses
DEFAULT_CACHE_BYTES = 1_500_000  # their source bytes (a tree costs 10-20 times its source)


class OutlineCache:
    """Blob sha → its outline or skip reason, oldest evicted first. ``stats`` (the anchorer's)
    counts ``parsed``, ``incremental`` and ``cache_hits``."""

    def __init__(self, stats: dict, entries: int = DEFAULT_CACHE_ENTRIES,
                 max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.stats = stats
        self._entries = entries
        self._max_bytes = max_bytes
        self._held: OrderedDict[str, Outline | str] = OrderedDict()
        self._bytes = 0
        self._last_parsed: dict[str, str] = {}  # path → the blob of it parsed last

    def __len__(self) -> int:
        return len(self._held)

    def get(self, sha: str) -> Outline | str | None:
        """The cached outline or skip reason of ``sha`` (a hit, kept longer), or None."""
        cached = self._held.get(sha)
        if cached is not None:
            self._held.move_to_end(sha)
            self.stats["cache_hits"] += 1
        return cached

    def source(self, sha: str) -> bytes | None:
        """The source of ``sha`` when its parse is cached (not a hit: nothing is parsed)."""
        cached = self._held.get(sha)
        return cached.source if isinstance(cached, Outline) else None

    def outline(self, sha: str, data: bytes, language: str, path: str,
                change: FileChange | None = None) -> Outline | str:
        """Blob ``sha`` (``data``) of ``path`` parsed, or its skip reason; cached.

        Re-parsed incrementally when another version of the file is still cached: from the new
        side of ``change`` by its hunks, else from the version of ``path`` parsed last, by the
        lines between their common start and common end."""
        reason = content_skip_reason("", len(data), data)
        if reason is not None:
            self._remember(sha, reason, 0)
            return reason
        other = self._held.get(change.new_blob) if change and change.new_blob else None
        if change is not None and isinstance(other, Outline) and other.tree is not None \
                and change.hunks:
            ranges = [(nr, nc, orow, oc) for orow, oc, nr, nc in map(hunk_rows, change.hunks)]
        else:
            other = self._held.get(self._last_parsed.get(path, ""))
            ranges = trimmed_range(other.source, data) if isinstance(other, Outline) else []
        if isinstance(other, Outline) and other.tree is not None and other.language == language \
                and ranges:
            outline = reparse_outline(other, data, ranges)
            self.stats["incremental"] += 1
        else:
            outline = parse_outline(data, language)
        self.stats["parsed"] += 1
        self._remember(sha, outline, len(data))
        self._last_parsed[path] = sha
        return outline

    def _remember(self, sha: str, value: Outline | str, size: int) -> None:
        self._held[sha] = value
        self._bytes += size
        while self._held and (len(self._held) > self._entries or self._bytes > self._max_bytes):
            _, evicted = self._held.popitem(last=False)
            if isinstance(evicted, Outline):
                self._bytes -= len(evicted.source)


class ChangedLines:
    """The lines of a file change's new version, from the patch when it holds the whole file,
    else from the parse cache or the blob (read once, on first need)."""

    def __init__(self, cache: OutlineCache, read_blob: Callable[[str], bytes | None], sha: str,
                 whole: list[bytes] | None) -> None:
        self._cache, self._read_blob, self._sha = cache, read_blob, sha
        self._lines: list[bytes] | None = whole  # an added file's patch is all of it

    def source(self) -> bytes:
        cached = self._cache.source(self._sha)
        if cached is not None:
            return cached
        return self._read_blob(self._sha) or b""

    def lines(self) -> list[bytes]:
        if self._lines is None:
            self._lines = self.source().splitlines(keepends=True)
        return self._lines
