"""A unified diff as text (``git diff`` or ``diff -u`` output) → FileChanges and head-side text.

No git here: the patch is parsed as given, and the head side of each file is rebuilt from the
working tree. A patch may describe work already in the working tree (its added lines are there)
or work not applied yet (its removed lines are there); ``head_text`` accepts both, and neither is
a guess: a file whose lines match neither side has no head text and is not reviewed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from whylens.errors import InvalidInputError
from whylens.models import FileChange, Hunk

MAX_PATCH_BYTES = 1_000_000  # a review of a bigger change: name its revisions instead
MAX_OFFSET = 300  # how far a hunk may have moved from where the patch says (like `git apply`)

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_GIT_HEADER = re.compile(r"^diff --git (\S+) (\S+)")


@dataclass(frozen=True)
class FilePatch:
    """One file of a patch: its change (hunks as the patch numbers them) and each hunk's body
    lines, prefix included (``" "`` context, ``"-"`` removed, ``"+"`` added)."""

    change: FileChange
    bodies: tuple[tuple[str, ...], ...] = ()

    def side(self, index: int, prefix: str) -> list[str]:
        """Hunk ``index``'s lines on one side: ``"-"`` (before) or ``"+"`` (after)."""
        return [line[1:] for line in self.bodies[index] if line[:1] in (" ", prefix)]


def _strip(path: str) -> str | None:
    path = path.split("\t", 1)[0].strip()
    if path == "/dev/null":
        return None
    if path.startswith('"') and path.endswith('"') and len(path) >= 2:
        path = path[1:-1]
    return path[2:] if path[:2] in ("a/", "b/") else path


class _Builder:
    def __init__(self) -> None:
        self.files: list[FilePatch] = []
        self._reset()

    def _reset(self) -> None:
        self.old: str | None = None
        self.new: str | None = None
        self.binary = False
        self.hunks: list[Hunk] = []
        self.bodies: list[list[str]] = []
        self.started = False
        self.git_header = False  # started by `diff --git` (its `---` line is not a new file)

    def finish(self) -> None:
        if self.started:
            path = self.new or self.old
            if path:
                status = "A" if self.old is None else "D" if self.new is None else \
                    "R" if self.old != self.new else "M"
                self.files.append(FilePatch(
                    FileChange(path=path, status=status,
                               old_path=self.old if self.old != path else None,
                               hunks=tuple(self.hunks), binary=self.binary),
                    tuple(tuple(b) for b in self.bodies)))
        self._reset()


def parse_patch(text: str) -> list[FilePatch]:
    """Every file a unified diff changes, in patch order. Raises on malformed hunks."""
    build = _Builder()
    left = [0, 0]  # lines the current hunk still owes: (before, after)
    for line in text.splitlines():
        if left[0] == left[1] > 0 and (line.startswith("diff --git ") or line.startswith("@@")):
            _pad(build, left)  # trailing blank context lines lost to whitespace trimming
        if left[0] > 0 or left[1] > 0:
            if line.startswith("\\"):  # "\ No newline at end of file"
                continue
            tag = line[:1] or " "  # some tools strip the space of an empty context line
            if tag not in (" ", "-", "+"):
                raise InvalidInputError(f"the patch ends a hunk early at {line[:60]!r}")
            build.bodies[-1].append(tag + line[1:])
            left[0] -= tag in (" ", "-")
            left[1] -= tag in (" ", "+")
        elif match := _GIT_HEADER.match(line):
            build.finish()
            build.started, build.git_header = True, True
            build.old, build.new = _strip(match.group(1)), _strip(match.group(2))
        elif line.startswith("--- ") and not (build.git_header and not build.hunks):
            build.finish()  # a plain `diff -u` file header
            build.started = True
            build.old = _strip(line[4:])
        elif line.startswith("--- "):
            build.old = _strip(line[4:])
        elif line.startswith("+++ ") and build.started:
            build.new = _strip(line[4:])
        elif line.startswith("new file mode"):
            build.old = None
        elif line.startswith("deleted file mode"):
            build.new = None
        elif line.startswith("rename from "):
            build.old = line[len("rename from "):].strip()
        elif line.startswith("rename to "):
            build.new = line[len("rename to "):].strip()
        elif line.startswith("Binary files ") or line.startswith("GIT binary patch"):
            build.binary = True
        elif line.startswith("@@"):
            match = _HUNK.match(line)
            if not match or not build.started:
                raise InvalidInputError(f"not a unified diff hunk header: {line[:60]!r}")
            a, b, c, d = match.groups()
            hunk = Hunk(int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d))
            build.hunks.append(hunk)
            build.bodies.append([])
            left = [hunk.old_count, hunk.new_count]
    if left[0] == left[1] > 0:
        _pad(build, left)
    if left[0] > 0 or left[1] > 0:
        raise InvalidInputError("the patch ends in the middle of a hunk (was it cut?)")
    build.finish()
    return build.files


