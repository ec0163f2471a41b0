"""Paths as the index keeps them: repo-relative, POSIX separators, never outside the repository."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from whylens.errors import InvalidInputError
from whylens.gitcli import os_path, text_of_os_path
from whylens.symbols.skip import MAX_SOURCE_BYTES


def repo_relative(path: str | os.PathLike, repo_root: str | os.PathLike | None) -> str:
    """``path`` (absolute, or relative to the repository root) → ``"pkg/mod.py"``.

    Refuses paths that leave the repository, and absolute paths when the root is unknown.
    """
    raw = os.fspath(path).strip()
    if not raw or "\x00" in raw:
        raise InvalidInputError("empty or invalid path; pass a file inside the repository")
    given = Path(raw)
    if given.is_absolute():
        if repo_root is None:
            raise InvalidInputError(
                f"{raw} is absolute but the repository root is unknown; pass --repo PATH"
            )
        root = Path(os.path.realpath(repo_root))
        full = Path(os.path.realpath(given))
        try:
            rel = full.relative_to(root)
        except ValueError:
            raise InvalidInputError(
                f"{raw} is outside the repository {root}; pass a file inside it"
            ) from None
        text = rel.as_posix()
    else:
        text = PurePosixPath(raw.replace("\\", "/")).as_posix()
    parts: list[str] = []
    for part in PurePosixPath(text).parts:
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise InvalidInputError(f"{raw} is outside the repository; pass a file inside it")
            parts.pop()
            continue
        parts.append(part)
    if not parts:
        raise InvalidInputError(f"{raw} names the repository itself; pass a file inside it")
    return text_of_os_path("/".join(parts))  # an undecodable byte as the index keeps it


def read_source(repo_root: str | os.PathLike | None, rel_path: str) -> bytes | None:
    """The working-tree bytes of ``rel_path``, or None when missing, unreadable or too large."""
    if repo_root is None:
        return None
    target = Path(repo_root) / os_path(rel_path)
    try:
        if not target.is_file() or target.stat().st_size > MAX_SOURCE_BYTES:
            return None
        return target.read_bytes()
    except OSError:
        return None


def source_bytes(text: str | bytes | None) -> bytes | None:
    """The editor's buffer as bytes for the parser (None when absent or too large)."""
    if text is None:
        return None
    data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
    return data if len(data) <= MAX_SOURCE_BYTES else None
