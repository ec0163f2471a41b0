"""Where a repository and its index are: the one locator the CLI, the server and the pipeline use.

``locate(path, index_dir=None)`` asks git itself (one ``git rev-parse``, two for a bare repository)
and returns the repository root, its git dir and the index folder. No GitPython here: the language
server calls this too, and it never imports GitPython.

The root is the work tree's top folder, or the git dir of a bare repository (a path inside the
``.git`` folder of a work tree means that work tree). The default index folder is keyed by the
root's real path, so every caller that locates the same repository finds the same index.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from whylens import gitcli
from whylens.errors import GitMissingError, NotARepositoryError


@dataclass(frozen=True)
class RepoLocation:
    """A repository as git sees it, and the index folder that belongs to it."""

    root: Path  # the work tree, or the git dir of a bare repository
    git_dir: Path
    is_bare: bool
    index_dir: Path  # the folder given to ``locate``, else ``default_index_dir(root)``


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/whylens`` or ``~/.cache/whylens``."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "whylens"


def default_index_dir(repo_root: str | os.PathLike[str]) -> Path:
    """``<cache>/whylens/<basename>-<sha1(realpath)[:12]>``: stable per clone, never inside it."""
    real = os.path.realpath(os.fspath(repo_root))
    digest = hashlib.sha1(real.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = os.path.basename(real.rstrip(os.sep)) or "root"
    if name.endswith(".git") and len(name) > 4:  # bare mirrors: "requests.git" → "requests"
        name = name[:-4]
    return cache_root() / f"{name}-{digest}"


def locate(path: str | os.PathLike[str], index_dir: str | os.PathLike[str] | None = None
           ) -> RepoLocation:
    """The repository at or above ``path`` (a work tree, any folder or file in one, or a bare
    repository). Raises ``GitMissingError`` or ``NotARepositoryError``."""
    start = Path(path).expanduser()
    if not start.exists():
        raise NotARepositoryError(str(start))
    folder = start.parent if start.is_file() else start
    git = shutil.which("git")
    if git is None:
        raise GitMissingError()
    lines = _rev_parse(git, folder, "--absolute-git-dir", "--show-toplevel")
    if lines is not None and len(lines) == 2:
        root, git_dir, bare = Path(lines[1]).resolve(), Path(lines[0]).resolve(), False
    else:  # not in a work tree: a bare repository, or inside a .git folder
        lines = _rev_parse(git, folder, "--absolute-git-dir", "--is-bare-repository")
        if lines is None or len(lines) != 2:
            raise NotARepositoryError(str(start))
        git_dir, bare = Path(lines[0]).resolve(), lines[1] == "true"
        root = git_dir.parent if not bare and git_dir.name == ".git" else git_dir
    chosen = Path(index_dir) if index_dir else default_index_dir(root)
    return RepoLocation(root=root, git_dir=git_dir, is_bare=bare, index_dir=chosen)


def _rev_parse(git: str, folder: Path, *args: str) -> list[str] | None:
    try:
        out = subprocess.run(gitcli.command(git, "rev-parse", *args), cwd=folder,
                             capture_output=True, text=True, timeout=gitcli.GIT_TIMEOUT_S,
                             check=False, env=gitcli.environment(), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NotARepositoryError(str(folder)) from exc
    return out.stdout.splitlines() if out.returncode == 0 else None
