"""What every command shares: --repo/--index-dir, finding the index, opening a reader."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from whylens.errors import IndexMissingError, NotARepositoryError
from whylens.index.location import default_index_dir
from whylens.index.store import IndexStore
from whylens.retrieval.citations import web_links_from_meta


def add_repo_args(parser) -> None:
    parser.add_argument("--repo", default=".", help="the repository (work tree, any folder in it, "
                        "or a bare repository; default: the current folder)")
    parser.add_argument("--index-dir", help="where the index lives (default: the user cache folder)")


def find_repo_root(path: str | os.PathLike) -> Path:
    """The work tree root (or the git dir of a bare repository) without starting git.

    Reading commands use this so they don't pay for importing GitPython; it must agree with
    ``history.repo.Repository.root`` so both find the same default index folder.
    """
    start = Path(path).resolve()
    if not start.exists():
        raise NotARepositoryError(str(path))
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
        if (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir():
            return folder  # a bare repository (or the .git folder itself)
    raise NotARepositoryError(str(path))


def index_store(args) -> IndexStore:
    if getattr(args, "index_dir", None):
        return IndexStore(Path(args.index_dir))
    return IndexStore(default_index_dir(find_repo_root(args.repo)))


@contextlib.contextmanager
def open_reader(args):
    """A read-only reader over the index of ``args``; a clear error when there is none."""
    store = index_store(args)
    if not store.exists():
        raise IndexMissingError(str(store.path))
    reader = store.reader()
    try:
        yield reader
    finally:
        reader.close()


def web_links(reader):
    """Commit / PR / issue URL builder from what the index recorded about the remote, or None."""
    return web_links_from_meta(reader.meta)
