"""The replay's blame check (review12): which commit last touched a change's lines, by the
index's line blame (``IndexReader.line_blame``, the blame ``fragile`` reads) and by ``git blame``
at the change's base, plain and ``-w``. Read by ``bench/replay_review.py --blame``; summed by
``bench/score_blame.py``."""

from __future__ import annotations

import re
import subprocess

from whylens.retrieval.review_hunks import safe_read
from whylens.retrieval.review_lines import line_map, same

MAX_LINES = 400  # changed base lines looked at per change
_HEADER = re.compile(r"^([0-9a-f]{40}) \d+ (\d+)")


def git_blame(git_dir: str, rev: str, path: str, start: int | None, end: int | None,
              *flags: str, ranges: list[tuple[int, int]] | None = None) -> dict[int, str]:
    """line → commit for ``start..end`` of ``path`` at ``rev`` (``git blame --porcelain``; the
    whole file when ``start`` is None), or for every ``(first, last)`` of ``ranges`` in one run."""
    spans = ranges if ranges is not None else [(start, end)] if start is not None else []
    lines = [arg for first, last in spans for arg in ("-L", f"{first},{last}")]
    out = subprocess.run(["git", "--git-dir", git_dir, "blame", "--porcelain", *flags,
                          *lines, rev, "--", path],
                         capture_output=True, text=True, errors="replace").stdout
    found: dict[int, str] = {}
    for line in out.splitlines():
        match = _HEADER.match(line)
        if match:
            found[int(match.group(2))] = match.group(1)
    return found


def changed_base_lines(view) -> list[tuple[int, int]]:
    """The base-side line ranges the change's code hunks modify (insertions have none)."""
    return [(h.old_start, h.old_start + h.old_count - 1) for h in view.hunks if h.old_count]


def blame_rows(git_dir: str, reader, views, base: str, read_indexed=None) -> list[list]:
    """``[path, line, index sha or None, git sha, git -w sha, unmapped index sha]`` for the
    changed base lines: the index's blame of the line where it sits at the index's revision
    (``review_lines``; none when that revision changed it; ``read_indexed`` reads files there,
    None when that is the base), then of the same line number (before review13)."""
    rows: list[list] = []
    for view in views:
        if view.base_text is None or not view.hunks:
            continue
        path = view.change.old_path or view.path
        at = line_map(view.base_text, safe_read(read_indexed, path), replaced=False) \
            if read_indexed else same
        for start, end in changed_base_lines(view):
            if len(rows) >= MAX_LINES:
                return rows
            end = min(end, start + MAX_LINES - len(rows) - 1)
            plain = git_blame(git_dir, base, path, start, end)
            ignoring = git_blame(git_dir, base, path, start, end, "-w")
            for n in range(start, end + 1):
                mapped = at(n)  # the same line there, or none when changed since the base
                entry = reader.line_blame(path, mapped[0]) if mapped else None
                unmapped = reader.line_blame(path, n)
                rows.append([path, n, entry.commit if entry else None, plain.get(n), ignoring.get(n),
                             unmapped.commit if unmapped else None])
    return rows
