"""Workspace folders → repositories, their index folders and open index readers.

No GitPython here (the server is a long-running process): the repository is found by
``whylens.locate`` (``git rev-parse``) and new commits are noticed by reading ``HEAD`` and the ref
it points to.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from whylens.errors import WhyLensError
from whylens.history.links import WebLinks
from whylens.index.store import IndexStore
from whylens.locate import RepoLocation
from whylens.retrieval.citations import web_links_from_meta

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader

log = logging.getLogger(__name__)


def index_dir_for(where: RepoLocation, override: str | None) -> Path:
    """The editor's index folder (``indexDirectory``: a base folder) with one subfolder per
    repository, always: one folder set in the user's settings serves every window, and two
    repositories never share (and wipe) one index. Else the locator's default folder, the one
    the CLI uses."""
    if override:
        base = Path(os.path.expanduser(override))
        if not base.is_absolute() or base.resolve().is_relative_to(where.root):
            # Read-only on the repository: a relative or in-repo index would be written into it.
            log.warning("ignoring whylens.index.directory %r: it must be an absolute path "
                        "outside the repository", override)
        else:
            return base / where.index_dir.name  # <name>-<sha1(real path)[:12]>
    return where.index_dir


def head_signature(git_dir: Path) -> tuple:
    """Cheap fingerprint of what HEAD points to; it changes when a commit lands."""
    common = git_dir
    commondir = git_dir / "commondir"
    if commondir.is_file():  # a linked worktree keeps refs in the main git dir
        common = (git_dir / commondir.read_text().strip()).resolve()
    parts: list = []
    try:
        head = (git_dir / "HEAD").read_text(errors="replace").strip()
    except OSError:
        return ("missing",)
    parts.append(head)
    if head.startswith("ref:"):
        ref = head[4:].strip()
        for base in (git_dir, common):
            try:
                parts.append((base / ref).read_text(errors="replace").strip())
                break
            except OSError:
                continue
    try:
        stat = (common / "packed-refs").stat()
        parts.append((stat.st_mtime_ns, stat.st_size))
    except OSError:
        parts.append(None)
    return tuple(parts)


@dataclass
class RepoWorkspace:
    """One repository the server answers for, with its (possibly absent) open index."""

    folder_uri: str
    root: Path
    git_dir: Path
    index_dir: Path
    reader: IndexReader | None = None
    links: WebLinks | None = None
    generation: int = 0  # bumps whenever the reader is replaced
    signature: tuple[object, ...] = ()  # head_signature() when the last run started
    generation_dir: Path | None = None  # the index generation the reader has open
    _counts: tuple[int, tuple[int, int]] | None = None  # (generation, (units, records))

    @property
    def name(self) -> str:
        return self.root.name

    def relative(self, path: Path) -> str | None:
        """``path`` as a posix path relative to the root; None when it is outside."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return None

    def reopen(self) -> bool:
        """Replace the reader with a fresh one (never keep a stale searcher). True when open."""
        old, self.reader = self.reader, None
        self.generation += 1
        if old is not None:
            try:
                old.close()
            except Exception:
                log.debug("closing the previous reader failed", exc_info=True)
        store = IndexStore(self.index_dir)
        self.generation_dir = None  # a broken pointer must not look "moved" on every poll
        try:
            self.generation_dir = store.current_generation()
            if self.generation_dir is None:
                return False
            self.reader = store.reader()
        except WhyLensError as exc:
            log.warning("%s: %s", self.name, exc)
            return False
        self.links = web_links_from_meta(self.reader.meta)
        return True

    def index_moved(self) -> bool:
        """True when the index folder no longer holds what the reader has open (rebuilt by
        another process, or deleted): the reader must be reopened."""
        try:
            current = IndexStore(self.index_dir).current_generation()
        except WhyLensError:
            current = None
        return current != self.generation_dir

    def drop_reader(self) -> None:
        if self.reader is not None:
            try:
                self.reader.close()
            except Exception:
                log.debug("closing the reader failed", exc_info=True)
        self.reader = None
        self.generation += 1

    def counts(self) -> tuple[int, int]:
        """(units, records) in the open index, for the status item (cached per reader)."""
        if self.reader is None:
            return 0, 0
        if self._counts is None or self._counts[0] != self.generation:
            try:  # not ``stats()``: it scans the events and blame tables, on every update
                found = self.reader.totals()
            except Exception:
                log.debug("stats failed", exc_info=True)
                found = (0, 0)
            self._counts = (self.generation, found)
        return self._counts[1]


class Workspaces:
    """All repositories of the session; finds the one a path belongs to."""

    def __init__(self) -> None:
        self.items: list[RepoWorkspace] = []

    def add(self, ws: RepoWorkspace) -> RepoWorkspace:
        for existing in self.items:
            if existing.root == ws.root:
                return existing
        self.items.append(ws)
        return ws

    def remove(self, folder_uri: str) -> list[RepoWorkspace]:
        gone = [ws for ws in self.items if ws.folder_uri == folder_uri]
        self.items = [ws for ws in self.items if ws.folder_uri != folder_uri]
        return gone

    def for_path(self, path: Path) -> tuple[RepoWorkspace, str] | None:
        """The innermost repository containing ``path`` and the path relative to it."""
        best: tuple[RepoWorkspace, str] | None = None
        for ws in self.items:
            rel = ws.relative(path)
            if rel is not None and (best is None or len(ws.root.parts) > len(best[0].root.parts)):
                best = (ws, rel)
        return best

    def default(self) -> RepoWorkspace | None:
        """The first repository with an open index (else the first one)."""
        ready = [ws for ws in self.items if ws.reader is not None]
        return next(iter(ready or self.items), None)
