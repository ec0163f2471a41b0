"""``vendored-edit``: a local edit of a file that history keeps as a copy of another project.

A file is such a copy when most of its history is syncs from upstream: of its changes (the index
as of the review), at least ``MIN_SYNCS`` and a share ``MIN_SHARE`` have a subject that names a
folder of its path together with a sync word or a version ("Update urllib3 to 1.7.1", "upstream
urllib3", "urllib3 v1.2.2", "embed chardet"). A change that edits it and is not such a sync itself
(its message) is overwritten by the next sync unless the fix goes upstream: the comment names
the last syncs and, when one of the copy's earlier local edits was reverted, that revert.

Why (recall31's miss study, tune only): 4 of the 18 studied reverted changes of requests that
the engine missed were local edits of its vendored urllib3 (``fix urllib3 bug``, ``Fix SSL3
error on Ubuntu 12.04``, ``replaced deprecated BaseException``, ``Minor Patch TypeError
thrown``), each undone by a revert or the next sync; nothing else in the index said so. Measured
before building (git alone, history before each change): the lead held on 6 of 190 requests
cases and 2 of 250 ordinary changes; express, sinatra, flask and axios keep no such copy.

One comment per copied project per change, on the first changed line of its first file.
Confidence ``BASE``; ``REVERTED_BONUS`` more when a local edit of the copy was reverted before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from whylens.markup import code, inline
from whylens.models import HistoryEntry
from whylens.retrieval.citations import commit_ref
from whylens.retrieval.review_context import ReviewContext
from whylens.retrieval.review_guarded import REVERT_SUBJECT, code_place
from whylens.retrieval.review_hunks import FileView
from whylens.retrieval.text import relative_age
from whylens.symbols.languages import language_for_path

MIN_SYNCS = 3
MIN_SHARE = 0.5
BASE, REVERTED_BONUS = 0.6, 0.1
SHOWN_SYNCS = 2
MIN_NAME = 3  # shorter folder names ("js", "io") are too common in subjects
MAX_FILES = 100
_SYNC_WORD = re.compile(
    r"\b(update[sd]?|updatee|upgraded?|upgrades|bump(ed|s)?|import(ed)?|embed(ded)?|re-?vendor(ed)?|"
    r"vendor(ed)?|sync(ed)?|synchroni[sz]e[sd]?|upstream|new version|new)\b"
    r"|\bv?\d+\.\d+(\.\d+)*\b|\bto [0-9a-f]{7,40}\b", re.I)


def is_sync(subject: str, name: str) -> bool:
    """``subject`` brings in a new copy of ``name`` (a folder name of the copied project)."""
    return bool(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", subject, re.I)) \
        and bool(_SYNC_WORD.search(subject))


def copied_from(path: str, history: list[HistoryEntry]) -> tuple[str, list[HistoryEntry]] | None:
    """The folder name of the project ``path`` is a copy of, and its syncs (newest first), or
    None when the file's history is not mostly syncs."""
    if not code_place(path) or language_for_path(path) is None:
        return None
    entries = {e.commit: e for e in history if not REVERT_SUBJECT.match(e.subject)}
    if len(entries) < MIN_SYNCS:
        return None
    for name in reversed(path.split("/")[:-1]):  # the innermost folder first
        if len(name) < MIN_NAME:
            continue
        syncs = [e for e in entries.values() if is_sync(e.subject, name)]
        if len(syncs) >= MIN_SYNCS and len(syncs) >= MIN_SHARE * len(entries):
            return name, sorted(syncs, key=lambda e: -e.timestamp)
    return None


def check(ctx: ReviewContext, views: list[FileView]) -> None:
    said: set[str] = set()
    for view in views[:MAX_FILES]:
        if not (view.added or view.removed):
            continue
        history = ctx.reader.file_history(view.path)
        found = copied_from(view.path, history)
        if found is None:
            continue
        name, syncs = found
        if name in said or is_sync(ctx.message, name):
            continue
        said.add(name)
        _report(ctx, view, name, syncs, _reverted_edits(ctx, history, syncs))


def _reverted_edits(ctx: ReviewContext, history: Iterable[HistoryEntry],
                    syncs: list[HistoryEntry]) -> list[HistoryEntry]:
    """The copy's own local edits (not syncs) that a standing revert undid, newest first."""
    sync_shas = {e.commit for e in syncs}
    local = {e.commit: e for e in history if e.commit not in sync_shas
             and not REVERT_SUBJECT.match(e.subject)}
    return sorted((e for e in local.values() if ctx.reverted(e.commit)), key=lambda e: -e.timestamp)


def _report(ctx: ReviewContext, view: FileView, name: str, syncs: list[HistoryEntry],
            reverted: list[HistoryEntry]) -> None:
    side, line = ("RIGHT", view.added[0][0]) if view.added else ("LEFT", view.removed[0][0])
    where = view.symbol_at(line) if side == "RIGHT" else view.base_symbol_at(line)
    shown = "; ".join(f"{commit_ref(e.commit, ctx.links)} “{inline(e.subject, 60)}” "
                      f"({relative_age(e.timestamp, ctx.now)})" for e in syncs[:SHOWN_SYNCS])
    body = (f"{code(view.path)} is a copy of {code(name)}: {len(syncs)} of its changes were syncs "
            f"from upstream ({shown}). A local edit here is overwritten by the next sync; make the "
            f"change upstream, or record why the copy differs.")
    if reverted:
        e = reverted[0]
        body += (f" An earlier local edit of it, {commit_ref(e.commit, ctx.links)} "
                 f"“{inline(e.subject, 60)}”, was reverted.")
    evidence = [f"vendored:{name}"] + [e.commit for e in reverted[:1]]
    ctx.add(view.path, line, side, "vendored-edit", body,
            BASE + (REVERTED_BONUS if reverted else 0.0), evidence, where)
