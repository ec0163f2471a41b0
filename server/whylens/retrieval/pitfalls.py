"""Errors → known pitfalls: has this failure been seen, and fixed, before?

Candidates come from two places: the units and records anchored to the symbols the error points
at (the enclosing symbol of an error line, the frames of a trace), and a text search for the
failure's names. Each candidate is scored on three independent signals:

- ``name``: a failure name of the error (exception class, error code) appears in its text;
  a specific name (``ConnectTimeout``, ``E0502``) counts fully, a generic builtin one
  (``TypeError``, ``KeyError``) counts for less;
- ``symbol``: it is anchored to the failing symbol (1.0 qualified and in its file, 0.85 by bare
  name in its file — Python frames carry bare names —, 0.3 by name only);
- ``words``: its content words found in the error's messages, the failure names' own words
  left out (two at least; four make 1.0).

confidence = type_prior × (1 − Π(1 − weight × signal)), weights name 0.6, symbol 0.45, words
0.5. The gate (``GATE`` = 0.55) sits between what one signal can reach and what two reach: a
specific failure name alone is 0.6 (it passes: the same named failure was seen and fixed);
words alone top out at 0.5 and the symbol alone at 0.45 (they do not); a generic exception
plus the symbol, or the symbol plus three shared words, pass. A Skill (the fix, not the
failure) needs two signals even with a specific name (0.85 × 0.6 = 0.51).
The table tests in tests/unit/retrieval/test_pitfalls.py pin each of those cases down.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from whylens.models import Pitfall, Record, Symbol, Unit
from whylens.retrieval.errortext import Frame, ParsedError, parse_error_text
from whylens.retrieval.evidence import item_text
from whylens.retrieval.paths import repo_relative, source_bytes
from whylens.retrieval.text import content_words, path_suffix_match
from whylens.symbols.languages import language_for_path
from whylens.symbols.outline import outline, symbol_at

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader

GATE = 0.55
MAX_PER_FILE = 3  # diagnostics on one file
MAX_EXPLAINED = 5  # pitfalls for one pasted trace
MAX_FRAMES = 8  # frames looked up per trace (the innermost ones)
WEIGHTS = {"name": 0.6, "symbol": 0.45, "words": 0.5}
TYPE_PRIOR = {"pattern": 1.0, "decision": 0.95, "skill": 0.85, "fact": 0.7}
GENERIC_FAILURES = frozenset("""
    TypeError ValueError KeyError IndexError AttributeError NameError OSError IOError
    ImportError ModuleNotFoundError NotImplementedError ZeroDivisionError RecursionError
    NullPointerException IllegalArgumentException IllegalStateException RuntimeException
    ClassCastException IndexOutOfBoundsException ReferenceError SyntaxError RangeError
""".split())


@dataclass
class _Candidate:
    item: Unit | Record
    symbol: float = 0.0
    where: str = ""  # the symbol it was found through
    line: int | None = None
    signals: dict = field(default_factory=dict)


def _kind(item) -> str:
    return item.type if isinstance(item, Unit) else "decision"


def _key(item) -> str:
    return item.id


def score(item, parsed: ParsedError, symbol_strength: float) -> tuple[float, dict]:
    """Confidence of ``item`` being the known failure behind ``parsed``, and its signals."""
    text = item_text(item)
    name = 0.0
    for failure in (*parsed.exceptions, *parsed.codes):
        if re.search(rf"(?<![\w]){re.escape(failure)}(?![\w])", text):
            name = max(name, 0.6 if failure in GENERIC_FAILURES else 1.0)
    # Words of the failure names themselves are already counted by ``name``.
    named_words = content_words(" ".join((*parsed.exceptions, *parsed.codes)))
    shared = (content_words(text) & parsed.words) - named_words
    words = 0.0 if len(shared) < 2 else min(1.0, len(shared) / 4)
    signals = {"name": name, "symbol": symbol_strength, "words": words}
    miss = 1.0
    for signal, weight in WEIGHTS.items():
        miss *= 1.0 - weight * signals[signal]
    confidence = TYPE_PRIOR.get(_kind(item), 0.7) * (1.0 - miss)
    return round(confidence, 4), {**signals, "shared": sorted(shared)[:5]}


def _reason(item, parsed: ParsedError, where: str) -> str:
    text = item_text(item)
    named = [f for f in (*parsed.exceptions, *parsed.codes) if f in text]
    head = ", ".join(named[:2]) if named else "same failure words"
    return f"{head} in {where}" if where else head


def _frame_candidates(reader: IndexReader, frames, limit: int = MAX_FRAMES) -> dict[str, _Candidate]:
    """Units and records anchored to the symbols the trace's frames name."""
    found: dict[str, _Candidate] = {}
    for frame in [f for f in frames if f.function][:limit]:
        for rank, name in enumerate(frame.candidate_names()):
            items = [*reader.units_for_symbol(name), *reader.records_for_symbol(name)]
            for item in items:
                strength = _frame_strength(item, frame, name, qualified=(rank == 0 and "." in name))
                if strength <= 0:
                    continue
                current = found.get(_key(item))
                if current is None or strength > current.symbol:
                    found[_key(item)] = _Candidate(item, strength, name, frame.line)
    return found


