"""Helpers for records tests: mine a real repository, merge branches with fixed dates."""

from __future__ import annotations

import pytest

from whylens.history.repo import open_repository
from whylens.history.walk import walk


def mine(repo) -> list:
    """Every commit of ``repo`` (a conftest GitRepo), newest first, as the pipeline sees them."""
    with open_repository(repo.root) as opened:
        return list(walk(opened, "HEAD"))


def merge(repo, branch: str, message: str, author: str = "Grace Hopper <grace@example.com>") -> str:
    """``git merge --no-ff branch`` into the current branch with a fixed author and date."""
    repo.clock += 86_400
    name, email = author[: author.index("<")].strip(), author[author.index("<") + 1 : -1]
    stamp = f"{repo.clock} +0000"
    env = {
        "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email, "GIT_COMMITTER_DATE": stamp,
    }
    repo.git("merge", "-q", "--no-ff", "-m", message, branch, env=env)
    sha = repo.git("rev-parse", "HEAD")
    repo.shas.append(sha)
    return sha


@pytest.fixture
def mined():
    return mine
