"""Changes between a base revision and a head revision or the working tree (for reviews)."""

from __future__ import annotations

from whylens.errors import InvalidInputError
from whylens.gitcli import os_path, path_text
from whylens.history.repo import Repository
from whylens.history.walk import config_pins, diff_options, parse_changes
from whylens.models import FileChange, Hunk

_BINARY_PROBE = 8000  # git's own rule: a NUL in the first 8000 bytes means binary
_BIG_FILE = 8 << 20  # like walk's core.bigFileThreshold: bigger untracked files count as binary


def diff_changes(repo: Repository, base: str, head: str | None = None) -> list[FileChange]:
    """Files changed from ``base`` to ``head`` (a revision) or, when None, to the working tree.

    Working-tree mode covers tracked files (staged or not) and untracked, non-ignored files
    (reported as added). Nothing is written: ``diff-index`` never refreshes the index.
    """
    base_sha = repo.resolve(base)
    prefix = config_pins()
    options = diff_options(repo.git_version)
    if head is not None:
        head_sha = repo.resolve(head)
        _, out, _ = repo.run(*prefix, "diff-tree", "-r", *options, base_sha, head_sha, "--")
        return list(parse_changes(out, 0, True))
    if repo.is_bare:
        raise InvalidInputError(f"{repo.root} is a bare repository; it has no working tree, "
                                "so name the head revision to compare with")
    # Plumbing on purpose: porcelain `git diff` rewrites .git/index (even with optional locks off).
    _, out, _ = repo.run(*prefix, "diff-index", *options, base_sha, "--")
    changes = list(parse_changes(out, 0, True, drop_stat_only=True))
    return changes + _untracked(repo)


def _untracked(repo: Repository) -> list[FileChange]:
    _, out, _ = repo.run("ls-files", "-z", "--others", "--exclude-standard", "--full-name")
    added = []
    for raw in out.split(b"\0"):
        if not raw:
            continue
        path = path_text(raw)
        lines, binary = _count_lines(repo.root / os_path(path))
        hunks = (Hunk(0, 0, 1, lines),) if lines and not binary else ()
        added.append(FileChange(path=path, status="A", hunks=hunks, binary=binary))
    return added


def _count_lines(path) -> tuple[int, bool]:
    """(line count, binary?) of a file, read in blocks; (0, False) when it cannot be read.

    A symlink counts as binary (git stores its target, not code) and is never followed: it may
    lead out of the repository, or to a FIFO that would block the read forever."""
    try:
        if path.is_symlink() or not path.is_file():
            return 0, True
        if path.stat().st_size > _BIG_FILE:  # e.g. unignored build output: never read it all
            return 0, True
        with open(path, "rb") as handle:
            first = handle.read(_BINARY_PROBE)
            if b"\0" in first:
                return 0, True
            count, last = first.count(b"\n"), first[-1:]
            for block in iter(lambda: handle.read(1 << 20), b""):
                count += block.count(b"\n")
                last = block[-1:]
    except OSError:
        return 0, False
    return count + (1 if last and last != b"\n" else 0), False


def merge_base(repo: Repository, a: str, b: str) -> str | None:
    """The best common ancestor of ``a`` and ``b``, or None when they share no history."""
    status, out, _ = repo.run("merge-base", repo.resolve(a), repo.resolve(b), check=False)
    sha = out.decode().strip() if status == 0 else ""
    return sha or None


def default_branch(repo: Repository) -> str | None:
    """The branch reviews compare with: ``origin/HEAD``'s target, else main, else master."""
    status, out, _ = repo.run("symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD",
                              check=False)
    if status == 0 and out.strip():
        return out.decode("utf-8", "replace").strip()
    for name in ("main", "master"):
        for ref in (f"refs/heads/{name}", f"refs/remotes/origin/{name}"):
            status, _, _ = repo.run("rev-parse", "--verify", "-q", ref, check=False)
            if status == 0:
                return name if ref.startswith("refs/heads/") else f"origin/{name}"
    return None
