"""A diff → review suggestions grounded in the history of the code it touches.

For every changed hunk: the symbols it lands in (at head), then four checks, each with a reason:

- ``reverted-before``: an earlier change to this symbol was reverted (or its record was), and
  that revert is recent or the added lines share names / words with it;
- ``reintroduces-pitfall``: the added lines use distinctive code a Pattern unit anchored to this
  symbol, or to another symbol of the same file, names (best: inside a code span);
- ``constraint``: a Fact anchored to this symbol states a rule (must / never / ensure …) and
  shares names or words with the added lines;
- ``decision-context``: a record anchored to this symbol rejected what the added lines name, or
  its decision names what they change.

Confidence per check is set out next to it. ``GATE`` drops the rest; it was tuned on the replay
benchmark (bench/replay_review.py, hand labels in bench/labels/review-requests.tsv) to keep
precision high: a revert on the same symbol years ago, with nothing in common with the change,
is noise, not a review comment. ``cap`` keeps the best; one point (path, line, side) or one
piece of evidence never gets two suggestions.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from whylens.markup import code, inline
from whylens.models import FileChange, Record, Suggestion, Symbol, Unit
from whylens.retrieval.citations import (
    change_ref, commit_ref, record_ref, web_links_from_meta,
)
from whylens.retrieval.evidence import (
    anchored_exactly, has_fix_edge, item_text, record_outcome, reverting_commits,
)
from whylens.retrieval.text import (
    CODE_WORDS, code_span_identifiers, content_words, identifier_hits, identifiers,
    split_identifier,
)
from whylens.symbols.languages import language_for_path
from whylens.symbols.outline import outline, symbol_at
from whylens.symbols.skip import MAX_SOURCE_BYTES

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader

GATE = 0.6
DEFAULT_CAP = 10
MAX_HISTORY = 60  # history entries checked for reverts per symbol (newest first)
MAX_NEIGHBOURS = 30  # symbols of the same file whose pitfalls are matched against added lines


@dataclass(frozen=True)
class ChangedSymbol:
    path: str
    symbol: Symbol | None  # None: the change is outside any symbol
    line: int  # the first changed line, where a comment goes
    side: str  # RIGHT (added/changed lines) or LEFT (a pure deletion)
    added: str  # the added lines' text inside this symbol


def changed_symbols(change: FileChange, head_text: str | None) -> list[ChangedSymbol]:
    """Hunks → the innermost symbols they land in at head, with the added lines of each."""
    if change.binary or head_text is None:
        return []
    lines = head_text.splitlines()
    data = head_text.encode("utf-8", "replace")
    language = language_for_path(change.path)
    symbols = outline(data, language) if language and len(data) <= MAX_SOURCE_BYTES else []
    found: dict[str | None, ChangedSymbol] = {}
    added: dict[str | None, list[str]] = {}
    for hunk in change.hunks:
        if hunk.new_count == 0:  # a pure deletion: the comment goes on the old side
            anchor = max(1, hunk.new_start)
            sym = symbol_at(symbols, anchor) if symbols else None
            key = sym.name if sym else None
            found.setdefault(key, ChangedSymbol(change.path, sym, max(1, hunk.old_start), "LEFT", ""))
            continue
        for number in range(hunk.new_start, hunk.new_start + hunk.new_count):
            sym = symbol_at(symbols, number) if symbols else None
            key = sym.name if sym else None
            if key not in found or found[key].side == "LEFT":
                found[key] = ChangedSymbol(change.path, sym, number, "RIGHT", "")
            if 0 < number <= len(lines):
                added.setdefault(key, []).append(lines[number - 1])
    return [
        ChangedSymbol(c.path, c.symbol, c.line, c.side, "\n".join(added.get(key, [])))
        for key, c in found.items()
    ]


RECENT_DAYS = 180  # a revert this close to the reviewed change is worth a word on its own
NORMATIVE = re.compile(
    r"\b(must|never|always|should|shouldn't|required?|requires|needs? to|has to|have to|ensure"
    r"|don't|do not|cannot|can't|only if|only when|is not allowed|not allowed)\b", re.I)


@dataclass(frozen=True)
class Relevance:
    """What the added lines share with a piece of knowledge (beyond the symbol's own name)."""

    names: tuple[str, ...]  # distinctive identifiers both mention
    words: tuple[str, ...]  # content words both use

    @property
    def relevant(self) -> bool:
        return bool(self.names) or len(self.words) >= 3


def relevance(texts: Iterable[str], where: ChangedSymbol) -> Relevance:
    own = {where.symbol.name.lower(), where.symbol.short_name.lower()} if where.symbol else set()
    own_parts = set(split_identifier(where.symbol.name)) if where.symbol else set()
    text = "\n".join(t for t in texts if t)
    added_ids = identifiers(where.added, distinct_only=True) - own
    names = identifier_hits(identifiers(text, distinct_only=True) - own, added_ids)
    words = (content_words(text) & content_words(where.added)) - own_parts - CODE_WORDS
    return Relevance(tuple(names), tuple(sorted(words)))


class _Engine:
    def __init__(self, reader: IndexReader, now: float) -> None:
        self.reader = reader
        self.now = now
        self.links = web_links_from_meta(getattr(reader, "meta", None))
        self.out: list[Suggestion] = []

    def add(self, where: ChangedSymbol, kind: str, body: str, confidence: float,
            evidence: Iterable[str]) -> None:
        self.out.append(Suggestion(
            path=where.path, line=where.line, side=where.side, kind=kind, body=body,
            confidence=round(min(confidence, 0.99), 3), evidence=tuple(evidence),
            symbol=where.symbol.name if where.symbol else None,
        ))

    def recent(self, timestamp: int) -> bool:
        return 0 <= self.now - timestamp <= RECENT_DAYS * 86_400

    # --- the four checks -------------------------------------------------------------------

    def reverted_before(self, where: ChangedSymbol, name: str, history, units: list[Unit]) -> None:
        """0.45, +0.25 when the added lines share names or words with the reverted change or its
        revert, +0.1 when the revert is recent (≤ 180 days before the newest indexed commit).
        Recency alone stays under the gate: on the replay labels 4 of 23 such were useful."""
        for entry in history[:MAX_HISTORY]:
            reverts = reverting_commits(self.reader, entry.commit)
            if not reverts:
                continue
            revert = reverts[0]
            info = self.reader.commit_info(revert)
            texts = [entry.subject, info.subject if info else ""]
            texts += [item_text(u) for u in units if u.commit in (entry.commit, revert)]
            rel = relevance(texts, where)
            stamp = info.timestamp if info else entry.timestamp
            confidence = 0.45 + (0.1 if self.recent(stamp) else 0) + (0.25 if rel.relevant else 0)
            shared = f" It touches the same {_shared(rel)}." if rel.relevant else ""
            body = (f"An earlier change to {code(name)} was reverted: “{inline(entry.subject, 100)}” "
                    f"{change_ref(entry.commit, entry.pr, self.links)} was undone by "
                    f"{commit_ref(revert, self.links)}.{shared} Check that this change does not "
                    "bring back what made it fail.")
            self.add(where, "reverted-before", body, confidence, (entry.commit, revert))
            return  # the newest reverted change speaks for the symbol

    def reintroduces(self, where: ChangedSymbol, patterns: list[tuple[Unit, bool]]) -> None:
        """Added lines use code a Pattern names: inside a code span (`pool.get()`) a name weighs
        0.3, in prose 0.1 (two names at most); anchored to this very symbol +0.1. Only
        distinctive names count (dotted, snake_case, camelCase; never an exception class)."""
        added_ids = identifiers(where.added, distinct_only=True)
        if not added_ids:
            return
        for unit, own in patterns:
            spans = code_span_identifiers(unit.context)
            hits = identifier_hits(identifiers(item_text(unit), distinct_only=True) | spans,
                                   added_ids)
            if not hits:
                continue
            strong = [h for h in hits if h in spans]
            weights = sorted((0.3 if h in strong else 0.1 for h in hits), reverse=True)[:2]
            confidence = 0.35 + sum(weights) + (0.1 if own else 0.0)
            names = ", ".join(code(h) for h in (strong or hits)[:3])
            scope = "this symbol" if own else code(", ".join(unit.symbols[:2]) or unit.files[0])
            body = (f"This adds {names}, which a known pitfall of {scope} names: "
                    f"“{inline(unit.content or unit.title, 160)}” "
                    f"({change_ref(unit.commit, unit.pr, self.links)}). "
                    "Make sure the earlier failure does not come back.")
            self.add(where, "reintroduces-pitfall", body, confidence, (unit.id, unit.commit))

    def constraints(self, where: ChangedSymbol, facts: list[Unit]) -> None:
        """A Fact that states a rule (must / never / always / ensure …) and shares names or
        words with the added lines: 0.4 + 0.15 per shared name (two) + 0.15 for three shared
        words, so it takes two signals (a name alone was noise on every replay label)."""
        for fact in facts:
            text = item_text(fact)
            if not NORMATIVE.search(text):
                continue  # a description of a change, not a rule it must keep
            rel = relevance([text], where)
            if not rel.relevant:
                continue
            confidence = 0.4 + 0.15 * min(len(rel.names), 2) + (0.15 if len(rel.words) >= 3 else 0)
            body = (f"A constraint recorded for {code(where.symbol.name if where.symbol else where.path)}: "
                    f"“{inline(fact.content or fact.title, 180)}” "
                    f"({change_ref(fact.commit, fact.pr, self.links)}). Does this change keep it?")
            self.add(where, "constraint", body, confidence, (fact.id, fact.commit))

    def decisions(self, where: ChangedSymbol, name: str, records: list[Record]) -> None:
        """A reverted record scores like ``reverted_before``; a rejected alternative the added
        lines name 0.7 (+0.1 per name); a decision whose names the added lines change 0.55+."""
        for record in records:
            outcome = record_outcome(self.reader, record, records)
            ref = record_ref(record, self.links)
            if outcome == "reverted":
                rel = relevance([record.title, _decision(record)], where)
                recent = self.recent(_timestamp(record.date))
                confidence = 0.45 + (0.1 if recent else 0) + (0.25 if rel.relevant else 0)
                body = (f"{ref} “{inline(record.title, 100)}” changed {code(name)} and was reverted; "
                        "check this change does not repeat it.")
                # its fixing commits are evidence too: the same revert is never cited twice
                self.add(where, "reverted-before", body, confidence,
                         (record.id, *record.fixing_commits))
                continue
            decided = {c.text.strip() for c in record.decision} | {record.title.strip()}
            for claim in record.rejected:
                if claim.text.strip() in decided:
                    continue  # a distillation that put the same sentence on both sides
                rel = relevance([claim.text], where)
                if rel.names:
                    body = (f"{ref} considered and rejected this: “{inline(claim.text, 160)}”. "
                            f"It decided: “{inline(_decision(record), 160)}” (distilled, unreviewed).")
                    self.add(where, "decision-context", body, 0.7 + 0.1 * min(len(rel.names), 2),
                             (record.id,))
                    break
            else:
                rel = relevance([_decision(record)], where)
                if len(rel.names) >= 2 or (outcome == "superseded" and rel.names):
                    body = (f"{code(name)} is as it is because of {ref}: “{inline(_decision(record), 180)}” "
                            "(distilled, unreviewed). This change touches what it decided.")
                    self.add(where, "decision-context", body, 0.55 + 0.05 * min(len(rel.names), 3),
                             (record.id,))


def _shared(rel: Relevance) -> str:
    if rel.names:
        return "code: " + ", ".join(code(n) for n in rel.names[:3])
    return "subject: " + inline(", ".join(rel.words[:4]))


def _timestamp(date: str) -> int:
    try:
        return int(datetime.fromisoformat(date).timestamp())
    except (TypeError, ValueError):
        return 0


def _decision(record: Record) -> str:
    if record.decision:
        return " ".join(c.text for c in record.decision[:2])
    return record.title


def review(reader: IndexReader, repo_root, changes: list[FileChange],
           read_head: Callable[[str], str | None], *, cap: int = DEFAULT_CAP,
           gate: float = GATE, now: float | None = None) -> list[Suggestion]:
    """Suggestions for ``changes`` (a diff base → head), best first, at most ``cap``.

    ``read_head(path)`` returns the file's text at head (the working tree by default), or None.
    ``repo_root`` is kept for callers that resolve paths; the engine itself reads nothing else.
    ``now`` (unix seconds) is when the review happens, for "recent"; default: the newest
    indexed commit (so an old repository's history is judged by its own clock).
    """
    engine = _Engine(reader, _review_time(reader) if now is None else now)
    for change in changes or ():
        if change.binary:
            continue
        text = None if change.status == "D" else _safe_read(read_head, change.path)
        paths = [change.path] + ([change.old_path] if change.old_path else [])
        neighbours = _file_pitfalls(reader, paths)
        for where in changed_symbols(change, text):
            _check_symbol(engine, where, paths, neighbours)
    return select(engine.out, cap=cap, gate=gate)


def _check_symbol(engine: _Engine, where: ChangedSymbol, paths: list[str],
                  neighbours: list[Unit]) -> None:
    reader = engine.reader
    own_patterns: list[Unit] = []
    if where.symbol is not None:
        name = where.symbol.name
        units = _first_nonempty(lambda p: reader.units_for_symbol(name, path=p), paths)
        units = [u for u in units if name in u.symbols]
        history = _first_nonempty(lambda p: reader.symbol_history(name, path=p), paths)
        engine.reverted_before(where, name, sorted(history, key=lambda e: -e.timestamp), units)
        own_patterns = [u for u in units if u.type == "pattern"]
        engine.constraints(where, [u for u in units if u.type == "fact"])
        records = _first_nonempty(lambda p: reader.records_for_symbol(name, path=p), paths)
        engine.decisions(where, name, [r for r in records if has_fix_edge(r) and anchored_exactly(r, name)])
    own_ids = {u.id for u in own_patterns}
    patterns = [(u, True) for u in own_patterns] + [(u, False) for u in neighbours if u.id not in own_ids]
    engine.reintroduces(where, patterns)


def _review_time(reader: IndexReader) -> float:
    last = (getattr(reader, "meta", None) or {}).get("last_sha")
    info = reader.commit_info(last) if last else None
    return float(info.timestamp) if info else time.time()


def _file_pitfalls(reader: IndexReader, paths: list[str]) -> list[Unit]:
    """Pattern units anchored to the symbols of the changed file (its neighbourhood)."""
    found: dict[str, Unit] = {}
    for path in paths:
        counts = reader.knowledge_counts(path)  # empty for a path the index never saw
        with_pitfalls = [s for s, known in counts.items() if known.pitfalls]
        for name in with_pitfalls[:MAX_NEIGHBOURS]:
            for unit in reader.units_for_symbol(name, path=path):
                if unit.type == "pattern":
                    found.setdefault(unit.id, unit)
    return list(found.values())


def _first_nonempty(lookup, paths: list[str]) -> list:
    for path in paths:
        items = list(lookup(path))
        if items:
            return items
    return []


def _safe_read(read_head, path: str) -> str | None:
    try:
        return read_head(path)
    except (OSError, UnicodeError, ValueError):
        return None


def select(suggestions: list[Suggestion], cap: int = DEFAULT_CAP, gate: float = GATE) -> list[Suggestion]:
    """Above the gate, best first; one per point (path, line, side) and per piece of evidence."""
    kept: list[Suggestion] = []
    points: set[tuple[str, int, str]] = set()
    evidence: set[str] = set()
    for s in sorted(suggestions, key=lambda s: (-s.confidence, s.path, s.line)):
        if len(kept) >= max(0, cap):
            break
        if s.confidence < gate:
            continue
        point = (s.path, s.line, s.side)
        cited = set(s.evidence) or {s.body}
        if point in points or cited & evidence:
            continue  # the same line, or the same revert / unit / record cited again
        points.add(point)
        evidence |= cited
        kept.append(s)
    return sorted(kept, key=lambda s: (s.path, s.line))
