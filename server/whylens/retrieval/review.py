"""A diff → review suggestions grounded in the history of the code it touches.

For every changed hunk: the symbols it lands in (at head), then four checks, each with a reason:

- ``reverted-before``: an earlier change to this symbol was reverted (or its record was);
- ``reintroduces-pitfall``: the added lines use the code a Pattern unit anchored to this symbol,
  or to another symbol of the same file, names as the failure;
- ``constraint``: a Fact anchored to this symbol names what the changed lines touch;
- ``decision-context``: a record anchored to this symbol rejected what the added lines do, or its
  decision is about what they change; or it was superseded.

Confidence per check is set out next to it; ``GATE`` drops the rest, ``cap`` keeps the best,
and one point (path, line) or one piece of evidence never gets two suggestions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from whylens.models import FileChange, Record, Suggestion, Symbol, Unit
from whylens.retrieval.citations import (
    change_ref, commit_ref, one_line, record_ref, web_links_from_meta,
)
from whylens.retrieval.evidence import (
    anchored_exactly, has_fix_edge, item_text, record_outcome, reverting_commits,
)
from whylens.retrieval.paths import MAX_SOURCE_BYTES
from whylens.retrieval.text import (
    code_span_identifiers, content_words, identifier_hits, identifiers,
)
from whylens.symbols.languages import language_for_path
from whylens.symbols.outline import outline, symbol_at

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


class _Engine:
    def __init__(self, reader) -> None:
        self.reader = reader
        self.links = web_links_from_meta(getattr(reader, "meta", None))
        self.out: list[Suggestion] = []

    def add(self, where: ChangedSymbol, kind: str, body: str, confidence: float,
            evidence: Iterable[str]) -> None:
        self.out.append(Suggestion(
            path=where.path, line=where.line, side=where.side, kind=kind, body=body,
            confidence=round(min(confidence, 0.99), 3), evidence=tuple(evidence),
            symbol=where.symbol.name if where.symbol else None,
        ))

    # --- the four checks -------------------------------------------------------------------

    def reverted_before(self, where: ChangedSymbol, name: str, paths: list[str]) -> None:
        history = []
        for path in paths:
            history = list(self.reader.symbol_history(name, path=path))
            if history:
                break
        for entry in sorted(history, key=lambda e: -e.timestamp)[:MAX_HISTORY]:
            reverts = reverting_commits(self.reader, entry.commit)
            if not reverts:
                continue
            revert = reverts[0]
            info = self.reader.commit_info(revert)
            revert_text = f"{one_line(info.subject, 80)} " if info else ""
            body = (f"An earlier change to `{name}` was reverted: “{one_line(entry.subject, 100)}” "
                    f"{change_ref(entry.commit, entry.pr, self.links)} was undone by "
                    f"{revert_text}{commit_ref(revert, self.links)}. Check that this change does "
                    "not bring back what made it fail.")
            self.add(where, "reverted-before", body, 0.85, (entry.commit, revert))
            return  # the newest reverted change speaks for the symbol

    def reintroduces(self, where: ChangedSymbol, patterns: list[tuple[Unit, bool]]) -> None:
        """Added lines use code a Pattern names: in a code span (`pool.get()`) it weighs 0.3,
        as a dotted/snake/camel name in prose 0.15 (two hits at most); its own symbol +0.1."""
        added_ids = identifiers(where.added)
        if not added_ids:
            return
        for unit, own in patterns:
            spans = code_span_identifiers(unit.context)
            hits = identifier_hits(identifiers(item_text(unit)) | spans, added_ids)
            if not hits:
                continue
            strong = [h for h in hits if h in spans]
            weights = sorted((0.3 if h in strong else 0.15 for h in hits), reverse=True)[:2]
            confidence = 0.35 + sum(weights) + (0.1 if own else 0.0)
            names = ", ".join(f"`{h}`" for h in (strong or hits)[:3])
            scope = "this symbol" if own else f"`{', '.join(unit.symbols[:2]) or unit.files[0]}`"
            body = (f"This adds {names}, which a known pitfall of {scope} names: "
                    f"“{one_line(unit.content or unit.title, 160)}” "
                    f"({change_ref(unit.commit, unit.pr, self.links)}). "
                    "Make sure the earlier failure does not come back.")
            self.add(where, "reintroduces-pitfall", body, confidence, (unit.id, unit.commit))

    def constraints(self, where: ChangedSymbol, facts: list[Unit]) -> None:
        changed_ids = identifiers(where.added)
        changed_words = content_words(where.added)
        for fact in facts:
            text = item_text(fact)
            hits = identifier_hits(identifiers(text), changed_ids)
            shared = content_words(text) & changed_words
            if not hits and len(shared) < 3:
                continue
            confidence = 0.4 + 0.15 * min(len(hits), 2) + (0.1 if len(shared) >= 3 else 0.0)
            confidence += 0.1 * fact.weight
            body = (f"A constraint recorded for `{where.symbol.name if where.symbol else where.path}`: "
                    f"“{one_line(fact.content or fact.title, 180)}” "
                    f"({change_ref(fact.commit, fact.pr, self.links)}). Does this change keep it?")
            self.add(where, "constraint", body, confidence, (fact.id, fact.commit))

    def decisions(self, where: ChangedSymbol, name: str, records: list[Record]) -> None:
        added_ids, added_words = identifiers(where.added), content_words(where.added)
        for record in records:
            outcome = record_outcome(self.reader, record, records)
            ref = record_ref(record, self.links)
            if outcome == "reverted":
                body = (f"{ref} “{one_line(record.title, 100)}” changed `{name}` and was reverted; "
                        "check this change does not repeat it.")
                self.add(where, "reverted-before", body, 0.8, (record.id,))
                continue
            for claim in record.rejected:
                hits = identifier_hits(identifiers(claim.text), added_ids)
                shared = content_words(claim.text) & added_words
                if hits or len(shared) >= 3:
                    body = (f"{ref} considered and rejected this: “{one_line(claim.text, 160)}”. "
                            f"It decided: “{one_line(_decision(record), 160)}” (distilled, unreviewed).")
                    self.add(where, "decision-context", body, 0.7 + 0.1 * min(len(hits), 2),
                             (record.id,))
                    break
            else:
                hits = identifier_hits(identifiers(_decision(record)), added_ids)
                if len(hits) >= 2 or (outcome == "superseded" and hits):
                    body = (f"`{name}` is as it is because of {ref}: “{one_line(_decision(record), 180)}” "
                            "(distilled, unreviewed). This change touches what it decided.")
                    self.add(where, "decision-context", body, 0.55 + 0.05 * min(len(hits), 3),
                             (record.id,))


def _decision(record: Record) -> str:
    if record.decision:
        return " ".join(c.text for c in record.decision[:2])
    return record.title


def review(reader, repo_root, changes: list[FileChange],
           read_head: Callable[[str], str | None], *, cap: int = DEFAULT_CAP,
           gate: float = GATE) -> list[Suggestion]:
    """Suggestions for ``changes`` (a diff base → head), best first, at most ``cap``.

    ``read_head(path)`` returns the file's text at head (the working tree by default), or None.
    ``repo_root`` is kept for callers that resolve paths; the engine itself reads nothing else.
    """
    engine = _Engine(reader)
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
        engine.reverted_before(where, name, paths)
        units = _first_nonempty(lambda p: reader.units_for_symbol(name, path=p), paths)
        units = [u for u in units if name in u.symbols]
        own_patterns = [u for u in units if u.type == "pattern"]
        engine.constraints(where, [u for u in units if u.type == "fact"])
        records = _first_nonempty(lambda p: reader.records_for_symbol(name, path=p), paths)
        engine.decisions(where, name, [r for r in records if has_fix_edge(r) and anchored_exactly(r, name)])
    own_ids = {u.id for u in own_patterns}
    patterns = [(u, True) for u in own_patterns] + [(u, False) for u in neighbours if u.id not in own_ids]
    engine.reintroduces(where, patterns)


def _file_pitfalls(reader, paths: list[str]) -> list[Unit]:
    """Pattern units anchored to the symbols of the changed file (its neighbourhood)."""
    found: dict[str, Unit] = {}
    for path in paths:
        try:
            counts = reader.knowledge_counts(path)
        except Exception:  # noqa: BLE001 - a path the index never saw
            continue
        with_pitfalls = [s for s, (_r, pitfalls, _c) in counts.items() if pitfalls]
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
