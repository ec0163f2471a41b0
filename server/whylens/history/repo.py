"""Open a git repository read-only and answer small questions about it.

Every git process of WhyLens starts here (``walk``, ``blobs`` and ``diff`` go through
``Repository``), except the locator's ``git rev-parse`` (``whylens.locate``), which finds it; both
build their command line with ``whylens.gitcli``, so no program the repository configures runs
(filters, fsmonitor, textconv, external diff, hooks, pager, credential helpers).
Nothing is written into the repository: processes get ``GIT_OPTIONAL_LOCKS=0``, work-tree diffs
use plumbing (porcelain ``git diff`` rewrites .git/index when stat data is stale, whatever that
variable says), and ``git()`` accepts read-only subcommands only.
"""

from __future__ import annotations

import functools
import io
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path, PurePosixPath
from typing import cast

# GitPython checks for a git executable at import time and raises ImportError when there is none;
# "quiet" defers that to the first command, where it becomes GitMissingError.
os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")

import git  # noqa: E402  (GitPython, after the refresh setting above)
from git.exc import GitCommandNotFound, InvalidGitRepositoryError, NoSuchPathError  # noqa: E402

from whylens import gitcli  # noqa: E402
from whylens.errors import (  # noqa: E402
    EmptyRepositoryError,
    GitCommandError,
    GitMissingError,
    NotARepositoryError,
    UnknownRevisionError,
)
from whylens.history import missing  # noqa: E402
from whylens.locate import RepoLocation, locate  # noqa: E402

IGNORE_REVS_FILE = ".git-blame-ignore-revs"
Attributes = dict[str, str | bool | None]  # set → True, -unset → False, !unspecified → None
_HEX = re.compile(r"^[0-9a-f]{4,40}$")

# Subcommands that never write to the repository (``config``, ``describe`` and ``symbolic-ref``
# are checked further in ``_check_read_only``). Porcelain ``diff`` and ``status`` are absent on
# purpose: they rewrite .git/index when stat data is stale, even with GIT_OPTIONAL_LOCKS=0.
READ_ONLY_COMMANDS = frozenset({
    "blame", "cat-file", "check-attr", "check-ignore", "config", "count-objects", "describe",
    "diff-files", "diff-index", "diff-tree", "for-each-ref", "grep", "log", "ls-files",
    "ls-tree", "merge-base", "name-rev", "rev-list", "rev-parse", "shortlog", "show", "show-ref",
    "symbolic-ref", "var", "version",
})
# A config call must name one of these (modifiers such as --local or -z alone would let
# `git config --local key value` write).
_CONFIG_READ_FLAGS = frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l"})
_CONFIG_WRITE_FLAGS = frozenset({"--add", "--replace-all", "--unset", "--unset-all", "--edit",
                                 "-e", "--rename-section", "--remove-section"})


def _git_environment(git_dir: Path, work_tree: Path | None) -> dict[str, str]:
    pinned = {"GIT_DIR": str(git_dir)}  # pinned: an inherited GIT_DIR must not redirect us
    if work_tree is not None:
        pinned["GIT_WORK_TREE"] = str(work_tree)
    return gitcli.environment(pinned)


def _check_read_only(args: tuple[str, ...]) -> None:
    if args and args[0].startswith("-"):
        raise ValueError("Repository.git() takes no global options (-c, -C, --git-dir, ...)")
    command = args[0] if args else ""
    if command not in READ_ONLY_COMMANDS:
        raise ValueError(f"git {command!r} is not a read-only command WhyLens may run")
    rest = args[args.index(command) + 1:]
    if any(a.startswith("--output") for a in rest):
        raise ValueError("WhyLens never lets git write a file (--output)")
    if command == "config" and (not any(a in _CONFIG_READ_FLAGS for a in rest)
                                or any(a in _CONFIG_WRITE_FLAGS for a in rest)):
        raise ValueError("git config may only be read (--get, --get-all, --get-regexp, --list)")
    if command == "describe" and any(a.startswith(("--dirty", "--broken")) for a in rest):
        raise ValueError("git describe --dirty refreshes the index; WhyLens does not run it")
    if command == "symbolic-ref" and len([a for a in rest if not a.startswith("-")]) > 1:
        raise ValueError("git symbolic-ref may only be read")
    if command == "symbolic-ref" and any(a in ("-d", "--delete", "-m") for a in rest):
        raise ValueError("git symbolic-ref may only be read")


