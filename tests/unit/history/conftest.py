"""Helpers for history tests: clones and a byte-level snapshot of a repository."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``root`` (work tree and .git) → (sha256, mtime_ns)."""
    state = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            data = path.read_bytes()
            state[str(path.relative_to(root))] = (hashlib.sha256(data).hexdigest(),
                                                  path.stat().st_mtime_ns)
    return state


def clone(source: Path, target: Path, *options: str) -> Path:
    subprocess.run(["git", "clone", "-q", *options, f"file://{source}", str(target)],
                   check=True, capture_output=True)
    return target


@pytest.fixture
def snapshot_of():
    return snapshot


@pytest.fixture
def clone_repo(tmp_path):
    """``clone_repo(source, name, *git_clone_options)`` → path of a local clone."""
    return lambda source, name, *options: clone(Path(source), tmp_path / name, *options)