def _frame_strength(item, frame: Frame, name: str, qualified: bool) -> float:
    files = getattr(item, "files", ()) or ()
    if frame.file and files:
        if any(path_suffix_match(frame.file, f) for f in files):
            return 1.0 if qualified else 0.85
        return 0.0  # the same name in another file is another function
    return 0.3


def _search_candidates(reader: IndexReader, parsed: ParsedError, path: str | None = None) -> dict[str, _Candidate]:
    """A text search for the failure's names and words (no anchor needed)."""
    longest = sorted(parsed.words, key=lambda w: (-len(w), w))[:6]  # long words are specific
    terms = [*parsed.exceptions[:3], *parsed.codes[:3], *longest]
    if not terms:
        return {}
    query = " ".join(dict.fromkeys(terms))  # the reader ORs the words
    hits = reader.search(query, k=15, types=["pattern", "skill", "decision"], path=path)
    return {_key(item): _Candidate(item) for item, _ in hits}


def _fix_for(item, pool) -> Unit | None:
    """A Skill unit from the same commit as a Pattern (the fix that came with it)."""
    if not isinstance(item, Unit) or item.type == "skill":
        return None
    skills = [u for u in pool if isinstance(u, Unit) and u.type == "skill" and u.commit == item.commit]
    return max(skills, key=lambda u: u.weight) if skills else None


def _rank(candidates: dict[str, _Candidate], parsed: ParsedError, line: int | None) -> list[Pitfall]:
    pool = [c.item for c in candidates.values()]
    scored: list[Pitfall] = []
    for cand in candidates.values():
        confidence, _signals = score(cand.item, parsed, cand.symbol)
        if confidence < GATE:
            continue
        scored.append(Pitfall(item=cand.item, score=confidence,
                              reason=_reason(cand.item, parsed, cand.where),
                              line=line if line is not None else cand.line,
                              fix=_fix_for(cand.item, pool)))
    scored.sort(key=lambda p: (-p.score, -_type_rank(p.item)))
    return _one_per_commit(scored)


def _type_rank(item) -> int:
    return {"pattern": 3, "decision": 2, "skill": 1}.get(_kind(item), 0)


def _one_per_commit(pitfalls: list[Pitfall]) -> list[Pitfall]:
    """A Pattern and the Skill that fixed it are one pitfall, not two."""
    kept: list[Pitfall] = []
    seen: set[str] = set()
    for p in pitfalls:
        commits = commits_of(p.item) | ({p.fix.commit} if p.fix else set())
        if commits & seen:
            continue
        seen |= commits
        kept.append(p)
    return kept


def commits_of(item) -> set[str]:
    """The commits a unit (its source) or a record (its fixing commits) stands for."""
    if isinstance(item, Record):
        return set(item.fixing_commits) or {item.id}
    return {item.commit}


