"""The line blame of a run: which files it covers, and how an incremental run keeps it right.

A full run (or the resumption of a first run) writes each ``BlameRun`` as the walk produces it.
An incremental run walks only the new commits: it collects their runs, then maps the lines no
new commit claimed (``LineBlame.leftover``: lines of the previous indexed revision's version of
a file) onto the blame the index holds for that version, and replaces the blame of every file
the new commits touched with the result. Files the new commits did not touch keep theirs.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

from whylens.models import Commit
from whylens.symbols.blame import BlameRun, Segment
from whylens.symbols.languages import language_for_path
from whylens.symbols.skip import path_skip_reason


def tree_blobs(repo, rev: str) -> dict[str, str]:
    """path → blob of every file at ``rev`` (``git ls-tree -r -z``), as the walk names paths."""
    _, out, _ = repo.run("ls-tree", "-r", "-z", "--full-tree", rev)
    found: dict[str, str] = {}
    for entry in out.split(b"\0"):
        meta, _, raw_path = entry.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == b"blob":
            found[raw_path.decode("utf-8", "replace")] = parts[2].decode()
    return found


def blamed_files(repo, rev: str, attributes) -> dict[str, str]:
    """The source files at ``rev`` worth blaming (those the anchorer would anchor)."""
    return {path: blob for path, blob in tree_blobs(repo, rev).items()
            if language_for_path(path) and path_skip_reason(path, attributes) is None}


class IncrementalBlame:
    """Collects an incremental run's blame; ``finish`` replaces it in the index."""

    def __init__(self, repo, previous_rev: str | None) -> None:
        self._repo = repo
        self._previous_rev = previous_rev
        self._runs: list[BlameRun] = []
        self._touched: set[str] = set()

    def add(self, commit: Commit, runs: list[BlameRun]) -> None:
        self._runs.extend(runs)
        for change in commit.changes:
            self._touched.add(change.path)
            if change.old_path:
                self._touched.add(change.old_path)

    def finish(self, writer, leftover: Iterable[tuple[str, str, str, list[Segment]]]) -> int:
        """Write the new blame of the touched files; returns the number of runs written."""
        previous = tree_blobs(self._repo, self._previous_rev) if self._previous_rev else {}
        runs = list(self._runs)
        for head_path, path, blob, segments in leftover:
            if previous.get(path) != blob:
                continue  # not the previous revision's version: those lines stay unknown
            runs.extend(carried_over(head_path, segments, writer.blame_of(path)))
        writer.replace_blame(sorted(self._touched | {r.path for r in runs}), runs)
        return len(runs)


def carried_over(head_path: str, segments: list[Segment],
                 stored: list[tuple[int, int, str]]) -> list[BlameRun]:
    """The stored runs of a file's previous version, moved to the lines they now have."""
    out: list[BlameRun] = []
    starts = [run[0] for run in stored]
    for start, end, head in segments:
        k = max(bisect_right(starts, start) - 1, 0)
        while k < len(stored) and stored[k][0] <= end:
            run_start, run_end, sha = stored[k]
            low, high = max(start, run_start), min(end, run_end)
            if low <= high:
                out.append(BlameRun(head_path, head + low - start, head + high - start, sha))
            k += 1
    return out
