"""Errors → known pitfalls: has this failure been seen, and fixed, before?

Candidates come from three places: the units and records anchored to the symbols the error
points at (the enclosing symbol of an error line, the frames of a trace), the commits that
changed those symbols (their commit documents: most fixes yield no typed unit), and search
(``search.rank``) for the failure's names and message with the frames' files and functions as
context. Each candidate is scored on independent signals:

- ``name``: a failure name of the error (exception class, error code) appears in its text;
  a specific name (``ConnectTimeout``, ``E0502``) counts fully, a generic builtin one
  (``TypeError``, ``KeyError``) counts for less;
- ``symbol``: it is anchored to the failing symbol (1.0 qualified and in its file, 0.85 by bare
  name in its file — Python frames carry bare names —, 0.3 by name only), weaker for outer
  frames (``FRAME_DECAY`` per frame);
- ``words``: its content words found in the error's messages, the failure names' own words
  left out (two at least; four make 1.0);
- ``retrieval``: its place in the search ranking for the error (1 at the top, falling with rank);
- ``fix``: its text says it fixed, handled or reverted something (an explanation of a failure).

confidence = type_prior × (1 − Π(1 − weight × signal)). The weights, the commit documents' prior
and ``GATE`` are set on the TUNE repositories' error texts (bench/tune_errors.py): no single
signal passes alone (a failure name, the symbol or the search rank each needs a second one);
the table tests in tests/unit/retrieval/test_pitfalls.py pin that down.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from whylens.index.commitdocs import doc_id
from whylens.models import Pitfall, Record, Symbol, Unit
from whylens.retrieval.errortext import Frame, ParsedError, parse_error_text
from whylens.retrieval.evidence import item_text
from whylens.retrieval import gate as gates
from whylens.retrieval.search import SearchContext, rank
from whylens.retrieval.paths import repo_relative, source_bytes
from whylens.retrieval.text import content_words, path_suffix_match
from whylens.symbols.languages import language_for_path
from whylens.symbols.outline import outline, symbol_at

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader

# Set by bench/tune_errors.py on the tune half (requests, httpx, express: 34 known errors, 12
# unrelated), re-run on the index of pipeline 2.5 (commit documents of every kept commit,
# anchoring through hunks), where the earlier setting kept only 0.75 of the unrelated silent:
# in-sample, a relevant commit in the top 3 for 0.32 of the known errors (BM25 over raw messages
# 0.29, never silent; the unit-only matcher before 0.18) with 0.92 of the unrelated silent. No
# single signal passes alone, nor a generic failure name with the failing symbol.
GATE = 0.6
MAX_PER_FILE = 3  # diagnostics on one file
MAX_EXPLAINED = 5  # pitfalls for one pasted trace
MAX_FRAMES = 8  # frames looked up per trace (the innermost ones)
MAX_HISTORY = 30  # commits that changed one frame's symbol, newest first
MAX_INCLUDED = 200  # anchored candidates ranked by search among the rest
SEARCHED = 15  # hits of the search ranking that become candidates
FRAME_DECAY = 0.85  # a frame's symbol strength, per frame further from where it failed
WEIGHTS = {"name": 0.4, "symbol": 0.45, "words": 0.5, "retrieval": 0.5, "fix": 0.1}
TYPE_PRIOR = {"pattern": 1.0, "decision": 0.95, "skill": 0.85, "fact": 0.7, "commit": 1.0}
_FIX = re.compile(r"\b(?:fix(?:e[sd])?|bug|crash\w*|regression|handl(?:e|es|ed|ing)|raise[sd]?|"
                  r"revert\w*|error|exception|prevent\w*|guard)\b", re.I)
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
    retrieval: float = 0.0  # from its rank in the search for the error
    signals: dict = field(default_factory=dict)


def _kind(item) -> str:
    return item.type if isinstance(item, Unit) else "decision"


def _key(item) -> str:
    return item.id


def score(item, parsed: ParsedError, symbol_strength: float, retrieval: float = 0.0
          ) -> tuple[float, dict]:
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
    signals = {"name": name, "symbol": symbol_strength, "words": words, "retrieval": retrieval,
               "fix": 1.0 if _FIX.search(text) else 0.0}
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
    """Units and records anchored to the symbols the trace's frames name, and the commits that
    changed those symbols in the frames' files (their commit documents)."""
    found: dict[str, _Candidate] = {}
    for depth, frame in enumerate([f for f in frames if f.function][:limit]):
        decay = FRAME_DECAY ** depth
        for position, name in enumerate(frame.candidate_names()):
            qualified = position == 0 and "." in name
            items = [*reader.units_for_symbol(name), *reader.records_for_symbol(name),
                     *_changed_by(reader, frame, name)]
            for item in items:
                strength = _frame_strength(item, frame, name, qualified) * decay
                if strength <= 0:
                    continue
                current = found.get(_key(item))
                if current is None or strength > current.symbol:
                    found[_key(item)] = _Candidate(item, strength, name, frame.line)
    return found


