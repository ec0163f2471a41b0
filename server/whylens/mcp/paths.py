"""Paths from an agent, confined to the repository: never an answer about a file outside it."""

from __future__ import annotations

import os
from pathlib import Path

from whylens.errors import InvalidInputError
from whylens.retrieval.paths import repo_relative


class PathOutsideError(InvalidInputError):
    pass


def confine(root: Path, raw: str) -> str:
    """``raw`` (relative to the repository root, or absolute inside it) → ``"pkg/mod.py"``.

    Refused with a clear message: an empty path, an absolute path outside the repository, a
    ``..`` that climbs out of it, and a symlink (or a folder on the way) that leads out of it.
    """
    text = (raw or "").strip()
    if not text or "\x00" in text:
        raise InvalidInputError("the path is empty; pass a file path relative to the repository "
                                "root")
    real_root = Path(os.path.realpath(root))
    given = Path(text)
    full = given if given.is_absolute() else real_root / given
    real = Path(os.path.realpath(full))
    if real != real_root and real_root not in real.parents:
        how = " through a symlink" if _lexically_inside(real_root, full) else ""
        raise PathOutsideError(f"{raw} leads outside the repository {real_root}{how}; pass a "
                               "path inside the repository")
    if given.is_absolute():
        return repo_relative(real, real_root)
    return repo_relative(text, real_root)


def _lexically_inside(root: Path, path: Path) -> bool:
    normal = Path(os.path.normpath(path))
    return normal == root or root in normal.parents