class GitProcess:
    """A running git process. Holds GitPython's handle, which kills the process when dropped.

    Its stderr is drained by a thread (keeping the last 64 KiB), so that a long run of warnings
    (``inexact rename detection was skipped`` once per huge commit) can never fill the pipe
    and stall git while we read its stdout.
    """

    def __init__(self, handle) -> None:
        self._handle = handle
        self.proc: subprocess.Popen = handle.proc
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self._errors = bytearray()
        self._drain = threading.Thread(target=self._read_stderr, daemon=True)
        self._drain.start()

    def _read_stderr(self) -> None:
        stream = self.proc.stderr
        if stream is None:
            return
        reader = cast(io.BufferedReader, stream)  # a binary pipe (Popen without text=)
        try:
            for block in iter(lambda: reader.read1(1 << 16), b""):
                self._errors += block
                del self._errors[:-(1 << 16)]
        except (OSError, ValueError):
            pass

    def stderr_text(self) -> str:
        """What git wrote to stderr (its tail), once the process has ended."""
        self._drain.join(timeout=5)
        return self._errors.decode("utf-8", "replace")

    def poll(self) -> int | None:
        return self.proc.poll()

    def kill(self) -> None:
        self.proc.kill()

    def wait(self, timeout: float | None = None) -> int:
        return self.proc.wait(timeout)

    def close(self) -> None:
        """Close our ends of the pipes and reap the process (kill it if still running)."""
        for stream in (self.stdin, self.stdout):
            if stream:
                try:
                    stream.close()
                except OSError:
                    pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._drain.join(timeout=5)
        if self.proc.stderr:
            self.proc.stderr.close()


