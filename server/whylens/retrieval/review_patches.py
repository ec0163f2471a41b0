"""The lines past commits removed and added, read at review time (the index keeps no diffs).

The review runs in a child process that may run git (``whylens pr-comments``). Its caller passes
a ``PatchReader``: ``(shas, paths) -> {sha: CommitPatch}``, built on one ``git log --no-walk -p
-U{CONTEXT}`` over a handful of commits (the reverts and fixes of the changed files, capped). The
context lines let a one-token revert (``raise e`` → ``raise``) be recognised by its neighbours.
This module
is the pure part: the format that command is asked for (``LOG_FORMAT``), its parser, and the reason
a revert or a fix gives for itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

RECORD_START = "\x1e"  # before each commit: <RS>sha\nmessage<US>\n then its patch
MESSAGE_END = "\x1f"
LOG_FORMAT = "format:%x1e%H%n%B%x1f"
MAX_LINES_PER_FILE = 4000  # a revert of a vendored library is not read line by line
CONTEXT = 5  # unchanged lines around each hunk (git -U): room for two that carry tokens

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class FilePatch:
    """One file of one commit: the lines it removed (old numbers) and added (new numbers), and
    the unchanged lines around them on each side."""

    path: str
    removed: tuple[tuple[int, str], ...] = ()
    added: tuple[tuple[int, str], ...] = ()
    old_context: tuple[tuple[int, str], ...] = ()
    new_context: tuple[tuple[int, str], ...] = ()



@dataclass(frozen=True)
class CommitPatch:
    sha: str
    message: str
    files: dict[str, FilePatch] = field(default_factory=dict)


PatchReader = Callable[[list[str], list[str]], dict[str, CommitPatch]]


def parse_log(text: str) -> dict[str, CommitPatch]:
    """Parse ``git log --no-walk --format=LOG_FORMAT -p -U0`` output."""
    out: dict[str, CommitPatch] = {}
    for chunk in text.split(RECORD_START)[1:]:
        head, _, rest = chunk.partition(MESSAGE_END)
        sha, _, message = head.partition("\n")
        sha = sha.strip()
        if len(sha) != 40 or sha in out:
            continue  # a merge's patch against a later parent (git -m): the first one stands
        out[sha] = CommitPatch(sha, message.strip(), _parse_files(rest))
    return out


def _parse_files(text: str) -> dict[str, FilePatch]:
    files: dict[str, FilePatch] = {}
    old_path = new_path = None
    removed: list[tuple[int, str]] = []
    added: list[tuple[int, str]] = []
    old_context: list[tuple[int, str]] = []
    new_context: list[tuple[int, str]] = []
    old_no = new_no = 0
    in_hunk = False

    def flush() -> None:
        path = new_path or old_path
        if path and (removed or added):
            files[path] = FilePatch(path, tuple(removed[:MAX_LINES_PER_FILE]),
                                    tuple(added[:MAX_LINES_PER_FILE]),
                                    tuple(old_context[:MAX_LINES_PER_FILE]),
                                    tuple(new_context[:MAX_LINES_PER_FILE]))

    for line in text.split("\n"):
        if line.startswith("diff --git "):
            flush()
            old_path = new_path = None
            removed, added, old_context, new_context = [], [], [], []
            in_hunk = False
        elif line.startswith("--- ") and not in_hunk:
            old_path = _diff_path(line[4:], "a/")
        elif line.startswith("+++ ") and not in_hunk:
            new_path = _diff_path(line[4:], "b/")
        elif line.startswith("@@"):
            match = _HUNK.match(line)
            if match:
                old_no, new_no, in_hunk = int(match.group(1)), int(match.group(3)), True
        elif not in_hunk:
            continue
        elif line.startswith("-"):
            removed.append((old_no, line[1:]))
            old_no += 1
        elif line.startswith("+"):
            added.append((new_no, line[1:]))
            new_no += 1
        elif line.startswith(" "):
            old_context.append((old_no, line[1:]))
            new_context.append((new_no, line[1:]))
            old_no += 1
            new_no += 1
    flush()
    return files


def _diff_path(raw: str, prefix: str) -> str | None:
    raw = raw.rstrip("\t")
    if raw == "/dev/null":
        return None
    if raw.startswith('"') and raw.endswith('"'):  # C-quoted: unusual characters in the name
        raw = bytes(raw[1:-1], "utf-8").decode("unicode_escape").encode("latin-1") \
            .decode("utf-8", "replace")
    return raw[len(prefix):] if raw.startswith(prefix) else raw


_REVERT_LINE = re.compile(r"This reverts commit [0-9a-f]{7,40}(,\s+reversing\s+changes\s+made\s+to\s+"
                          r"[0-9a-f]{7,40})?\.?", re.I)
_TRAILER = re.compile(r"^(Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Tested-by|Reported-by"
                      r"|Change-Id|Cc):", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`\"“])")


def reason(message: str, limit: int = 220) -> str:
    """What a revert or fix says about why: its body without the boilerplate (the
    ``This reverts commit`` line, trailers), first sentences up to ``limit``; else its subject
    (a revert's quoted subject unwrapped)."""
    subject, _, body = (message or "").strip().partition("\n")
    body = _REVERT_LINE.sub("", body)
    lines = [ln.strip() for ln in body.splitlines()]
    lines = [ln for ln in lines if ln and not _TRAILER.match(ln)]
    prose = " ".join(lines).strip()
    if len(prose.split()) >= 4:
        out = ""
        for sentence in _SENTENCE_END.split(prose):
            if out and len(out) + len(sentence) + 1 > limit:
                break
            out = f"{out} {sentence}".strip()
        return out if len(out) <= limit else out[: limit - 1].rstrip() + "…"
    quoted = re.match(r'^Revert\s+"(.+)"\s*$', subject.strip())
    return quoted.group(1) if quoted else subject.strip()