def _pad(build: _Builder, left: list[int]) -> None:
    """Owed lines on both sides can only be context: blank lines a paste trimmed away. (The
    working tree must still hold them, or ``head_text`` finds no match: nothing is guessed.)"""
    build.bodies[-1].extend([" "] * left[0])
    left[0] = left[1] = 0


def _matches(lines: list[str], start: int, wanted: list[str]) -> bool:
    return start >= 0 and lines[start:start + len(wanted)] == wanted


def _find(lines: list[str], near: int, wanted: list[str], floor: int) -> int | None:
    """Index where ``wanted`` starts, nearest to ``near`` and not before ``floor``."""
    for delta in range(MAX_OFFSET + 1):
        for start in ((near,) if delta == 0 else (near - delta, near + delta)):
            if start >= floor and _matches(lines, start, wanted):
                return start
    return None


def _changed_runs(body: tuple[str, ...], old_at: int, new_at: int) -> list[Hunk]:
    """A hunk with context → its runs of changed lines as zero-context hunks (``git diff -U0``
    numbering: a side with no lines names the line before); ``old_at`` / ``new_at`` are the
    1-based numbers of the body's first line on each side."""
    runs: list[Hunk] = []
    old, new, i = old_at, new_at, 0
    while i < len(body):
        if body[i][:1] == " ":
            old, new, i = old + 1, new + 1, i + 1
            continue
        old_first, new_first, removed, added = old, new, 0, 0
        while i < len(body) and body[i][:1] != " ":
            if body[i][:1] == "-":
                removed, old = removed + 1, old + 1
            else:
                added, new = added + 1, new + 1
            i += 1
        runs.append(Hunk(old_first if removed else old_first - 1, removed,
                         new_first if added else new_first - 1, added))
    return runs


def base_text(patch: FilePatch, current: str | None) -> str | None:
    """The file's text before the patch, as ``head_text`` sees the working tree ``current``:
    when the added lines are there (applied already) the patch is taken back out; when the
    removed lines are (not applied yet) the working tree is the base. A deletion already made
    is its removed lines. None for an added file, or when neither side matches (never guessed)."""
    change = patch.change
    if change.binary or change.status == "A":
        return None
    if current is None:
        if change.status != "D":
            return None
        removed = [line for i in range(len(patch.bodies)) for line in patch.side(i, "-")]
        return "\n".join(removed) + ("\n" if removed else "")
    lines = [line.rstrip("\r") for line in current.split("\n")]
    firsts = [(h.old_start if h.old_count else h.old_start + 1,
               h.new_start if h.new_count else h.new_start + 1) for h in change.hunks]
    if not all(_matches(lines, new_at - 1, patch.side(i, "+")) for i, (_, new_at) in enumerate(firsts)):
        cursor = 0
        for i, (old_at, _) in enumerate(firsts):
            before = patch.side(i, "-")
            start = _find(lines, old_at - 1, before, cursor)
            if start is None:
                return None
            cursor = start + len(before)
        return current  # not applied yet
    out: list[str] = []
    cursor = 0
    for i, (_, new_at) in enumerate(firsts):
        out.extend(lines[cursor:new_at - 1])
        out.extend(patch.side(i, "-"))
        cursor = new_at - 1 + len(patch.side(i, "+"))
    out.extend(lines[cursor:])
    return "\n".join(out)


def head_text(patch: FilePatch, current: str | None) -> tuple[str | None, FileChange]:
    """The file's text after the patch, and its change as zero-context hunks on that text.

    ``current`` is the working-tree text (None when the file is absent). When the added lines
    are already there, the working tree is the head; when the removed lines are, the patch is
    applied to it. (None, change) when neither holds, or for deletions and binary files.
    """
    change = patch.change
    if change.status == "D" or change.binary:
        return None, change
    if change.status == "A" and current is None:
        added = [line for i in range(len(patch.bodies)) for line in patch.side(i, "+")]
        runs = [run for body in patch.bodies for run in _changed_runs(body, 1, 1)]
        return "\n".join(added) + ("\n" if added else ""), replace(change, hunks=tuple(runs))
    if current is None:
        return None, change
    lines = [line.rstrip("\r") for line in current.split("\n")]
    first = [(h.old_start if h.old_count else h.old_start + 1,
              h.new_start if h.new_count else h.new_start + 1) for h in change.hunks]
    if all(_matches(lines, new_at - 1, patch.side(i, "+")) for i, (_, new_at) in enumerate(first)):
        runs = [run for i, (old_at, new_at) in enumerate(first)
                for run in _changed_runs(patch.bodies[i], old_at, new_at)]
        return current, replace(change, hunks=tuple(runs))  # the working tree holds the change
    out: list[str] = []
    runs = []
    cursor = 0
    for i, (old_at, _) in enumerate(first):
        before = patch.side(i, "-")
        start = _find(lines, old_at - 1, before, cursor)
        if start is None:
            return None, change
        out.extend(lines[cursor:start])
        runs += _changed_runs(patch.bodies[i], start + 1, len(out) + 1)
        out.extend(patch.side(i, "+"))
        cursor = start + len(before)
    out.extend(lines[cursor:])
    return "\n".join(out), replace(change, hunks=tuple(runs))
