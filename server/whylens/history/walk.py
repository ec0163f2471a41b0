"""Stream commits from one ``git log`` process, and read on past objects the repository lacks.

One process prints, per commit, a header in a NUL-delimited format, the ``--raw -z`` list of
changed files (statuses, blob shas, renames) and, with ``hunks=True``, the ``-p -U0`` patch of
which only the ``@@`` hunk headers and a few file headers are read (``sections``). The output is
consumed in large chunks and split with ``bytes.find``; nothing is parsed per patch line in Python.

Missing objects (a partial clone, a mirror without its big blobs, a damaged repository): git
dies on the first one it needs. The commits read before are kept, and the walk goes on from
where git stopped (``--skip=N``: git skips commits before diffing any). Which commit failed is
ambiguous: ``-p`` dies inside the commit it prints, but ``-M`` reads blobs for rename detection
*before* a commit's header is printed, so the last record read may be whole or cut. The rule:
the last record before a failure is never trusted; that commit is read again alone, and if that
read fails too, it is read with less (``reads="trees"``: ``--raw`` with exact renames only, no
blob; then ``"commits"``: no diff at all) and flagged ``Commit.missing_objects``. After
``MAX_FAILURES`` failures the rest of the walk reads less from the start. In a partial clone
(``missing.lazy_fetches``) the walk reads no blob from the start, unless
``missing.patches_worth_reading`` (a ``blob:limit`` filter, and a git that dies instead of
fetching).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, replace

from whylens.gitcli import path_text
from whylens.history import filters
from whylens.history.missing import (
    lazy_fetches, mailmap_pin, names_missing_object, patches_worth_reading,
)
from whylens.history.repo import GitCommandError, Repository
from whylens.history.sections import PatchInfo, RawEntry, read_patch
from whylens.history.trailers import parse_trailers
from whylens.models import Commit, FileChange

_MARKER = b"\0\0WL\x1e"  # starts every commit record (cannot occur in a patch line or message)
_HEADER_END = b"\0\0WLE"
_FIELDS = ("%H", "%P", "%aN", "%aE", "%aI", "%at", "%s", "%b")  # %aN/%aE apply the mailmap
LOG_FORMAT = "%x00%x00WL%x1e" + "%x1f".join(_FIELDS) + "%x00%x00WLE"
_NULL_SHA = "0" * 40
_PIPE_SIZE = 1 << 20
_READ_SIZE = 1 << 18
EAGER_SECONDS = 5.0  # read whatever git has written (not full blocks) this long
# What git may read to print the walk: "blobs" (patches, rename detection), "trees" (the
# --raw file list, exact renames), "commits" (headers only). Each level reads less.
READS = ("blobs", "trees", "commits")
MAX_FAILURES = 3  # git deaths over missing objects before the rest of the walk reads less

# Files above this size are diffed as binary (binary=True, no hunks): a generated 300 MB file
# must not become 300 MB of patch text to buffer. Symbol anchoring skips files > 1 MB anyway.
BIG_FILE_THRESHOLD = "8m"


@dataclass
class WalkStats:
    """What a walk met (filled in as it goes): whether the repository is a partial clone, how
    often git died over a missing object, the commits read with less than the walk asked."""

    partial_clone: bool = False
    failures: int = 0
    commits_degraded: int = 0
    reads: str = "blobs"  # what the walk's git read at the end


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


def diff_options(git_version: tuple[int, ...], patch: bool = True,
                 renames: str = "-M") -> list[str]:
    """Diff options that override every user setting able to change what we parse.
    ``renames="-M100%"``: exact renames only, found by blob name (git reads no blob)."""
    args = ["-z", "--raw", "--no-abbrev", renames, "--no-color", "--no-ext-diff",
            "--no-textconv"]
    if git_version >= (2, 28):
        args.append("--no-relative")  # diff.relative (2.28+) would drop files outside cwd
    if patch:
        args += ["-p", "-U0", "--inter-hunk-context=0", "--src-prefix=a/", "--dst-prefix=b/"]
    return args


def log_arguments(hunks: bool = True, git_version: tuple[int, ...] = (2, 31),
                  reads: str = "blobs") -> list[str]:
    """The ``git log`` options (before revisions); pins every setting that shapes the output.
    ``reads`` (a ``READS`` value) bounds what git reads: below "blobs" there is no patch."""
    # Merges print no diff unless asked (-m/-c/--cc); git >= 2.31 can also be told so outright.
    merges = ["--diff-merges=off"] if git_version >= (2, 31) else []
    if reads == "commits":
        diff = ["-z", "--no-color"]
    else:
        diff = diff_options(git_version, hunks and reads == "blobs",
                            "-M" if reads == "blobs" else "-M100%")
    return [
        "-c", "i18n.logOutputEncoding=UTF-8", *config_pins(), "-c", "log.showSignature=false",
        "log", *diff, "--root", *merges, "--use-mailmap", f"--format={LOG_FORMAT}",
    ]


def walk(
    repo: Repository,
    rev: str = "HEAD",
    exclude: Iterable[str] = (),
    hunks: bool = True,
    ignore_revs: Iterable[str] | None = None,
    keep_patch: Callable[[str], bool] | None = None,
    stats: WalkStats | None = None,
    skip: int = 0,
) -> Generator[Commit, None, None]:
    """Commits reachable from ``rev`` and not from any of ``exclude``, newest first, past the
    first ``skip`` of them (a segmented backfill's next segment: git skips them undiffed).

    ``skip_reason`` and ``pr`` are filled in; ``ignore_revs`` defaults to the repository's
    ``.git-blame-ignore-revs`` at ``rev``. Merge commits carry no changes; in a shallow clone the
    boundary commits carry none either (their parents are missing, so their diff is unknown).
    ``keep_patch(path)``: keep the patch text (``FileChange.patch``) of the files it accepts
    (up to ``MAX_PATCH_BYTES`` each). Objects the repository lacks: see the module docstring;
    ``stats`` (when given) says what the walk met.
    """
    head = repo.resolve(rev)
    revisions = [head, *(f"^{repo.resolve(sha)}" for sha in exclude)]
    ignored = frozenset(repo.ignore_revs(head) if ignore_revs is None else ignore_revs)
    boundary = repo.shallow_boundary()
    stats = stats if stats is not None else WalkStats()
    stats.partial_clone = lazy_fetches(repo)
    if stats.partial_clone and not patches_worth_reading(repo):
        stats.reads = "trees"  # git would fetch (or die over) a blob it lacks: let it need none
    for commit in _past(repo, revisions, hunks, keep_patch, stats, skip):
        if commit.sha in boundary:
            commit = replace(commit, changes=())
        pr = filters.pr_of(commit)
        reason = filters.classify(commit, ignored, pr=pr)
        if pr is not None or reason is not None:
            commit = replace(commit, pr=pr, skip_reason=reason)
        yield commit


SKIP_CHUNK = 1_000  # commits per ``git log --no-walk`` of a walk that starts past its first ones


def _past(repo: Repository, revisions: list[str], hunks: bool,
          keep_patch: Callable[[str], bool] | None, stats: WalkStats, skip: int
          ) -> Iterator[Commit]:
    """The walk's commits past its first ``skip``. Not ``git log --skip``: git keeps every
    skipped commit's text in memory (past 90,000 of git/git: 110 MB against 46 MB for printing
    them); ``git rev-list`` (which keeps none) lists the rest in walk order, and ``git log
    --no-walk=unsorted`` prints them ``SKIP_CHUNK`` at a time."""
    if not skip:
        yield from _LogReader(repo, revisions, hunks, keep_patch, stats).commits()
        return
    _, out, _ = repo.run(*memory_pins(), "rev-list", f"--skip={skip}", *revisions, "--")
    shas = out.split()
    for start in range(0, len(shas), SKIP_CHUNK):
        chunk = [sha.decode("ascii") for sha in shas[start:start + SKIP_CHUNK]]
        yield from _LogReader(repo, chunk, hunks, keep_patch, stats, listed=True).commits()


class _LogReader:
    """``git log`` over ``revisions`` (``listed``: exactly those commits, in that order),
    started again past every commit it dies on."""

    def __init__(self, repo: Repository, revisions: list[str], hunks: bool,
                 keep_patch: Callable[[str], bool] | None, stats: WalkStats,
                 listed: bool = False) -> None:
        self.repo, self.hunks = repo, hunks
        self.revisions = ["--no-walk=unsorted", *revisions] if listed else revisions
        self.keep_patch, self.stats = keep_patch, stats
        self.pins = mailmap_pin(repo)

    def commits(self) -> Iterator[Commit]:
        stats, done, failures = self.stats, 0, 0  # done: commits yielded, in walk order
        while True:
            past = [f"--skip={done}"] if done else []
            proc = self.repo.popen([*self._arguments(stats.reads), *past, *self.revisions, "--"])
            _widen_pipe(proc.stdout)
            held: bytes | None = None  # the last record: whole only once git ends well
            finished = False
            try:
                for record in _records(proc.stdout):
                    if held is not None:
                        yield self._parse(held, stats.reads)
                        done += 1
                    held = record
                finished = True
            finally:
                status, errors = _finish(proc, finished)
            if status == 0:
                if held is not None:
                    yield self._parse(held, stats.reads)
                return
            if not names_missing_object(errors):
                raise GitCommandError(("log",), errors)
            stats.failures += 1
            failures += 1
            yield self._alone(_sha_of(held) if held is not None else self._nth(done, errors))
            done += 1
            if failures >= MAX_FAILURES and stats.reads != READS[-1]:
                stats.reads = READS[READS.index(stats.reads) + 1]
                failures = 0

    def _arguments(self, reads: str) -> list[str]:
        return [*self.pins, *log_arguments(self.hunks, self.repo.git_version, reads)]

    def _parse(self, record: bytes, reads: str) -> Commit:
        commit = parse_record(record, self.hunks and reads == "blobs", self.keep_patch)
        # read without its trees (only ever because trees went missing): its changes unknown
        return replace(commit, missing_objects=True) if reads == "commits" else commit

    def _nth(self, done: int, errors: str) -> str:
        """The commit git died on before printing it: the next one after ``done``."""
        status, out, _ = self.repo.run("rev-list", f"--skip={done}", "--max-count=1",
                                       *self.revisions, "--", check=False)
        sha = out.decode("ascii", "replace").strip()
        if status != 0 or not sha:  # the history itself cannot be walked (a missing commit)
            raise GitCommandError(("log",), errors)
        return sha

    def _alone(self, sha: str) -> Commit:
        """Commit ``sha`` read by itself, with as much as git can read of it."""
        errors = ""
        for reads in READS[READS.index(self.stats.reads):]:
            status, out, err = self.repo.run(*self._arguments(reads), "-1", sha, "--",
                                             check=False)
            errors = err.decode("utf-8", "replace")
            start = out.find(_MARKER)
            if status == 0 and start >= 0:
                commit = self._parse(out[start + len(_MARKER):], reads)
                if reads == self.stats.reads:
                    return commit  # whole after all: git died on the next one
                self.stats.commits_degraded += 1
                return replace(commit, missing_objects=True)
            if not names_missing_object(errors):
                break
        raise GitCommandError(("log", "-1", sha), errors)


def _sha_of(record: bytes) -> str:
    return record[:record.find(b"\x1f")].decode("ascii", "replace")


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


def _finish(proc, finished: bool) -> tuple[int, str]:
    """Reap git: (0, "") after a complete read or an early stop, else its status and stderr."""
    if not finished and proc.poll() is None:
        proc.kill()
    proc.close()
    status = proc.poll()
    if not finished or status == 0:
        return 0, ""
    return (status if status is not None else -1), proc.stderr_text()


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
        read_patch(record, pos, entries, patches, keep_patch)
    return tuple(
        FileChange(path=e.path, status=e.status, old_path=e.old_path, old_blob=e.old_blob,
                   new_blob=e.new_blob, hunks=tuple(p.hunks) if p else (),
                   binary=p.binary if p else False, patch=p.text if p else b"")
        for e, p in zip(entries, patches)
        if not (drop_stat_only and p is None and e.status == "M" and e.same_mode)
    )
