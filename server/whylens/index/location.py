"""Where an index lives by default: the user's cache folder, keyed by the repository path."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/whylens`` or ``~/.cache/whylens``."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "whylens"


def default_index_dir(repo_root: str | os.PathLike) -> Path:
    """``<cache>/whylens/<basename>-<sha1(realpath)[:12]>``: stable per clone, never inside it."""
    real = os.path.realpath(os.fspath(repo_root))
    digest = hashlib.sha1(real.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = os.path.basename(real.rstrip(os.sep)) or "root"
    if name.endswith(".git") and len(name) > 4:  # bare mirrors: "requests.git" → "requests"
        name = name[:-4]
    return cache_root() / f"{name}-{digest}"
