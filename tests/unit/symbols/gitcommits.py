"""Commits as models, read with plain git (independent of ``whylens.history``)."""

from __future__ import annotations

import re
import subprocess

from whylens.models import Commit, FileChange, Hunk

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)


def commit_of(repo, sha: str) -> Commit:
    """One commit with its file changes (``-M`` renames) and ``-U0`` hunks."""
    out = repo.git("diff-tree", "-r", "-M", "--root", "--raw", "--no-abbrev", "-p", "-U0",
                   "--no-color", "--no-ext-diff", "--format=", sha)
    raws = [line for line in out.splitlines() if line.startswith(":")]
    patches = ("\n" + out).split("\ndiff --git ")[1:]
    changes = []
    for raw, patch in zip(raws, patches):
        meta, *paths = raw.split("\t")
        _, _, old, new, status = meta.split()
        letter = status[0]
        hunks = tuple(
            Hunk(int(m[1]), int(m[2] or 1), int(m[3]), int(m[4] or 1))
            for m in _HUNK.finditer(patch)
        )
        changes.append(FileChange(
            path=paths[-1], status=letter,
            old_path=paths[0] if letter in "RC" else None,
            old_blob=None if set(old) == {"0"} else old,
            new_blob=None if set(new) == {"0"} else new,
            hunks=hunks, binary="Binary files" in patch,
        ))
    parents = tuple(repo.git("rev-list", "--parents", "-n1", sha).split()[1:])
    return Commit(sha=sha, parents=parents, author="Ada", email="ada@example.com",
                  timestamp=0, date="", subject="", changes=tuple(changes))


def blob_reader(repo):
    """``read_blob`` for an Anchorer: ``git cat-file blob``."""
    def read(sha: str) -> bytes | None:
        done = subprocess.run(["git", "cat-file", "blob", sha], cwd=repo.root,
                              capture_output=True)
        return done.stdout if done.returncode == 0 else None
    return read


def events_by_commit(repo, anchorer, shas=None) -> dict[str, list[tuple[str, str, str | None]]]:
    """Anchor ``shas`` (default: all commits), newest first; → sha → [(symbol, kind, previous)]."""
    shas = list(shas or repo.shas)
    result = {}
    for sha in reversed(shas):
        result[sha] = sorted((e.symbol, e.kind, e.previous) for e in anchorer.events(
            commit_of(repo, sha)))
    return result


def walked(repo, ignore_revs=None) -> list[Commit]:
    """Every commit as ``whylens.history.walk`` streams it (patch text kept), newest first."""
    from whylens.history.repo import open_repository
    from whylens.history.walk import walk
    from whylens.symbols.languages import language_for_path

    with open_repository(repo.root) as opened:
        return list(walk(opened, "HEAD", ignore_revs=ignore_revs,
                         keep_patch=lambda path: language_for_path(path) is not None))


def events_of_walk(commits, anchorer) -> dict[str, list[tuple[str, str, str | None]]]:
    """Anchor walked commits (newest first) → sha → sorted [(symbol, kind, previous)]."""
    return {c.sha: sorted((e.symbol, e.kind, e.previous) for e in anchorer.events(c))
            for c in commits}
