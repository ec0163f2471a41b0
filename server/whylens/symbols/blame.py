"""Blame for the lines of the indexed revision, worked out during the walk (newest first).

Every line of a source file at the indexed revision starts unclaimed. Each commit carries the
unclaimed lines of a file back through its hunks to the file's older version; an added line is
claimed by the commit unless its change was formatting-only (``formatting.formatting_only``
against the removed line it replaced, or the whole file when hunk boundaries cut a rewrap) or
the commit is in ``.git-blame-ignore-revs``: then the
line passes on to that removed line, as ``git blame -w --ignore-revs-file`` would, and an older
commit claims it. Claimed lines come out as ``BlameRun`` rows (consecutive lines of one commit).

Lines wait under (blob, path) of the version they are in. The walk prints no diff for merges:
``merge()`` hands the lines waiting in a merge's version of a file to its parents' versions
(``history.merges`` names them; ``diff_hunks`` of the blobs decides which lines each parent
has). Whatever no commit claimed by the end of the walk is ``leftover()`` (an incremental run
maps it onto the blame the index already holds).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from whylens.models import Commit, FileChange
from whylens.symbols.formatting import formatting_only, surely_differs
from whylens.symbols.hunks import DiffMemo, HunkText, diff_hunks, hunk_texts, matched_lines
from whylens.symbols.languages import language_for_path
from whylens.symbols.line_map import align

END = 1 << 40  # "to the end of the file" for the segment a file starts with
OPEN = END >> 1  # a segment ending beyond this runs to the end of the file
MAX_PENDING_FILES = 200_000


@dataclass(frozen=True, slots=True)
class BlameRun:
    """Lines ``start``..``end`` (1-based, inclusive) of ``path`` at the indexed revision were
    last substantively changed by ``commit``."""

    path: str
    start: int
    end: int
    commit: str


# A segment: lines start..end of a version hold the revision's lines head..head+(end-start).
Segment = tuple[int, int, int]


class LineBlame:
    """Claims the lines of ``head_blobs`` (path → blob at the indexed revision) commit by
    commit; feed it every commit of the walk, newest first, with ``commit()``."""

    def __init__(self, head_blobs: Mapping[str, str],
                 read_blob: Callable[[str], bytes | None], diffs: DiffMemo | None = None) -> None:
        self._head = head_blobs
        self._read_blob = read_blob
        self._diffs = diffs or DiffMemo()  # merges' diffs, shared with the anchorer
        self._started: set[str] = set()
        # (blob, path of that version) → (path at the revision, waiting segments)
        self._pending: dict[tuple[str, str], tuple[str, list[Segment]]] = {}
        self._line_counts: dict[str, int] = {}
        self.stats = {"claimed_lines": 0, "runs": 0}

    def checkpoint(self) -> dict:
        """The lines still waiting for their commit (picklable; see ``Anchorer.checkpoint``)."""
        return {"started": self._started, "pending": self._pending,
                "line_counts": self._line_counts, "stats": self.stats}

    def restore(self, state: dict) -> None:
        self._started, self._pending = state["started"], state["pending"]
        self._line_counts, self.stats = state["line_counts"], state["stats"]

    def commit(self, commit: Commit) -> list[BlameRun]:
        if len(commit.parents) > 1 or not self._pending and len(self._started) == len(
                self._head):
            return []
        runs: list[BlameRun] = []
        ignored = commit.skip_reason == "ignored"
        for change in commit.changes:
            runs.extend(self._change(commit.sha, change, ignored))
        self.stats["runs"] += len(runs)
        return runs

    def merge(self, commit: Commit, changed: Sequence[Mapping[str, tuple[str | None, str | None]]]
              ) -> list[BlameRun]:
        """Hand the lines waiting in a merge's version of each file to its parents' versions,
        as ``git blame`` does: a line goes to the first parent whose version has it unchanged;
        a line no parent has was written in the merge (which claims it). ``changed``: for each
        parent, path → (its blob, the merge's blob) of the files that differ."""
        if not changed:
            return []
        runs: list[BlameRun] = []
        paths = {path: merge_blob for diff in changed for path, (_, merge_blob) in diff.items()}
        for path, merge_blob in paths.items():
            if merge_blob is None:
                continue
            entry = self._pending.pop((merge_blob, path), None) or self._start(merge_blob, path)
            if entry is None:
                continue
            head_path, segments = entry
            merged = self._read_blob(merge_blob)
            for diff in changed:  # a file the merge took as is from a parent: all of it
                if not segments:
                    break
                parent_blob = diff[path][0] if path in diff else merge_blob
                if parent_blob == merge_blob:  # this parent has the file as merged: all of it
                    self._wait((merge_blob, path), head_path, segments)
                    segments = []
                    break
                theirs = self._read_blob(parent_blob) if parent_blob else None
                texts = self._diffs.diff(parent_blob, merge_blob, theirs, merged) \
                    if parent_blob and theirs is not None and merged else None
                if texts is None or parent_blob is None:
                    continue
                moved, stay = carry(segments, texts, lambda h: [None] * h.new_count)
                if moved:
                    self._wait((parent_blob, path), head_path, moved)
                segments = [(line, line, head) for head, line in stay]
            if segments:  # in no parent: the merge wrote these lines
                runs.extend(self._runs(commit.sha, head_path, [s[2] for s in segments]))
        return runs

    def leftover(self) -> Iterator[tuple[str, str, str, list[Segment]]]:
        """(path at the revision, path of the version, its blob, unclaimed segments)."""
        for (blob, path), (head_path, segments) in self._pending.items():
            yield head_path, path, blob, segments

    # -- one file change ---------------------------------------------------------------------

    def _change(self, sha: str, change: FileChange, ignored: bool) -> list[BlameRun]:
        new_blob, path = change.new_blob, change.path
        if new_blob is None:
            return []
        key = (new_blob, path)
        entry = self._pending.pop(key, None)
        if entry is None:
            entry = self._start(new_blob, path)
        if entry is None:
            return []
        head_path, segments = entry
        old_blob = None if change.status in ("A", "C") else change.old_blob
        texts = hunk_texts(change)
        if old_blob is None:  # the file starts here: every line still waiting is its own
            return self._runs(sha, head_path, self._every_line(segments, change, texts))
        if texts is None:
            old, new = self._read_blob(old_blob), self._read_blob(new_blob)
            texts = diff_hunks(old or b"", new or b"", change.hunks) if old and new else None
        if texts is None:
            return []  # unreadable: these lines stay unknown
        language = language_for_path(path) or ""
        if not ignored and language and self._rewrap(language, texts, old_blob, new_blob):
            ignored = True  # a reformat its hunks cut: every line passes on
        same_text = _SameText(texts)
        kept, claimed = carry(segments, texts,
                              lambda h: _origins(language, h, ignored, same_text))
        if kept:
            self._wait((old_blob, change.old_path or path), head_path, kept)
        return self._runs(sha, head_path, [head for head, _ in claimed])

    def _rewrap(self, language: str, texts: list[HunkText], old_blob: str, new_blob: str
                ) -> bool:
        """A reformat whose hunks, alone, do not show it: a re-wrapped argument list whose hunk
        ends before its bracket (the trailing comma reads as a new tuple), or a call whose lines
        the diff split over two hunks (black's "Reformat with black" on flask). When the
        changed lines, all hunks together, change no token for sure, the whole file decides,
        as a whole definition does for symbol history (``change_kind``): Python by AST."""
        removed = b"".join(hunk.removed_text for hunk in texts)
        added = b"".join(hunk.added_text for hunk in texts)
        if not removed or not added or surely_differs(language, removed, added):
            return False
        old, new = self._read_blob(old_blob), self._read_blob(new_blob)
        return old is not None and new is not None and formatting_only(language, old, new)

    def _lines_of(self, head_path: str) -> int:
        """How many lines the revision's file has (read once; a file whose last lines a later
        commit deleted leaves its open end pointing past them: 3% of flask's claims)."""
        count = self._line_counts.get(head_path)
        if count is None:
            blob = self._head.get(head_path)
            data = self._read_blob(blob) if blob else None
            count = self._line_counts[head_path] = line_count(data or b"")
        return count

    def _start(self, blob: str, path: str) -> tuple[str, list[Segment]] | None:
        """The lines of a revision file met for the first time."""
        if self._head.get(path) == blob and path not in self._started:
            self._started.add(path)
            return path, [(1, END, 1)]
        return None

    def _wait(self, key: tuple[str, str], head_path: str, segments: list[Segment]) -> None:
        existing = self._pending.get(key)
        if existing is not None and existing[0] == head_path:
            segments = segments + existing[1]
        if len(self._pending) < MAX_PENDING_FILES or key in self._pending:
            self._pending[key] = (head_path, _tidy(segments))

    def _every_line(self, segments: list[Segment], change: FileChange,
                    texts: list[HunkText] | None) -> list[int]:
        """The revision lines of every waiting segment of a file that starts here."""
        total = None
        if texts is not None and len(texts) == 1 and not texts[0].old_count:
            total = texts[0].new_count
        lines: list[int] = []
        for start, end, head in segments:
            if end >= OPEN:  # the open end: as many lines as the file has
                if total is None:
                    total = line_count(self._read_blob(change.new_blob or "") or b"")
                end = total
            lines.extend(range(head, head + end - start + 1))
        return lines

    def _runs(self, sha: str, head_path: str, claimed: list[int]) -> list[BlameRun]:
        if not claimed:
            return []
        claimed.sort()
        last = self._lines_of(head_path)
        if claimed[-1] > last:  # an open end carried past the file's end
            claimed = [line for line in claimed if line <= last]
            if not claimed:
                return []
        self.stats["claimed_lines"] += len(claimed)
        runs = []
        first = last = claimed[0]
        for line in claimed[1:]:
            if line == last + 1:
                last = line
                continue
            runs.append(BlameRun(head_path, first, last, sha))
            first = last = line
        runs.append(BlameRun(head_path, first, last, sha))
        return runs


def line_count(data: bytes) -> int:
    """Lines of a file's text (a last line without a newline counts)."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


class _SameText:
    """Added lines of a file change whose text, blanks aside, a removed line of the same change
    had (matched in order over all its hunks: re-indenting a block moves lines across hunk
    boundaries); computed on first use."""

    def __init__(self, texts: list[HunkText]) -> None:
        self._texts = texts
        self._found: dict[tuple[int, int], int] | None = None

    def old_line(self, hunk: HunkText, j: int) -> int | None:
        if self._found is None:
            removed = [(h.old_start + i, b" ".join(line.split()))
                       for h in self._texts for i, line in enumerate(h.removed)]
            added = [((h.new_start, j), b" ".join(line.split()))
                     for h in self._texts for j, line in enumerate(h.added)]
            self._found = {added[b][0]: removed[a][0] for a, b in matched_lines(
                [text for _, text in removed], [text for _, text in added]) if added[b][1]}
        return self._found.get((hunk.new_start, j))


def _origins(language: str, hunk: HunkText, ignored: bool,
             same_text: _SameText) -> list[int | None]:
    """For each added line of ``hunk``: the old line it passes to, or None (claimed here)."""
    towards = align(hunk.added, hunk.removed)  # added line → removed line of this hunk
    layout = ignored or not surely_differs(language, hunk.removed_text, hunk.added_text) and \
        formatting_only(language, hunk.removed_text, hunk.added_text)
    out: list[int | None] = []
    for j, target in enumerate(towards):
        moved = same_text.old_line(hunk, j)  # the same text (re-indented, perhaps) elsewhere
        if moved is not None:
            out.append(moved)
        elif layout and hunk.removed:  # every line of a reformat passes on
            if target is None:
                target = min(j * len(hunk.removed) // max(len(hunk.added), 1),
                             len(hunk.removed) - 1)
            out.append(hunk.old_start + target)
        elif target is not None and not surely_differs(
                language, hunk.removed[target], hunk.added[j]) and formatting_only(
                language, hunk.removed[target], hunk.added[j]):
            out.append(hunk.old_start + target)  # this line only reformatted
        else:
            out.append(None)
    return out


def carry(segments: list[Segment], hunks: list[HunkText],
          origins: Callable[[HunkText], list[int | None]]
          ) -> tuple[list[Segment], list[tuple[int, int]]]:
    """Segments of the new version carried to the old one through ``hunks``, and the (revision
    line, new line) of each added line whose ``origins`` entry (the old line it came from) is
    None (claimed here)."""
    new_starts = [h.new_start for h in hunks if h.new_count]
    added = [h for h in hunks if h.new_count]
    afters = []
    for h in hunks:
        new_after = h.new_start + h.new_count if h.new_count else h.new_start + 1
        old_after = h.old_start + h.old_count if h.old_count else h.old_start + 1
        afters.append((new_after, old_after))
    new_afters = [a[0] for a in afters]
    cache: dict[int, list[int | None]] = {}
    kept: list[Segment] = []
    claimed: list[tuple[int, int]] = []
    for start, end, head in segments:
        pos = start
        while pos <= end:
            k = bisect_right(new_afters, pos) - 1
            a = bisect_right(new_starts, pos) - 1
            if a >= 0 and pos < added[a].new_start + added[a].new_count:
                hunk = added[a]
                table = cache.get(a)
                if table is None:
                    table = cache[a] = origins(hunk)
                stop = min(end, hunk.new_start + hunk.new_count - 1)
                for line in range(pos, stop + 1):
                    origin = table[line - hunk.new_start]
                    if origin is None:
                        claimed.append((head + line - start, line))
                    else:
                        kept.append((origin, origin, head + line - start))
                pos = stop + 1
                continue
            following = new_starts[a + 1] if a + 1 < len(new_starts) else END + 1
            stop = min(end, following - 1)
            shift = 0 if k < 0 else afters[k][1] - afters[k][0]
            kept.append((pos + shift, stop + shift if stop < OPEN else END, head + pos - start))
            pos = stop + 1
    return kept, claimed


def _tidy(segments: list[Segment]) -> list[Segment]:
    """Sorted, with touching segments of consecutive revision lines joined."""
    segments.sort()
    out: list[Segment] = []
    for seg in segments:
        if out:
            s, e, h = out[-1]
            if seg[0] == e + 1 and seg[2] == h + (e - s) + 1 and e < OPEN:
                out[-1] = (s, seg[1], h)
                continue
        out.append(seg)
    return out
