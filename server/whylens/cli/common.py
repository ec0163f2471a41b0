"""What every command shares: --repo/--index-dir, finding the index, opening a reader."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from whylens.errors import IndexMissingError
from whylens.history.links import WebLinks
from whylens.index.store import IndexStore
from whylens.locate import RepoLocation, locate
from whylens.retrieval.citations import web_links_from_meta

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader


def add_repo_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", default=".", help="the repository (work tree, any folder in it, "
                        "or a bare repository; default: the current folder)")
    parser.add_argument("--index-dir", help="where the index lives (default: the user cache folder)")


def location(args: argparse.Namespace) -> RepoLocation:
    """The repository of ``--repo`` and the index folder (``--index-dir`` or its default)."""
    return locate(args.repo, getattr(args, "index_dir", None))


def index_store(args: argparse.Namespace) -> IndexStore:
    """The index of ``args``: ``--index-dir`` as given (no git needed), else the repository's."""
    explicit = getattr(args, "index_dir", None)
    return IndexStore(Path(explicit) if explicit else location(args).index_dir)


@contextlib.contextmanager
def open_reader(args: argparse.Namespace, where: RepoLocation | None = None
                ) -> Iterator[IndexReader]:
    """A read-only reader over the index of ``args`` (of ``where`` when the caller has located
    the repository already); a clear error when there is none."""
    store = IndexStore(where.index_dir) if where is not None else index_store(args)
    if not store.exists():
        raise IndexMissingError(str(store.path))
    reader = store.reader()
    try:
        yield reader
    finally:
        reader.close()


def web_links(reader: IndexReader) -> WebLinks | None:
    """Commit / PR / issue URL builder from what the index recorded about the remote, or None."""
    return web_links_from_meta(reader.meta)
