"""Commit → the symbols it substantively changed (``SymbolEvent``), parsing as little as it can.

Walking newest first, the anchorer keeps a ``tracking.FileState`` (each definition's name and
lines) per blob. A file change starts from the state of its new blob (parsed the first time the
walk meets the file, then carried along) and turns it into the state of its old blob:

- **carried** (no parsing, the way ``git log -L`` follows a range) when the hunks cannot have
  removed or renamed a definition: no definition header in the removed lines names something
  the added lines do not define again, and no definition born here has a name that was removed
  (``hunks.defined_names``; about 95% of the changes of psf/requests and redis/redis);
- **parsed** otherwise: the old blob is parsed (incrementally from the new one when its parse is
  still cached) and the two versions pair up by name; a file with no patch text (the walk kept
  none, or it was over ``walk.MAX_PATCH_BYTES``) is always parsed on both sides.

Either way the removed and added lines of each definition decide what happened
(``change_kind.classify``): layout, comments, quotes, wrapping and annotation-only changes are not
substantive. Added and deleted definitions go to ``matching.resolve`` (moves and renames across
the commit's files). A commit in ``.git-blame-ignore-revs`` (``skip_reason == "ignored"``) makes
``formatting`` events instead of ``body``/``signature``. A commit touching more than
``max_files`` source files is anchored at file level only (``stats["commits_file_level"]``): its
blobs are parsed afresh when the walk needs them again.

Decisions (tested in tests/unit/symbols/test_anchor.py): innermost only — a change inside
``Session.send`` is an event of ``Session.send`` alone, adding or deleting a method is an event of
that method, not of its class; an unchanged renamed file gives no events; a renamed file's
events carry the new path.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence

from whylens.models import FORMATTING_KIND, Commit, FileChange, SymbolEvent
from whylens.symbols.bodies import body_of, born_body, old_body
from whylens.symbols.hunks import (
    DiffMemo, HunkText, bare_name, defined_names, diff_hunks, hunk_texts,
)
from whylens.symbols.languages import language_for_path
from whylens.symbols.matching import Added, Deleted, resolve
from whylens.symbols.outline_cache import (
    DEFAULT_CACHE_BYTES, DEFAULT_CACHE_ENTRIES, ChangedLines, OutlineCache,
)
from whylens.symbols.parse import Outline, supported
from whylens.symbols.skip import content_skip_reason, path_skip_reason
from whylens.symbols.change_kind import Definitions, classify
from whylens.symbols.tracking import FileState, born_spans, compare_parsed, track_back

DEFAULT_STATE_SPANS = 150_000  # definitions kept in file states (about 200 bytes each)
MAX_FILES_PER_COMMIT = 2_000  # source files a commit may touch and still be anchored by symbol
MAX_MERGE_NOTES = 500_000
_UNCHANGED_KINDS = ("added", "deleted", "renamed", "moved")  # what an ignored commit keeps
# what ``checkpoint`` leaves out: the blob reader and the caches (a re-parse gives the same tree)
_TRANSIENT = frozenset({"_reader", "_diffs", "_outlines", "_missing"})


class Anchorer:
    """Turns commits (newest first) into symbol events; see the module docstring."""

    def __init__(
        self,
        read_blob: Callable[[str], bytes | None],
        attributes: Iterable[tuple[str, dict]] = (),
        cache_entries: int = DEFAULT_CACHE_ENTRIES,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        state_spans: int = DEFAULT_STATE_SPANS,
        max_files: int = MAX_FILES_PER_COMMIT,
        diffs: DiffMemo | None = None,
    ) -> None:
        self._reader = read_blob
        self._diffs = diffs or DiffMemo()  # whole-version diffs (shared with the line blame)
        self._missing = False  # the commit being anchored lacks an object (see ``events``)
        self._attributes = tuple(attributes)
        self._states: OrderedDict[str, FileState | str] = OrderedDict()  # sha → state or skip
        self._state_spans = state_spans
        self._held_spans = 0
        self._max_files = max_files
        self._path_reasons: dict[str, str | None] = {}
        self._path_states: dict[str, str] = {}  # path → the blob of it whose state came last
        self._merge_parents: dict[str, str] = {}  # a merge parent's blob → the merge's blob
        self.stats: dict = {
            "parsed": 0,  # blobs parsed (full or incremental)
            "incremental": 0,  # of which re-parsed from the other side's edited tree
            "cache_hits": 0,
            "files": 0,  # file changes anchored
            "carried": 0,  # of which without parsing the old version
            "adopted": 0,  # states carried from another version of the file (merged branches)
            "merged": 0,  # states carried through a merge to a parent's version
            "files_skipped": {},  # reason → file changes skipped
            "commits_file_level": 0,  # commits over max_files: file history only
            "files_file_level": 0,
            "events": 0,
            "commits_missing_objects": 0,  # commits git or the blob reader lacked objects of
        }
        self._outlines = OutlineCache(self.stats, cache_entries, cache_bytes)

    def checkpoint(self) -> dict:
        """What this anchorer carries from commit to commit (file states, notes, statistics),
        picklable: a segmented backfill's next process ``restore``s it and goes on as this one
        would. Left out are the caches (parsed trees, blobs, diffs), which a fresh one refills."""
        return {k: v for k, v in vars(self).items() if k not in _TRANSIENT}

    def restore(self, state: dict) -> None:
        """Go on from a ``checkpoint()`` (of an anchorer built with the same settings)."""
        vars(self).update(state)
        self._outlines.stats = self.stats  # the restored statistics count this one's parses

    def events(self, commit: Commit) -> list[SymbolEvent]:
        """The substantive symbol changes of ``commit`` (none for merges or skipped files).

        A commit the walk could not diff (``missing_objects``) has no hunks: its files are
        compared from their blobs. A file whose blob is missing (a partial clone) gives no events
        (``files_skipped["missing"]``); such commits are counted in
        ``stats["commits_missing_objects"]``: their files are in file history only."""
        self._missing = commit.missing_objects
        try:
            return self._commit_events(commit)
        finally:
            self.stats["commits_missing_objects"] += self._missing

    def _commit_events(self, commit: Commit) -> list[SymbolEvent]:
        if len(commit.parents) > 1:
            return []
        sources = [c for c in commit.changes if self._path_reason(c.path) is None]
        if len(sources) > self._max_files:
            self.stats["commits_file_level"] += 1
            self.stats["files_file_level"] += len(sources)
            for change in sources:  # their states would describe blobs nobody derived
                self._forget(change.new_blob)
            return []
        added: list[Added] = []
        deleted: list[Deleted] = []
        events: list[SymbolEvent] = []
        for change in commit.changes:
            events.extend(self._change(commit.sha, change, added, deleted))
        done = {(e.path, e.symbol) for e in events}
        events.extend(resolve(commit.sha, added, deleted, done))
        if commit.skip_reason == "ignored":  # .git-blame-ignore-revs: housekeeping by decree
            events = [e if e.kind in _UNCHANGED_KINDS else
                      SymbolEvent(e.commit, e.path, e.symbol, FORMATTING_KIND, e.previous)
                      for e in events]
        self.stats["events"] += len(events)
        return events

    def merge(self, changed: Sequence[Mapping[str, tuple[str | None, str | None]]]) -> None:
        """Note where a merge's versions came from (no events: a merge changes nothing itself):
        when a commit of a parent's side needs the state of its version, it is carried from
        the merge's version then. ``changed``: for each parent, path → (its blob, the merge's
        blob) of the files that differ."""
        if len(self._merge_parents) > MAX_MERGE_NOTES:
            self._merge_parents.clear()
        for diff in changed:
            for parent_blob, merge_blob in diff.values():
                if parent_blob and merge_blob and merge_blob in self._states:
                    self._merge_parents[parent_blob] = merge_blob

    # -- one file change -------------------------------------------------------------------

    def _change(self, sha: str, change: FileChange, added: list[Added],
                deleted: list[Deleted]) -> list[SymbolEvent]:
        if change.old_blob is not None and change.old_blob == change.new_blob:
            return []  # a pure rename or mode change: nothing inside changed
        reason = self._path_reason(change.path) or ("binary" if change.binary else None)
        if reason is not None:
            self._skipped(reason)
            return []
        language = language_for_path(change.path)
        if not supported(language):
            return []
        old_blob = None if change.status in ("A", "C") else change.old_blob
        texts = hunk_texts(change)
        if change.new_blob is None:
            return self._deleted_file(change, old_blob, language, deleted)
        new = self._state(change.new_blob, language, change.path)
        if isinstance(new, str):
            self._skipped(new)
            return []
        if new is None:
            self._skipped("missing")
            return []
        self.stats["files"] += 1
        whole = list(texts[0].added) if old_blob is None and texts and len(texts) == 1 else None
        lines = ChangedLines(self._outlines, self._read_blob, change.new_blob, whole)
        if old_blob is None:
            added.extend(Added(change.path, new, k, body_of(lines.lines, new, k))
                         for k in range(len(new.spans)))
            return []
        born, named = born_spans(new, texts) if texts is not None else (set(), set())
        if texts is not None and self._certain(language, new, texts, born, named):
            old, touches = track_back(language, new, texts, born)
            self.stats["carried"] += 1
            self._store(old_blob, old, change.old_path or change.path)
            added.extend(Added(change.path, new, k, born_body(texts, new, k))
                         for k in sorted(born))
            old_lines = ChangedLines(self._outlines, self._read_blob, old_blob, None)
            defs = Definitions(old_lines.source, old, lines.lines, new)
            return _events(sha, change.path, language, new, touches, defs)
        return self._parsed(sha, change, old_blob, language, new, texts, lines, added, deleted)

    def _parsed(self, sha: str, change: FileChange, old_blob: str, language: str,
                new: FileState, texts: list[HunkText] | None, lines: ChangedLines,
                added: list[Added], deleted: list[Deleted]) -> list[SymbolEvent]:
        """Compare with the parsed old version (see the module docstring)."""
        outline = self._outline(old_blob, language, change.path, change)
        if outline is None:  # the old version is missing: what changed is unknown, not "all"
            self._skipped("missing")
            return []
        if not isinstance(outline, Outline):  # the old side is not source: all of it is new
            added.extend(Added(change.path, new, k, body_of(lines.lines, new, k))
                         for k in range(len(new.spans)))
            return []
        old = FileState.from_outline(outline)
        self._store(old_blob, old, change.old_path or change.path)
        if texts is None:
            texts = diff_hunks(outline.source, lines.source(), change.hunks) or []
        pairs, touches = compare_parsed(language, old, new, texts)
        old_lines = outline.source.splitlines(keepends=True)
        old_path = change.old_path or change.path
        for i in range(len(old.spans)):
            if i not in pairs:
                deleted.append(Deleted(change.path, old_path, old, i,
                                       old_body(language, old_lines, old, i)))
        paired = set(pairs.values())
        added.extend(Added(change.path, new, k, body_of(lines.lines, new, k))
                     for k in range(len(new.spans)) if k not in paired)
        defs = Definitions(lambda: outline.source, old, lines.lines, new,
                           {n: o for o, n in pairs.items()})
        return _events(sha, change.path, language, new, touches, defs)

    def _deleted_file(self, change: FileChange, old_blob: str | None, language: str,
                      deleted: list[Deleted]) -> list[SymbolEvent]:
        outline = self._outline(old_blob, language, change.path)
        if isinstance(outline, str):
            self._skipped(outline)
            return []
        if outline is None:
            if old_blob is not None:
                self._skipped("missing")
            return []
        self.stats["files"] += 1
        old = FileState.from_outline(outline)
        if old_blob is not None:
            self._store(old_blob, old, change.path)
        old_lines = outline.source.splitlines(keepends=True)
        for i in range(len(old.spans)):
            deleted.append(Deleted(change.path, change.old_path or change.path, old, i,
                                   old_body(language, old_lines, old, i)))
        return []

    def _certain(self, language: str, new: FileState, texts: list[HunkText],
                 born: set[int], named: set[int]) -> bool:
        """Whether carrying the state cannot miss a removed or renamed definition: no name a
        removed definition header spells is missing from the added lines, no definition born
        here has a removed name, and every other definition whose name line was added had
        that name before."""
        removed = defined_names(language, [line for h in texts for line in h.removed])
        if removed is None:
            return False
        if removed:
            defined = defined_names(language, [line for h in texts for line in h.added])
            if removed - (defined or Counter()):  # a header removed more often than added
                return False
            if any(bare_name(new.spans[k].short) in removed for k in born):
                return False
        return all(bare_name(new.spans[k].short) in removed for k in named)

    # -- states and parses ------------------------------------------------------------------

    def _state(self, sha: str, language: str, path: str) -> FileState | str | None:
        """The state of blob ``sha``: carried here earlier, else parsed now."""
        state = self._states.get(sha)
        if isinstance(state, FileState) and state.language == language:
            self._states.move_to_end(sha, last=False)  # served its change: evict it first
            return state
        if isinstance(state, str):
            return state
        data = self._read_blob(sha)
        merged = self._merge_parents.pop(sha, None)
        child = self._states.get(merged) if merged else None
        derived = None
        if merged is not None and isinstance(child, FileState) and child.language == language:
            derived = self._derive(child, merged, sha, data)
            self.stats["merged"] += derived is not None
        adopted = derived or self._adopt(sha, data, language, path)
        if adopted is not None:
            self._store(sha, adopted, path, first=True)
            return adopted
        outline = self._outline(sha, language, path, data=data)
        if not isinstance(outline, Outline):
            if isinstance(outline, str):
                self._store(sha, outline)
            return outline
        state = FileState.from_outline(outline)
        self._store(sha, state, path, first=True)
        return state

    def _adopt(self, own_sha: str, data: bytes | None, language: str, path: str
               ) -> FileState | None:
        """The state of another version of ``path`` carried to this one (``data``) through a
        line diff of the two, when that cannot miss a definition: how the versions on a merged
        branch get theirs without a parse (the walk shows no diff for a merge)."""
        sibling_sha = self._path_states.get(path)
        sibling = self._states.get(sibling_sha) if sibling_sha else None
        if sibling_sha is None or not isinstance(sibling, FileState) or \
                sibling.language != language:
            return None
        derived = self._derive(sibling, sibling_sha, own_sha, data)
        if derived is not None:
            self.stats["adopted"] += 1
        return derived

    def _derive(self, state: FileState, sha: str, own_sha: str, data: bytes | None
                ) -> FileState | None:
        """The state of another version (blob ``own_sha``, ``data``) of the file whose blob
        ``sha`` has ``state``, through a line diff of the two, when that cannot miss a
        definition."""
        if data is None or content_skip_reason("", len(data), data) is not None:
            return None
        source = self._outlines.source(sha)
        if source is None:
            source = self._read_blob(sha)
        texts = self._diffs.diff(own_sha, sha, data, source) if source is not None else None
        if texts is None:
            return None
        born, named = born_spans(state, texts)
        if not self._certain(state.language, state, texts, born, named):
            return None
        return track_back(state.language, state, texts, born)[0]

    def _store(self, sha: str, state: FileState | str, path: str | None = None,
               first: bool = False) -> None:
        self._forget(sha)
        self._states[sha] = state
        if path is not None and isinstance(state, FileState):
            self._path_states[path] = sha
        if first:
            self._states.move_to_end(sha, last=False)
        if isinstance(state, FileState):
            self._held_spans += len(state.spans)
        while self._held_spans > self._state_spans and len(self._states) > 1:
            _, evicted = self._states.popitem(last=False)
            if isinstance(evicted, FileState):
                self._held_spans -= len(evicted.spans)

    def _forget(self, sha: str | None) -> None:
        state = self._states.pop(sha, None) if sha else None
        if isinstance(state, FileState):
            self._held_spans -= len(state.spans)

    def _outline(self, sha: str | None, language: str, path: str,
                 change: FileChange | None = None, data: bytes | None = None
                 ) -> Outline | str | None:
        """Blob ``sha`` of ``path`` parsed (``OutlineCache.outline``), or its skip reason, or
        None for no blob."""
        if not sha:
            return None
        cached = self._outlines.get(sha)
        if cached is not None:
            return cached
        data = self._read_blob(sha) if data is None else data
        if data is None:
            return None
        return self._outlines.outline(sha, data, language, path, change)

    def _read_blob(self, sha: str) -> bytes | None:
        data = self._reader(sha)
        if data is None:
            self._missing = True
        return data

    def _path_reason(self, path: str) -> str | None:
        if path not in self._path_reasons:
            self._path_reasons[path] = path_skip_reason(path, self._attributes)
        return self._path_reasons[path]

    def _skipped(self, reason: str) -> None:
        counts = self.stats["files_skipped"]
        counts[reason] = counts.get(reason, 0) + 1


def _events(sha: str, path: str, language: str, state: FileState, touches: dict,
            defs: Definitions) -> list[SymbolEvent]:
    kinds = ((index, classify(language, touches[index], defs.of(index))) for index in sorted(touches))
    return [SymbolEvent(sha, path, state.spans[i].name, kind) for i, kind in kinds if kind]
