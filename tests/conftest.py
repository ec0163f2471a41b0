"""Shared fixtures: real git repositories built in code, with fixed authors and dates."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

BASE_TIME = 1_700_000_000  # 2023-11-14, so dates in tests are stable


@dataclass
class GitRepo:
    """A throwaway repository; every commit gets a deterministic author and date."""

    root: Path
    clock: int = BASE_TIME
    shas: list[str] = field(default_factory=list)

    def git(self, *args: str, env: dict | None = None, input: bytes | None = None) -> str:
        full_env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(self.root.parent)}
        full_env.update(env or {})
        out = subprocess.run(
            ["git", *args], cwd=self.root, env=full_env, input=input,
            check=True, capture_output=True,
        )
        return out.stdout.decode("utf-8", "replace").strip()

    def write(self, path: str, content: str | bytes) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")

    def commit(
        self,
        message: str | bytes,
        files: dict[str, str | bytes | None] | None = None,
        author: str = "Ada Lovelace <ada@example.com>",
        days: int = 1,
        allow_empty: bool = False,
    ) -> str:
        """Write ``files`` (None deletes), commit everything with ``message``; return the sha."""
        for path, content in (files or {}).items():
            if content is None:
                (self.root / path).unlink()
            else:
                self.write(path, content)
        self.git("add", "-A")
        self.clock += days * 86_400
        name, email = author[: author.index("<")].strip(), author[author.index("<") + 1 : -1]
        stamp = f"{self.clock} +0000"
        env = {
            "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email, "GIT_COMMITTER_DATE": stamp,
        }
        raw = message if isinstance(message, bytes) else message.encode("utf-8")
        args = ["commit", "-q", "--no-verify", "-F", "-"]
        if allow_empty:
            args.append("--allow-empty")
        self.git(*args, env=env, input=raw)
        sha = self.git("rev-parse", "HEAD")
        self.shas.append(sha)
        return sha

    def mv(self, old: str, new: str) -> None:
        self.git("mv", old, new)


def init_repo(root: Path, branch: str = "main") -> GitRepo:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", branch, str(root)], check=True)
    return GitRepo(root=root)


@pytest.fixture
def make_repo(tmp_path):
    """``make_repo()`` → an empty GitRepo in a fresh temp folder (call ``.commit`` to fill it)."""
    counter = iter(range(1000))

    def factory(name: str | None = None) -> GitRepo:
        return init_repo(tmp_path / (name or f"repo{next(counter)}"))

    return factory


@pytest.fixture
def index_dir(tmp_path) -> Path:
    """A folder for an index, never inside a repository."""
    path = tmp_path / "index"
    return path