def explain_error(reader: IndexReader, text: str) -> list[Pitfall]:
    """Known pitfalls behind a pasted error or stack trace, best first (empty when unsure)."""
    parsed = parse_error_text(text)
    if parsed.empty:
        return []
    candidates = _search_candidates(reader, parsed)
    candidates.update(_frame_candidates(reader, parsed.frames))
    return _rank(candidates, parsed, None)[:MAX_EXPLAINED]


def match_errors(reader: IndexReader, path: str, text: str | None, errors: list[dict[str, Any]],
                 cap: int = MAX_PER_FILE, symbols: Sequence[Symbol] | None = None
                 ) -> list[Pitfall]:
    """Pitfalls for another tool's errors in one file: at most one per line, three per file.

    ``errors``: ``{"line": 1-based, "message", "source", "code"}``. The enclosing symbol comes
    from ``symbols`` when the caller already has the buffer's outline, else from parsing
    ``text`` (the current buffer); frames inside a message count as callers.
    """
    return choose(per_line(reader, path, text, errors, symbols), cap)


def per_line(reader: IndexReader, path: str, text: str | None, errors: list[dict[str, Any]],
             symbols: Sequence[Symbol] | None = None) -> list[Pitfall]:
    """The best pitfall of each error line (``match_errors`` before ``choose``): callers that
    match a long error list in slices merge these, keeping the best per line, then ``choose``."""
    rel_path = repo_relative(path, reader.meta.get("repo"))
    if symbols is None:
        source = source_bytes(text)
        language = language_for_path(rel_path)
        symbols = outline(source, language) if (source and language) else []
    best: dict[int, Pitfall] = {}
    for error in errors or ():
        line, parsed = _error_input(error)
        if line is None or parsed.empty:
            continue
        candidates: dict[str, _Candidate] = {}
        enclosing = symbol_at(symbols, line) if symbols else None
        if enclosing is not None:
            for item in [*reader.units_for_symbol(enclosing.name, path=rel_path),
                         *reader.records_for_symbol(enclosing.name, path=rel_path)]:
                candidates[_key(item)] = _Candidate(item, 1.0, enclosing.name, line)
        for key, cand in _frame_candidates(reader, parsed.frames, limit=4).items():
            candidates.setdefault(key, cand)
        for key, cand in _search_candidates(reader, parsed, path=rel_path).items():
            candidates.setdefault(key, cand)
        ranked = _rank(candidates, parsed, line)
        if ranked and (line not in best or ranked[0].score > best[line].score):
            best[line] = ranked[0]
    return list(best.values())


def choose(pitfalls: Iterable[Pitfall], cap: int = MAX_PER_FILE) -> list[Pitfall]:
    """At most one pitfall per line (the best) and each pitfall once, ``cap`` in all, by line."""
    best_of_line: dict[int | None, Pitfall] = {}
    for pitfall in pitfalls:
        if pitfall.line not in best_of_line or pitfall.score > best_of_line[pitfall.line].score:
            best_of_line[pitfall.line] = pitfall
    best: list[Pitfall] = []
    used: set[str] = set()
    for pitfall in sorted(best_of_line.values(), key=lambda p: -p.score):
        if pitfall.item.id in used:
            continue  # the same pitfall on two lines: show it where it fits best
        used.add(pitfall.item.id)
        best.append(pitfall)
    return sorted(best[:cap], key=lambda p: p.line or 0)


def _error_input(error) -> tuple[int | None, ParsedError]:
    if not isinstance(error, dict):
        return None, ParsedError()
    try:
        line = int(error["line"])
    except (KeyError, TypeError, ValueError):
        return None, ParsedError()
    if line < 1:
        return None, ParsedError()
    message = str(error.get("message") or "")
    code = error.get("code")
    if isinstance(code, (str, int)) and str(code).strip():
        message = f"{message}\n{code}"
    parsed = parse_error_text(message)
    if isinstance(code, str) and code.strip() and code.strip() not in parsed.codes:
        parsed = ParsedError(parsed.exceptions, (*parsed.codes, code.strip()), parsed.frames,
                             parsed.messages, parsed.words)
    return line, parsed
