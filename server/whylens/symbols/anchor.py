"""Commit → the symbols it substantively changed (``SymbolEvent``), with a parse cache.

For every changed file in a supported language (and not skipped, see ``skip``), the old and new
blobs are parsed (each blob once: the cache is keyed by blob sha, and commit N's old blob is
commit N-1's new blob), the hunks' changed lines are mapped to the innermost definition on
each side, and each touched definition is compared (``fingerprint.change_kind``).

A blob missing from the cache is parsed *incrementally* when the other side of the same file
change is cached: its tree is edited by the hunks and re-parsed (tree-sitter re-reads only the
changed regions), and definitions away from the edit are copied from the cached outline
(``extract.reparse_outline``). Walking newest first, a file's history costs one full parse
plus one incremental parse per change. The cache drops the least recently used blob, except
that a blob that has served both its changes (the old side of the newer one, then the new side)
goes first: the walk needs its file's older blobs next, not it.

Decisions (tested in tests/unit/symbols/test_anchor.py):
- innermost only: a change inside ``Session.send`` is an event of ``Session.send`` alone; adding
  or deleting a method is an event of that method, not a ``body`` event of its class (the
  class's own text excludes its members); the class gets ``body`` only when its own text
  changes (a class attribute, a base class is ``signature``).
- an unchanged renamed file gives no events; a renamed file's events carry the new path.
- renames and moves across the commit: see ``matching``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable

from whylens.models import Commit, FileChange, SymbolEvent
from whylens.symbols.extract import parse_outline, reparse_outline
from whylens.symbols.fingerprint import change_kind
from whylens.symbols.languages import language_for_path
from whylens.symbols.matching import Added, Deleted, resolve
from whylens.symbols.parse import Outline, supported
from whylens.symbols.skip import content_skip_reason, path_skip_reason

DEFAULT_CACHE_ENTRIES = 256
DEFAULT_CACHE_BYTES = 48_000_000  # source bytes kept (trees cost a few times more);
# measured on psf/requests: 256 entries keep 85% of the ideal hits at 40% of the memory of 1024;
# evicting blobs that served both their changes first, 687 full parses instead of 1000 (642 with
# an unbounded cache)


class Anchorer:
    """Turns commits into symbol events; keeps parses of recent blobs (LRU, bounded)."""

    def __init__(
        self,
        read_blob: Callable[[str], bytes | None],
        attributes: Iterable[tuple[str, dict]] = (),
        cache_entries: int = DEFAULT_CACHE_ENTRIES,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        self._read_blob = read_blob
        self._attributes = tuple(attributes)
        self._cache: OrderedDict[str, Outline | str] = OrderedDict()  # sha → outline or skip
        self._cache_entries = cache_entries
        self._cache_bytes = cache_bytes
        self._cached_bytes = 0
        self._path_reasons: dict[str, str | None] = {}
        self.stats: dict = {
            "parsed": 0,  # blobs parsed (full or incremental)
            "incremental": 0,  # of which re-parsed from the other side's edited tree
            "cache_hits": 0,
            "files": 0,  # file changes anchored
            "files_skipped": {},  # reason → file changes skipped
            "events": 0,
        }

    def events(self, commit: Commit) -> list[SymbolEvent]:
        """The substantive symbol changes of ``commit`` (none for merges or skipped files)."""
        added: list[Added] = []
        deleted: list[Deleted] = []
        events: list[SymbolEvent] = []
        for change in commit.changes:
            sides = self._sides(change)
            if sides is None:
                continue
            old, new = sides
            events.extend(self._compare(commit.sha, change, old, new, added, deleted))
        done = {(e.path, e.symbol) for e in events}
        events.extend(resolve(commit.sha, added, deleted, done))
        self.stats["events"] += len(events)
        return events

    # -- one file change -------------------------------------------------------------------

    def _sides(self, change: FileChange) -> tuple[Outline | None, Outline | None] | None:
        """(old, new) outlines of a file change, or None when it is skipped or unchanged."""
        if change.old_blob is not None and change.old_blob == change.new_blob:
            return None  # a pure rename or mode change: nothing inside changed
        reason = self._path_reason(change.path)
        if reason is None and change.binary:
            reason = "binary"
        if reason is not None:
            self._skipped(reason)
            return None
        language = language_for_path(change.path)
        old_blob = None if change.status in ("A", "C") else change.old_blob
        ranges = [_rows(h) for h in change.hunks]
        new_first = change.new_blob in self._cache or old_blob not in self._cache
        first, second = (change.new_blob, old_blob) if new_first else (old_blob, change.new_blob)
        first_outline = self._outline(first, language, None, ranges, new_first)
        second_outline = self._outline(second, language, first_outline, ranges, not new_first)
        old, new = (second_outline, first_outline) if new_first else (first_outline,
                                                                     second_outline)
        if old_blob in self._cache and change.new_blob is not None and change.new_blob in self._cache:
            # walking newest first, the new blob has served both its changes (as the old side
            # of the newer one, and now): evict it first, keep blobs still awaiting their turn
            self._cache.move_to_end(change.new_blob, last=False)
        current = new if change.new_blob else old
        if isinstance(current, str):  # the file as it now is (or was, if deleted) is not source
            self._skipped(current)
            return None
        if isinstance(old, str):
            old = None  # the old side was not source (too large, binary): all of it is new
        if isinstance(new, str):
            new = None  # (unreachable: a new side that is not source returned above)
        if old is None and new is None:
            return None
        self.stats["files"] += 1
        return old, new

    def _compare(self, sha: str, change: FileChange, old: Outline | None, new: Outline | None,
                 added: list[Added], deleted: list[Deleted]) -> list[SymbolEvent]:
        old_touched, new_touched = _touched(change, old, new)
        old_keys = _keys(old) if old is not None else {}
        new_keys = _keys(new) if new is not None else {}
        old_path = change.old_path or change.path
        events: list[SymbolEvent] = []
        done_old: set[int] = set()
        if new is not None:  # (new_touched is empty without a new side, old_touched without an old)
            for j in sorted(new_touched):
                i = old_keys.get(_key_of(new, j))
                if i is None or old is None:  # (a key matched only when there is an old side)
                    added.append(Added(change.path, new, j))
                    continue
                done_old.add(i)
                kind = change_kind(old, i, new, j)
                if kind:
                    events.append(SymbolEvent(sha, change.path, new.definitions[j].symbol.name,
                                              kind))
        if old is not None:
            for i in sorted(old_touched - done_old):
                match = new_keys.get(_key_of(old, i))
                if match is None or new is None:
                    deleted.append(Deleted(change.path, old_path, old, i))
                    continue
                kind = change_kind(old, i, new, match)
                if kind:
                    events.append(SymbolEvent(sha, change.path, new.definitions[match].symbol.name,
                                              kind))
        return events

    # -- parsing and the cache ---------------------------------------------------------------

    def _outline(self, sha: str | None, language: str | None, other: Outline | str | None,
                 ranges: list[tuple[int, int, int, int]], is_new: bool) -> Outline | str | None:
        """The outline of blob ``sha`` (cached), or its skip reason, or None for no blob."""
        if not sha or not supported(language):
            return None
        cached = self._cache.get(sha)
        if cached is not None:
            self._cache.move_to_end(sha)
            self.stats["cache_hits"] += 1
            return cached
        data = self._read_blob(sha)
        if data is None:
            return None
        reason = content_skip_reason("", len(data), data)
        if reason is not None:
            self._remember(sha, reason, 0)
            return reason
        if isinstance(other, Outline) and other.tree is not None and ranges:
            # ``other`` is the new side when we parse the old one, and vice versa
            flipped = ranges if is_new else [(nr, nc, orow, oc) for orow, oc, nr, nc in ranges]
            outline = reparse_outline(other, data, flipped)
            self.stats["incremental"] += 1
        else:
            outline = parse_outline(data, language)
        self.stats["parsed"] += 1
        self._remember(sha, outline, len(data))
        return outline

    def _remember(self, sha: str, value: Outline | str, size: int) -> None:
        self._cache[sha] = value
        self._cached_bytes += size
        while self._cache and (len(self._cache) > self._cache_entries
                               or self._cached_bytes > self._cache_bytes):
            _, evicted = self._cache.popitem(last=False)
            if isinstance(evicted, Outline):
                self._cached_bytes -= len(evicted.source)

    def _path_reason(self, path: str) -> str | None:
        if path not in self._path_reasons:
            self._path_reasons[path] = path_skip_reason(path, self._attributes)
        return self._path_reasons[path]

    def _skipped(self, reason: str) -> None:
        counts = self.stats["files_skipped"]
        counts[reason] = counts.get(reason, 0) + 1


def _rows(hunk) -> tuple[int, int, int, int]:
    """(old first row, old count, new first row, new count), rows 0-based.

    With a count of 0 git names the line *before* the insertion/deletion point, so the
    region starts at that line number taken as a 0-based row.
    """
    old_row = hunk.old_start if hunk.old_count == 0 else hunk.old_start - 1
    new_row = hunk.new_start if hunk.new_count == 0 else hunk.new_start - 1
    return max(old_row, 0), hunk.old_count, max(new_row, 0), hunk.new_count


def _touched(change: FileChange, old: Outline | None,
             new: Outline | None) -> tuple[set[int], set[int]]:
    """Indices of the innermost definitions covering changed lines, on each side."""
    old_set: set[int] = set()
    new_set: set[int] = set()
    if not change.hunks or old is None or new is None:
        # added/deleted file, or no hunk data: every definition is in play
        if old is not None:
            old_set = set(range(len(old.definitions)))
        if new is not None:
            new_set = set(range(len(new.definitions)))
        return old_set, new_set
    old_owners, new_owners = old.line_owners(), new.line_owners()
    for h in change.hunks:
        if h.old_count:
            old_set.update(old_owners[h.old_start:h.old_start + h.old_count])
        if h.new_count:
            new_set.update(new_owners[h.new_start:h.new_start + h.new_count])
    old_set.discard(-1)
    new_set.discard(-1)
    return old_set, new_set


def _key_of(outline: Outline, index: int) -> tuple[str, int]:
    return outline.memo["keys"][1][index]


def _keys(outline: Outline) -> dict[tuple[str, int], int]:
    """(qualified name, occurrence) → index; overloads pair up in source order."""
    cached = outline.memo.get("keys")
    if cached is None:
        seen: dict[str, int] = {}
        by_key: dict[tuple[str, int], int] = {}
        key_list: list[tuple[str, int]] = []
        for index, d in enumerate(outline.definitions):
            name = d.symbol.name
            key = (name, seen.get(name, 0))
            seen[name] = key[1] + 1
            by_key[key] = index
            key_list.append(key)
        cached = outline.memo["keys"] = (by_key, key_list)
    return cached[0]
