"""Builders for index tests: commits and units that look like what the pipeline produces."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

import pytest

from whylens.models import Commit, FileChange, Unit

BASE = 1_700_000_000


def sha_of(label: str) -> str:
    return hashlib.sha1(label.encode()).hexdigest()


def iso(ts: int) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat()


def commit(label: str, day: int, subject: str = "", files=(), renames=(), author="Ada Lovelace",
           skip_reason=None, pr=None) -> Commit:
    """``renames`` are (old, new) pairs; ``files`` are modified paths."""
    changes = tuple(FileChange(path=f, status="M") for f in files)
    changes += tuple(FileChange(path=new, status="R", old_path=old) for old, new in renames)
    ts = BASE + day * 86_400
    return Commit(sha=sha_of(label), parents=(), author=author, email="a@example.com",
                  timestamp=ts, date=iso(ts), subject=subject or label, changes=changes,
                  skip_reason=skip_reason, pr=pr)


def unit(uid: str, c: Commit, title: str, content: str, type: str = "fact", weight: float = 0.8,
         symbols=(), files=None) -> Unit:
    return Unit(id=uid, type=type, title=title, content=content, weight=weight, context=content,
                commit=c.sha, author=c.author, date=c.date,
                files=tuple(files if files is not None else (ch.path for ch in c.changes)),
                symbols=tuple(symbols))


@pytest.fixture
def build():
    class Builders:
        pass

    b = Builders()
    b.commit, b.unit, b.sha = commit, unit, sha_of
    return b