class Repository:
    """A read-only view of one repository (work tree, folder inside one, or bare)."""

    def __init__(self, handle: git.Repo, where: RepoLocation) -> None:
        self._repo = handle
        self.git_dir = where.git_dir
        self.is_bare = where.is_bare
        self.root = where.root  # the locator's answer, so the default index folder agrees
        self._env = _git_environment(self.git_dir, None if self.is_bare else self.root)
        try:  # program keys of the repository's own config, emptied on every command line
            self._neutralised = gitcli.repository_settings(
                self.git_executable, str(self.git_dir), None if self.is_bare else str(self.root))
        except (OSError, subprocess.SubprocessError) as exc:
            raise GitMissingError() from exc
        self._common_dir = Path(handle.common_dir).resolve()

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> Repository:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._repo.close()

    def __repr__(self) -> str:
        return f"Repository({str(self.root)!r}, bare={self.is_bare})"

    # -- running git -----------------------------------------------------------------------
    @property
    def git_executable(self) -> str:
        return git.Git.GIT_PYTHON_GIT_EXECUTABLE or "git"

    def command(self, *args: str) -> list[str]:
        """The argv for a git command on this repository (``gitcli.command``)."""
        return gitcli.command(self.git_executable, *args, neutralised=self._neutralised)

    def popen(self, args: list[str], stdin: int | None = None) -> GitProcess:
        """Start a git process with its stdout as a byte pipe (``walk``, ``blobs`` use this)."""
        try:
            handle = self._repo.git.execute(
                self.command(*args), as_process=True, istream=stdin, env=self._env,
            )
        except GitCommandNotFound as exc:
            raise GitMissingError() from exc
        return GitProcess(handle)

    def run(self, *args: str, check: bool = True) -> tuple[int, bytes, bytes]:
        """Run git to completion; ``(returncode, stdout, stderr)`` as bytes."""
        try:
            status, out, err = self._repo.git.execute(
                self.command(*args), with_extended_output=True, with_exceptions=False,
                stdout_as_string=False, strip_newline_in_stdout=False, env=self._env,
            )
        except GitCommandNotFound as exc:
            raise GitMissingError() from exc
        if check and status != 0:
            raise GitCommandError(args, err.decode("utf-8", "replace") if isinstance(err, bytes)
                                  else str(err))
        return status, out, err if isinstance(err, bytes) else str(err).encode()

    def git(self, *args: str) -> str:
        """Output of a read-only git command, decoded (invalid UTF-8 replaced)."""
        _check_read_only(args)
        _, out, _ = self.run(*args)
        return out.decode("utf-8", "replace")

    # -- facts -----------------------------------------------------------------------------
    @functools.cached_property
    def git_version(self) -> tuple[int, ...]:
        """``(2, 39, 5)`` for git 2.39.5; ``(0,)`` when the version cannot be read."""
        _, out, _ = self.run("version", check=False)
        found = re.search(rb"(\d+)\.(\d+)(?:\.(\d+))?", out)
        return tuple(int(g) for g in found.groups() if g) if found else (0,)

    @property
    def is_shallow(self) -> bool:
        return (self._common_dir / "shallow").is_file() or (self.git_dir / "shallow").is_file()

    def shallow_boundary(self) -> frozenset[str]:
        """Commits whose parents a shallow clone does not have (empty when not shallow)."""
        for folder in (self._common_dir, self.git_dir):
            path = folder / "shallow"
            if path.is_file():
                return frozenset(path.read_text(encoding="ascii", errors="replace").split())
        return frozenset()

    @property
    def is_empty(self) -> bool:
        """True when no ref points at a commit (a fresh ``git init``)."""
        status, _, _ = self.run("rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
        if status == 0:
            return False
        _, out, _ = self.run("for-each-ref", "--count=1", "--format=%(objectname)")
        return not out.strip()

    def resolve(self, rev: str = "HEAD") -> str:
        """Full sha of the commit ``rev`` names."""
        if not rev or rev.startswith("-") or "\n" in rev or "\0" in rev:
            raise UnknownRevisionError(rev)
        status, out, _ = self.run("rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False)
        if status == 0:
            return out.decode().strip()
        branch = self.unborn_branch() if rev == "HEAD" else None
        if branch is not None or self.is_empty:
            raise EmptyRepositoryError(str(self.root), branch, others=not self.is_empty)
        raise UnknownRevisionError(rev)

    def unborn_branch(self) -> str | None:
        """The branch HEAD names when it has no commit yet (``git init``, ``--orphan``), else
        None."""
        status, out, _ = self.run("symbolic-ref", "-q", "--short", "HEAD", check=False)
        branch = out.decode("utf-8", "replace").strip()
        if status != 0 or not branch:
            return None
        status, _, _ = self.run("rev-parse", "--verify", "-q", "HEAD", check=False)
        return branch if status != 0 else None

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """True when ``ancestor`` is reachable from ``descendant`` (False if either is unknown)."""
        if ancestor.startswith("-") or descendant.startswith("-"):
            return False
        status, _, _ = self.run("merge-base", "--is-ancestor", ancestor, descendant, check=False)
        return status == 0

    def count(self, rev: str = "HEAD", exclude: tuple[str, ...] | list[str] = ()) -> int:
        """Number of commits ``walk(rev, exclude)`` yields."""
        sha = self.resolve(rev)
        excluded = [f"^{self.resolve(e)}" for e in exclude]
        _, out, _ = self.run("rev-list", "--count", sha, *excluded, "--")
        return int(out.strip() or 0)

    def remote_url(self, name: str = "origin") -> str | None:
        status, out, _ = self.run("config", "--get", f"remote.{name}.url", check=False)
        url = out.decode("utf-8", "replace").strip()
        return url if status == 0 and url else None

    def read_file(self, rev: str, path: str) -> bytes | None:
        """Bytes of ``path`` at ``rev`` (works in a bare repository), None when absent (or
        missing from a partial clone: never fetched)."""
        name = f"{rev}:{path}"
        if missing.lazy_fetches(self):
            status, out, _ = self.run("rev-parse", "--verify", "-q", name, check=False)
            name = out.decode("ascii", "replace").strip()
            if status != 0 or not missing.has_object(self, name):
                return None
        status, out, _ = self.run("cat-file", "blob", name, check=False)
        return out if status == 0 else None

    def ignore_revs(self, rev: str = "HEAD") -> set[str]:
        """Commits listed in ``.git-blame-ignore-revs`` (or ``blame.ignoreRevsFile``) at ``rev``.

        Empty when the file is absent (or the repository has no commits yet).
        """
        status, configured, _ = self.run("config", "--get", "blame.ignoreRevsFile", check=False)
        name = configured.decode("utf-8", "replace").strip() if status == 0 else ""
        raw = self.read_file(rev, name or IGNORE_REVS_FILE)
        if raw is None and name:
            raw = self.read_file(rev, IGNORE_REVS_FILE)
        if raw is None:
            return set()
        full, short = set(), []
        for line in raw.decode("utf-8", "replace").splitlines():
            token = line.split("#", 1)[0].strip().lower()
            if _HEX.match(token):
                (full.add(token) if len(token) == 40 else short.append(token))
        for token in short:  # abbreviated entries: resolve each (rare, and few)
            status, out, _ = self.run("rev-parse", "--verify", "-q", f"{token}^{{commit}}",
                                      check=False)
            if status == 0:
                full.add(out.decode().strip())
        return full

    def gitattributes(self, rev: str = "HEAD") -> list[tuple[str, Attributes]]:
        """Patterns of every ``.gitattributes`` in the tree at ``rev``, in precedence order.

        Each pattern is made relative to the repository root (``sub/.gitattributes`` with
        ``*.js`` becomes ``sub/**/*.js``); attributes map to True (set), False (``-attr``),
        None (``!attr``) or their value (``attr=value``); the ``binary`` macro is expanded.
        Later entries override earlier ones, as in git.
        """
        if self.is_empty:
            return []
        sha = self.resolve(rev)
        _, listing, _ = self.run("ls-tree", "-r", "-z", "--name-only", sha)
        files = [p.decode("utf-8", "replace") for p in listing.split(b"\0")
                 if p == b".gitattributes" or p.endswith(b"/.gitattributes")]
        files.sort(key=lambda p: (p.count("/"), p))  # root first: deeper files take precedence
        patterns = []
        for path in files:
            raw = self.read_file(sha, path)
            if raw is not None:
                base = str(PurePosixPath(path).parent)
                patterns.extend(parse_gitattributes(raw.decode("utf-8", "replace"),
                                                    "" if base == "." else base))
        return patterns


def parse_gitattributes(text: str, base: str = "") -> list[tuple[str, Attributes]]:
    """Parse one ``.gitattributes`` file found in folder ``base`` ("" for the root)."""
    result = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("[attr]"):
            continue
        pattern, *specs = line.split()
        attrs: Attributes = {}
        for spec in specs:
            if spec == "binary":
                attrs.update({"binary": True, "diff": False, "merge": False, "text": False})
            elif spec.startswith("-"):
                attrs[spec[1:]] = False
            elif spec.startswith("!"):
                attrs[spec[1:]] = None
            elif "=" in spec:
                key, value = spec.split("=", 1)
                attrs[key] = value
            else:
                attrs[spec] = True
        if not attrs:
            continue
        anchored = "/" in pattern.rstrip("/")
        pattern = pattern.lstrip("/")
        if base:
            pattern = f"{base}/{pattern}" if anchored else f"{base}/**/{pattern}"
        result.append((pattern, attrs))
    return result


def open_repository(path: str | os.PathLike[str] | RepoLocation = ".") -> Repository:
    """Open the repository at or above ``path`` (work tree, sub-folder, file or bare), read-only.

    ``locate`` finds it (the same answer the CLI and the server get; pass its ``RepoLocation``
    when you already have one); GitPython only runs git.
    """
    where = path if isinstance(path, RepoLocation) else locate(path)
    if shutil.which(git.Git.GIT_PYTHON_GIT_EXECUTABLE or "git") is None:
        raise GitMissingError()
    try:
        handle = git.Repo(str(where.git_dir if where.is_bare else where.root))
    except (InvalidGitRepositoryError, NoSuchPathError) as exc:
        raise NotARepositoryError(str(path)) from exc
    return Repository(handle, where)
