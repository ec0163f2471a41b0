"""Unknown input: a file or symbol that neither the working tree nor the index knows is an error
with up to three close names (``difflib``), never an empty "no recorded history"."""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from whylens.errors import UnknownTargetError
from whylens.symbols.languages import language_for_path
from whylens.symbols.outline import outline

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader

MAX_SUGGESTIONS = 3
MAX_FILES_LISTED = 50_000  # a huge tree is listed this far for suggestions, no further
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".tox", "dist", "build",
              "target", ".mypy_cache", ".pytest_cache"}


def check_known_file(reader: IndexReader, rel_path: str, repo_root) -> None:
    """Raise ``UnknownTargetError`` unless the index has history for ``rel_path`` (a deleted file
    keeps its story)."""
    if reader.file_history(rel_path):
        return
    names = list(_tree_files(repo_root)) if repo_root is not None else []
    raise UnknownTargetError("file", rel_path, "the working tree or the index",
                             close_names(rel_path, names))


def check_known_symbol(reader: IndexReader, rel_path: str, name: str, source: bytes | None) -> None:
    """Raise ``UnknownTargetError`` for a symbol that is not in the file and has no history there
    (a symbol deleted or renamed away keeps its story)."""
    known = set(reader.knowledge_counts(rel_path))
    if name in known or reader.symbol_history(name, path=rel_path) or \
            reader.units_for_symbol(name, path=rel_path):
        return
    language = language_for_path(rel_path)
    if source and language:
        known.update(s.name for s in outline(source, language))
    raise UnknownTargetError("symbol", name, rel_path, close_names(name, sorted(known)))


def close_names(name: str, candidates: list[str]) -> list[str]:
    """Up to three candidates closest to ``name``: by the whole name, then by its last part."""
    found = difflib.get_close_matches(name, candidates, n=MAX_SUGGESTIONS, cutoff=0.6)
    if len(found) < MAX_SUGGESTIONS:
        tail = name.replace("::", ".").rsplit(".", 1)[-1].rsplit("/", 1)[-1].lower()
        by_tail = {c.replace("::", ".").rsplit(".", 1)[-1].rsplit("/", 1)[-1].lower(): c
                   for c in candidates}
        for match in difflib.get_close_matches(tail, list(by_tail), n=MAX_SUGGESTIONS, cutoff=0.7):
            if by_tail[match] not in found:
                found.append(by_tail[match])
    return found[:MAX_SUGGESTIONS]


def _tree_files(repo_root) -> list[str]:
    root = Path(repo_root)
    out: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        base = Path(folder).relative_to(root)
        out.extend((base / f).as_posix() for f in sorted(files))
        if len(out) >= MAX_FILES_LISTED:
            break
    return out
