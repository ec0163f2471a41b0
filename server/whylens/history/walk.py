"""Stream commits from one ``git log`` process.

One process prints, per commit, a header in a NUL-delimited format, the ``--raw -z`` list of
changed files (statuses, blob shas, renames) and, with ``hunks=True``, the ``-p -U0`` patch of
which only the ``@@`` hunk headers and a few file headers are read. The output is consumed in
large chunks and split with ``bytes.find``; nothing is parsed per patch line in Python.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import replace
from typing import NamedTuple

from whylens.gitcli import path_text
from whylens.history import filters
from whylens.history.repo import GitCommandError, Repository
from whylens.history.trailers import parse_trailers
from whylens.models import Commit, FileChange, Hunk

_MARKER = b"\0\0WL\x1e"  # starts every commit record (cannot occur in a patch line or message)
_HEADER_END = b"\0\0WLE"
_FIELDS = ("%H", "%P", "%aN", "%aE", "%aI", "%at", "%s", "%b")  # %aN/%aE apply the mailmap
LOG_FORMAT = "%x00%x00WL%x1e" + "%x1f".join(_FIELDS) + "%x00%x00WLE"
_NULL_SHA = "0" * 40
_DIFF_START = b"\ndiff --git "
_HUNK = re.compile(rb"\n@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_PIPE_SIZE = 1 << 20
_READ_SIZE = 1 << 18
EAGER_SECONDS = 5.0  # read whatever git has written (not full blocks) this long
# Hunk headers repeat a lot ("@@ -0,0 +1 @@"); Hunks are immutable, so equal ones are shared.
_HUNK_CACHE: dict[bytes, Hunk] = {}
_HUNK_CACHE_SIZE = 50_000


# Files above this size are diffed as binary (binary=True, no hunks): a generated 300 MB file
# must not become 300 MB of patch text to buffer. Symbol anchoring skips files > 1 MB anyway.
BIG_FILE_THRESHOLD = "8m"
# A file's patch text is kept up to this size (the anchorer reads the changed lines from it;
# beyond it the anchorer reads the blobs instead, and skips files over 1 MB anyway).
MAX_PATCH_BYTES = 2_000_000


def config_pins() -> list[str]:
    """``-c`` settings every diffing git command of ours gets."""
    return ["-c", "core.quotePath=false", "-c", f"core.bigFileThreshold={BIG_FILE_THRESHOLD}",
            *memory_pins()]


def memory_pins() -> list[str]:
    """``-c`` settings that bound a long-running git process's memory: pack files are mapped
    in small windows, at most ``packedGitLimit`` at a time (git's defaults map up to 8 GiB,
    all of it resident once read), and the delta cache stays small. Measured on redis/redis:
    the walk, ``cat-file`` and ``diff-tree`` took 612 MB of RSS together without these, 162 MB
    with a 48 MiB limit."""
    return ["-c", "core.packedGitWindowSize=1m", "-c", "core.packedGitLimit=16m",
            "-c", "core.deltaBaseCacheLimit=8m"]


def diff_options(git_version: tuple[int, ...], patch: bool = True) -> list[str]:
    """Diff options that override every user setting able to change what we parse."""
    args = ["-z", "--raw", "--no-abbrev", "-M", "--no-color", "--no-ext-diff", "--no-textconv"]
    if git_version >= (2, 28):
        args.append("--no-relative")  # diff.relative (2.28+) would drop files outside cwd
    if patch:
        args += ["-p", "-U0", "--inter-hunk-context=0", "--src-prefix=a/", "--dst-prefix=b/"]
    return args


def log_arguments(hunks: bool = True, git_version: tuple[int, ...] = (2, 31)) -> list[str]:
    """The ``git log`` options (before revisions); pins every setting that shapes the output."""
    # Merges print no diff unless asked (-m/-c/--cc); git >= 2.31 can also be told so outright.
    merges = ["--diff-merges=off"] if git_version >= (2, 31) else []
    return [
        "-c", "i18n.logOutputEncoding=UTF-8", *config_pins(), "-c", "log.showSignature=false",
        "log", *diff_options(git_version, hunks), "--root", *merges, "--use-mailmap",
        f"--format={LOG_FORMAT}",
    ]


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


def walk(
    repo: Repository,
    rev: str = "HEAD",
    exclude: Iterable[str] = (),
    hunks: bool = True,
    ignore_revs: Iterable[str] | None = None,
    keep_patch: Callable[[str], bool] | None = None,
) -> Generator[Commit, None, None]:
    """Commits reachable from ``rev`` and not from any of ``exclude``, newest first.

    ``skip_reason`` and ``pr`` are filled in; ``ignore_revs`` defaults to the repository's
    ``.git-blame-ignore-revs`` at ``rev``. Merge commits carry no changes; in a shallow clone the
    boundary commits carry none either (their parents are missing, so their diff is unknown).
    ``keep_patch(path)``: keep the patch text (``FileChange.patch``) of the files it accepts
    (up to ``MAX_PATCH_BYTES`` each).
    """
    head = repo.resolve(rev)
    excluded = [f"^{repo.resolve(sha)}" for sha in exclude]
    ignored = frozenset(repo.ignore_revs(head) if ignore_revs is None else ignore_revs)
    boundary = repo.shallow_boundary()
    proc = repo.popen([*log_arguments(hunks, repo.git_version), head, *excluded, "--"])
    _widen_pipe(proc.stdout)
    finished = False
    try:
        for record in _records(proc.stdout):
            commit = parse_record(record, hunks, keep_patch)
            if commit.sha in boundary:
                commit = replace(commit, changes=())
            pr = filters.pr_of(commit)
            reason = filters.classify(commit, ignored, pr=pr)
            if pr is not None or reason is not None:
                commit = replace(commit, pr=pr, skip_reason=reason)
            yield commit
        finished = True
    finally:
        _finish(proc, finished)


def read_commits(repo: Repository, shas: Iterable[str]) -> list[Commit]:
    """The named commits (in that order; unknown ones left out) with their changed files and
    blobs but no hunks, ``pr`` filled in: what revert detection needs of commits an earlier
    index run walked."""
    shas = [s for s in dict.fromkeys(shas) if s]
    if not shas:
        return []
    status, out, _ = repo.run(*log_arguments(False, repo.git_version), "--no-walk=unsorted",
                              "--ignore-missing", *shas, "--", check=False)
    if status != 0:
        return []
    found: list[Commit] = []
    for record in _records(io.BytesIO(out)):
        commit = parse_record(record, hunks=False)
        pr = filters.pr_of(commit)
        found.append(replace(commit, pr=pr) if pr is not None else commit)
    return found


def _widen_pipe(stream) -> None:
    """Ask Linux for a 1 MiB pipe: fewer wake-ups between git and us (ignored elsewhere)."""
    try:
        import fcntl

        fcntl.fcntl(stream.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), _PIPE_SIZE)
    except (ImportError, OSError, ValueError):
        pass


def _finish(proc, finished: bool) -> None:
    """Reap git; a failure after a complete read is an error, an early stop is not."""
    if not finished and proc.poll() is None:
        proc.kill()
    proc.close()
    if finished and proc.poll() != 0:
        raise GitCommandError(("log",), proc.stderr_text())


def _records(stream) -> Iterator[bytes]:
    """Split the byte stream into commit records without copying it more than once."""
    buf = bytearray()
    start = -1  # offset just after the current record's marker; -1 before the first one
    scan = 0
    eager_until = time.monotonic() + EAGER_SECONDS
    while True:
        # a full block means fewer wake-ups, but git fills 256 KiB slowly at the start of a
        # big history (it diffs the newest commits first): take what there is, at first, so
        # the first commits reach the index within seconds
        eager = time.monotonic() < eager_until
        chunk = stream.read1(_READ_SIZE) if eager else stream.read(_READ_SIZE)
        if not chunk:
            break
        buf += chunk
        while True:
            found = buf.find(_MARKER, scan)
            if found < 0:
                break
            if start >= 0:
                yield bytes(buf[start:found])
            start = found + len(_MARKER)
            scan = start
        if start > 0:
            del buf[:start]
            start = 0
        scan = max(start, len(buf) - len(_MARKER) + 1)
    if start >= 0 and len(buf) > start:
        yield bytes(buf)[start:]


def parse_record(record: bytes, hunks: bool = True,
                 keep_patch: Callable[[str], bool] | None = None) -> Commit:
    """One commit record (the bytes between two markers) → Commit (no filter verdict)."""
    end = record.find(_HEADER_END)
    if end < 0:
        raise ValueError("truncated git log record")
    fields = record[:end].decode("utf-8", "replace").split("\x1f", 7)
    fields += [""] * (8 - len(fields))  # a malformed header loses fields, never the walk
    sha, parents, author, email, date, stamp, subject, body = fields
    changes = parse_changes(record, end + len(_HEADER_END), hunks, keep_patch=keep_patch)
    body = body.strip("\n")
    return Commit(
        sha=sha,
        parents=tuple(parents.split()),
        author=author,
        email=email,
        timestamp=int(stamp) if stamp.lstrip("-").isdigit() else 0,
        date=date,
        subject=subject.strip(),
        body=body,
        trailers=parse_trailers(body),
        changes=changes,
    )


def parse_changes(record: bytes, pos: int, hunks: bool, drop_stat_only: bool = False,
                  keep_patch: Callable[[str], bool] | None = None) -> tuple[FileChange, ...]:
    """The ``--raw -z`` entries (and ``-p -U0`` sections) of ``record`` from offset ``pos``.

    ``drop_stat_only`` (for ``diff-index`` against the work tree, which does not refresh the
    index) drops modified entries without a patch section: files whose stat info changed
    but not their content.
    """
    pos = record.find(b":", pos)  # first raw entry, after the "\0\n" that ends the header
    if pos < 0:
        return ()
    entries: list[RawEntry] = []
    size = len(record)
    while pos < size and record[pos] == 0x3A:  # ":"
        meta_end = record.index(b"\0", pos)
        meta = record[pos + 1:meta_end].split(b" ")
        status = meta[4][:1].decode()
        first_end = record.index(b"\0", meta_end + 1)
        first = record[meta_end + 1:first_end]
        pos = first_end + 1
        second = None
        if status in "RC":
            second_end = record.index(b"\0", pos)
            second = record[pos:second_end]
            pos = second_end + 1
        old_blob, new_blob = meta[2].decode(), meta[3].decode()
        raw_old, raw_new = (first, second) if second is not None else (first, first)
        entries.append(RawEntry(
            status, path_text(raw_new), path_text(raw_old) if second is not None else None,
            None if old_blob == _NULL_SHA or status == "A" else old_blob,
            None if new_blob == _NULL_SHA or status == "D" else new_blob,
            raw_old, raw_new, meta[0] == meta[1],
        ))
    patches: list[PatchInfo | None] = [None] * len(entries)
    if hunks and entries:
        _read_patch(record, pos, entries, patches, keep_patch)
    return tuple(
        FileChange(path=e.path, status=e.status, old_path=e.old_path, old_blob=e.old_blob,
                   new_blob=e.new_blob, hunks=tuple(p.hunks) if p else (),
                   binary=p.binary if p else False, patch=p.text if p else b"")
        for e, p in zip(entries, patches)
        if not (drop_stat_only and p is None and e.status == "M" and e.same_mode)
    )


def _read_patch(record: bytes, pos: int, entries: list[RawEntry],
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
        at = record.find(_DIFF_START, at + 1)
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
