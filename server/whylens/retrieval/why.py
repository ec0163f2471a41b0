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
from whylens.models import HistoryEntry, Record, Story, Symbol, Unit
from whylens.retrieval.evidence import anchored_exactly, has_fix_edge, record_outcome
from whylens.retrieval.paths import read_source, repo_relative, source_bytes
from whylens.retrieval.text import relative_age
from whylens.symbols.languages import language_for_path
from whylens.symbols.outline import find, outline, symbol_at

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader

MAX_RECORDS = 2  # a story shows at most this many decision records, newest first
TYPE_ORDER = {"pattern": 0, "fact": 1, "skill": 2}  # pitfalls first, then constraints, then fixes


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
    """The story of ``symbol`` / the symbol at ``line`` in ``path`` (repo-relative or absolute)."""
    if line is not None and (not isinstance(line, int) or line < 1):
        raise InvalidInputError(f"line {line!r} is not a line number (lines start at 1)")
    if symbol is not None and not str(symbol).strip():
        raise InvalidInputError("an empty symbol name; pass --symbol NAME")
    rel_path = repo_relative(path, repo_root)
    source = source_bytes(text) if text is not None else read_source(repo_root, rel_path)
    target = resolve_symbol(rel_path, source, line, symbol.strip() if symbol else None)
    clock = time.time() if now is None else now
    if target is None:
        return file_story(reader, rel_path, now=clock)
    return symbol_story(reader, rel_path, target, now=clock)


def symbol_story(reader: IndexReader, rel_path: str, target: Symbol, *, now: float) -> Story:
    history = _newest_first(reader.symbol_history(target.name, path=rel_path))
    units = sort_units(reader.units_for_symbol(target.name, path=rel_path))
    candidates = list(reader.records_for_symbol(target.name, path=rel_path))
    records = select_records(candidates, target.name)
    outcomes = tuple((r.id, record_outcome(reader, r, candidates)) for r in records)
    story = Story(path=rel_path, symbol=target, history=history, units=units, records=records,
                  outcomes=outcomes)
    return _with_summary(story, now)


def file_story(reader: IndexReader, rel_path: str, *, now: float) -> Story:
    history = _newest_first(reader.file_history(rel_path))
    return _with_summary(Story(path=rel_path, symbol=None, history=history), now)


def select_records(records: Iterable[Record], qualified: str) -> tuple[Record, ...]:
    """At most two, newest first, each with a fix edge and an anchor on ``qualified`` itself."""
    kept = [r for r in records if has_fix_edge(r) and anchored_exactly(r, qualified)]
    kept.sort(key=lambda r: r.date or "", reverse=True)
    return tuple(kept[:MAX_RECORDS])


def sort_units(units: Iterable[Unit]) -> tuple[Unit, ...]:
    """Grouped by type (pattern, fact, skill), newest first inside a type; one per id."""
    unique = {u.id: u for u in units}
    by_date = sorted(unique.values(), key=lambda u: u.date or "", reverse=True)
    return tuple(sorted(by_date, key=lambda u: TYPE_ORDER.get(u.type, 9)))


def _newest_first(entries: Iterable[HistoryEntry]) -> tuple[HistoryEntry, ...]:
    unique = {(e.commit, e.symbol, e.path, e.kind): e for e in entries}
    return tuple(sorted(unique.values(), key=lambda e: e.timestamp, reverse=True))


def summarize(story: Story, now: float) -> str:
    """"changed 7× by 3 authors, last 2 months ago; 2 pitfalls known" (or the honest nothing)."""
    if not story.known:
        return "no recorded history"
    parts: list[str] = []
    commits = {e.commit: e for e in story.history}
    if commits:
        authors = {e.author for e in commits.values()}
        newest = max(commits.values(), key=lambda e: e.timestamp)
        n = len(authors)
        parts.append(f"changed {len(commits)}× by {n} author{'s' if n != 1 else ''}, "
                     f"last {relative_age(newest.timestamp, now)}")
    else:
        parts.append("no recorded changes")
    # Pitfalls and constraints (Pattern + Fact), counted as the code lens counts them.
    pitfalls = sum(1 for u in story.units if u.type in ("pattern", "fact"))
    if pitfalls:
        parts.append(f"{pitfalls} pitfall{'s' if pitfalls != 1 else ''} known")
    if story.records:
        n = len(story.records)
        parts.append(f"{n} decision{'s' if n != 1 else ''}")
    return "; ".join(parts)


def _with_summary(story: Story, now: float) -> Story:
    return replace(story, summary=summarize(story, now))