def _changed_by(reader: IndexReader, frame: Frame, name: str) -> list[Unit | Record]:
    """Commit documents of the commits that changed ``name`` in the frame's file."""
    shas = [e.commit for e in reader.symbol_history(name)
            if not frame.file or path_suffix_match(frame.file, e.path)]
    ids = [doc_id(sha) for sha in dict.fromkeys(shas)][:MAX_HISTORY]
    return list(reader.load_items(ids).values())


def _frame_strength(item, frame: Frame, name: str, qualified: bool) -> float:
    files = getattr(item, "files", ()) or ()
    if frame.file and files:
        if any(path_suffix_match(frame.file, f) for f in files):
            return 1.0 if qualified else 0.85
        return 0.0  # the same name in another file is another function
    return 0.3


def error_query(parsed: ParsedError) -> str:
    """What search looks for: the failure names, the codes, then the messages."""
    return " ".join([*parsed.exceptions[:3], *parsed.codes[:3], *parsed.messages[:3]])[:600]


def error_context(parsed: ParsedError) -> SearchContext:
    """The frames' files and functions, innermost first, as search context."""
    frames = [f for f in parsed.frames if f.function or f.file][:MAX_FRAMES]
    paths = tuple(dict.fromkeys(f.file for f in frames if f.file))
    symbols = tuple(dict.fromkeys(n for f in frames for n in f.candidate_names()))
    return SearchContext(paths=paths, symbols=symbols)


def _search_candidates(reader: IndexReader, parsed: ParsedError, path: str | None = None,
                       context: SearchContext | None = None,
                       anchored: dict[str, _Candidate] | None = None) -> dict[str, _Candidate]:
    """The search ranking for the error's names and messages, with its frames as context and
    the ``anchored`` candidates ranked among the rest. A candidate's ``retrieval`` signal is its
    place in that ranking times search's own confidence that the error is about this history."""
    query = error_query(parsed)
    found: dict[str, _Candidate] = dict(anchored or {})
    if not query.strip():
        return found
    ranking = rank(reader, query, context=context, load=SEARCHED, filters={"path": path},
                   include=tuple(found)[:MAX_INCLUDED])
    sure = gates.confidence(ranking.features)
    shown = [s for s in ranking.ranked[:SEARCHED] if s.item is not None]
    for position, scored in enumerate(shown):
        assert scored.item is not None
        signal = sure / (1.0 + position / 2)
        key = _key(scored.item)
        current = found.get(key)
        found[key] = _Candidate(scored.item, retrieval=signal) if current is None else \
            replace(current, retrieval=max(current.retrieval, signal))
    return found


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
        confidence, _signals = score(cand.item, parsed, cand.symbol, cand.retrieval)
        if confidence < GATE:
            continue
        scored.append(Pitfall(item=cand.item, score=confidence,
                              reason=_reason(cand.item, parsed, cand.where),
                              line=line if line is not None else cand.line,
                              fix=_fix_for(cand.item, pool)))
    scored.sort(key=lambda p: (-p.score, -_type_rank(p.item)))
    return _one_per_commit(scored)


def _merge(into: dict[str, _Candidate], more: dict[str, _Candidate]) -> None:
    """Candidates found both ways keep the strongest of each signal."""
    for key, cand in more.items():
        current = into.get(key)
        if current is None:
            into[key] = cand
        else:
            into[key] = _Candidate(current.item, max(current.symbol, cand.symbol),
                                   current.where or cand.where, current.line or cand.line,
                                   max(current.retrieval, cand.retrieval))


def _type_rank(item) -> int:
    return {"pattern": 3, "decision": 2, "skill": 1, "fact": 1}.get(_kind(item), 0)


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
    candidates = _search_candidates(reader, parsed, context=error_context(parsed),
                                    anchored=_frame_candidates(reader, parsed.frames))
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
        context = error_context(parsed)
        if enclosing is not None:
            here = Frame(enclosing.name, rel_path, line, "")
            for item in [*reader.units_for_symbol(enclosing.name, path=rel_path),
                         *reader.records_for_symbol(enclosing.name, path=rel_path),
                         *_changed_by(reader, here, enclosing.name)]:
                candidates[_key(item)] = _Candidate(item, 1.0, enclosing.name, line)
            context = SearchContext((rel_path, *context.paths), (enclosing.name, *context.symbols))
        _merge(candidates, _frame_candidates(reader, parsed.frames, limit=4))
        candidates = _search_candidates(reader, parsed, path=rel_path, context=context,
                                        anchored=candidates)
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
