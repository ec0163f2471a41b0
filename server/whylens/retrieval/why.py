"""`why`: the story of the symbol at a line (or named), or of the file when no symbol encloses it.

The symbol is resolved in the working-tree text (the editor's unsaved buffer when given), so a
file that differs from HEAD still finds its symbol by qualified name; history is looked up by that
name. Nothing known is an honest empty Story (``known`` False), never an error.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from whylens.errors import InvalidInputError
from whylens.knowledge.change_told import only_what_changed
from whylens.models import (EVENT_KINDS, PITFALL_TYPES, HistoryEntry, LineChange,
                            Record, Story, Symbol, Unit)
from whylens.records.about import CommitSymbols, claims_about, says_anything
from whylens.retrieval.evidence import anchored_exactly, has_fix_edge, record_outcome, revert_check
from whylens.retrieval.paths import read_source, repo_relative, source_bytes
from whylens.retrieval.reversals import split_current
from whylens.retrieval.said_once import distinct
from whylens.retrieval.suggest import check_known_file, check_known_symbol
from whylens.retrieval.text import relative_age
from whylens.symbols.languages import language_for_path
from whylens.symbols.outline import find, outline, symbol_at
from whylens.symbols.skip import built_file

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader

TYPE_ORDER = {"pattern": 0, "fact": 1, "skill": 2}  # pitfalls first, then constraints, then fixes
# A built file's story is nothing: its commits are the builds and releases that rewrote it.
BUILT_SUMMARY = "a built file: no history shown (see its source)"


def resolve_symbol(rel_path: str, source: bytes | None, line: int | None,
                   name: str | None) -> Symbol | None:
    """The innermost symbol at ``line`` or the one called ``name`` in ``source``."""
    language = language_for_path(rel_path)
    symbols = outline(source, language) if (source and language) else []
    if name:
        found = find(symbols, name) if symbols else None
        # A named symbol that is gone from the file (deleted, renamed away) keeps its history.
        return found or Symbol(name=name, kind="symbol", start_line=0, end_line=0)
    if line is None or not symbols:
        return None
    return symbol_at(symbols, line)


def why(reader: IndexReader, path, line: int | None = None, symbol: str | None = None,
        text: str | bytes | None = None, repo_root=None, *, now: float | None = None) -> Story:
    """The story of ``symbol`` / the symbol at ``line`` in ``path`` (repo-relative or absolute).

    Raises ``UnknownTargetError`` (exit 2, with up to three close names) for a file or symbol
    neither the working tree nor the index knows, ``InvalidInputError`` for a line past the end.
    A known symbol with no history is an honest empty Story.
    """
    if line is not None and (not isinstance(line, int) or line < 1):
        raise InvalidInputError(f"line {line!r} is not a line number (lines start at 1)")
    if symbol is not None and not str(symbol).strip():
        raise InvalidInputError("an empty symbol name; pass --symbol NAME")
    rel_path = repo_relative(path, repo_root)
    source = source_bytes(text) if text is not None else read_source(repo_root, rel_path)
    if source is None:
        check_known_file(reader, rel_path, repo_root)
    elif line is not None and line > line_count(source):
        raise InvalidInputError(f"line {line} is past the end of {rel_path} "
                                f"({line_count(source)} lines)")
    target = resolve_symbol(rel_path, source, line, symbol.strip() if symbol else None)
    if symbol and target is not None and not target.start_line:
        check_known_symbol(reader, rel_path, target.name, source)
    clock = time.time() if now is None else now
    if target is None:
        return file_story(reader, rel_path, now=clock)
    return symbol_story(reader, rel_path, target, now=clock, line=line)


def line_count(source: bytes) -> int:
    """Lines an editor shows (an empty file has one)."""
    return max(1, source.count(b"\n") + (0 if source.endswith(b"\n") else 1))


def symbol_story(reader: IndexReader, rel_path: str, target: Symbol, *, now: float,
                 line: int | None = None) -> Story:
    """Everything current about ``target``, what was undone, and (``line``) the change behind
    that line when the index can say (``IndexReader.line_blame``). A built or bundled file
    (``symbols.skip.built_file``) has none: an empty Story that says so."""
    if built_file(rel_path):
        return _built(rel_path, target)
    history = _newest_first(reader.symbol_history(target.name, path=rel_path, formatting=True))
    units = sort_units(reader.units_for_symbol(target.name, path=rel_path))
    candidates = list(reader.records_for_symbol(target.name, path=rel_path))
    anchored = select_records(candidates, target.name, history, _commit_symbols(reader))
    outcomes = {r.id: record_outcome(reader, r, candidates) for r in anchored}
    records, current, reversals = split_current(reader, anchored, outcomes, units,
                                                revert_check(reader))
    shown_units, shown_records = distinct(current, records)  # each thing once, counted once
    story = Story(path=rel_path, symbol=target, history=history, units=shown_units,
                  records=shown_records, outcomes=tuple(outcomes.items()),
                  reversals=tuple(reversals),
                  line_change=line_change(reader, rel_path, line, units, anchored))
    return _with_summary(split_notes(story), now)


def split_notes(story: Story) -> Story:
    """The story with its notes apart: a constraint or fix that only tells what its change did
    (``change_told``) is a note on that change's history line, when the history lists the
    change (``Story.changes``). A pitfall stays one (a failure mode by its type; the lens and
    ``stats`` count it)."""
    changed = {e.commit for e in story.changes}
    notes = tuple(u for u in story.units if u.type not in PITFALL_TYPES and u.commit in changed
                  and only_what_changed(u.content or u.title))
    return replace(story, units=tuple(u for u in story.units if u not in notes), notes=notes)


def line_change(reader: IndexReader, rel_path: str, line: int | None, units, records
                ) -> LineChange | None:
    """The commit that last substantively changed ``line`` (blame without reformat, lint or
    ignore-revs commits: the index's ``line_blame``), with this symbol's knowledge from it."""
    if line is None:
        return None
    entry = reader.line_blame(rel_path, line)  # None in an index without blame rows
    if entry is None:
        return None
    own = tuple(u for u in units if u.commit == entry.commit)
    record = next((r for r in records if entry.commit in r.fixing_commits), None)
    return LineChange(line, entry, own, record)


def file_story(reader: IndexReader, rel_path: str, *, now: float) -> Story:
    if built_file(rel_path):
        return _built(rel_path, None)
    history = _newest_first(reader.file_history(rel_path))
    return _with_summary(Story(path=rel_path, symbol=None, history=history), now)


def select_records(records: Iterable[Record], qualified: str,
                   history: Iterable[HistoryEntry] = (),
                   commit_symbols: CommitSymbols = lambda sha: ()) -> tuple[Record, ...]:
    """The symbol's decisions, newest first, each with only the claims that explain this
    symbol (``records.about``: from commits that changed it — ``history`` — and confident
    enough): a fix edge, an anchor on ``qualified`` itself (housekeeping work is never
    anchored), and something left to say — work known only by its title is a change in the
    history, not a decision."""
    changes = {e.commit: e.kind for e in history if e.kind in EVENT_KINDS and e.kind != "deleted"}
    kept = []
    for record in records:
        if not (has_fix_edge(record) and anchored_exactly(record, qualified)):
            continue
        about = claims_about(record, qualified, changes, commit_symbols)
        if says_anything(about):
            kept.append(about)
    kept.sort(key=lambda r: r.date or "", reverse=True)
    return tuple(kept)


def _commit_symbols(reader: IndexReader) -> CommitSymbols:
    """The symbols a commit changed, read from the index once per commit."""
    cache: dict[str, list[str]] = {}

    def symbols(sha: str) -> list[str]:
        if sha not in cache:
            cache[sha] = [e.symbol for e in reader.events_of(sha) if e.kind != "deleted"]
        return cache[sha]

    return symbols


def sort_units(units: Iterable[Unit]) -> tuple[Unit, ...]:
    """Grouped by type (pattern, fact, skill), newest first inside a type; one per id."""
    unique = {u.id: u for u in units}
    by_date = sorted(unique.values(), key=lambda u: u.date or "", reverse=True)
    return tuple(sorted(by_date, key=lambda u: TYPE_ORDER.get(u.type, 9)))


def _newest_first(entries: Iterable[HistoryEntry]) -> tuple[HistoryEntry, ...]:
    unique = {(e.commit, e.symbol, e.path, e.kind): e for e in entries}
    return tuple(sorted(unique.values(), key=lambda e: e.timestamp, reverse=True))


def summarize(story: Story, now: float) -> str:
    """"changed 7× by 3 authors, last 2 months ago; 2 pitfalls known; 3 decisions" (or the
    honest nothing). The numbers are ``story.counts``: what the lens and ``stats`` say too."""
    if not story.known:
        return "no recorded history"
    counts = story.counts
    parts: list[str] = []
    commits = {e.commit: e for e in story.changes}
    if commits:
        authors = {e.author for e in commits.values()}
        newest = max(commits.values(), key=lambda e: e.timestamp)
        n = len(authors)
        parts.append(f"changed {counts.changes}× by {n} author{'s' if n != 1 else ''}, "
                     f"last {relative_age(newest.timestamp, now)}")
    else:
        parts.append("no recorded changes")
    if counts.pitfalls:
        parts.append(f"{counts.pitfalls} pitfall{'s' if counts.pitfalls != 1 else ''} known")
    if counts.records:
        parts.append(f"{counts.records} decision{'s' if counts.records != 1 else ''}")
    return "; ".join(parts)


def _built(rel_path: str, target: Symbol | None) -> Story:
    return Story(path=rel_path, symbol=target, summary=BUILT_SUMMARY)


def _with_summary(story: Story, now: float) -> Story:
    return replace(story, summary=summarize(story, now))
