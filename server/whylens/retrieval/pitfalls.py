"""Errors → known pitfalls: has this failure been seen, and fixed, before?

Candidates come from three places: the units and records anchored to the symbols the error
points at (the enclosing symbol of an error line, the frames of a trace), the commits that
changed those symbols (their commit documents: most fixes yield no typed unit), and search
(``search.rank``) for the failure's names and message with the frames' files and functions as
context. Each candidate is scored on independent signals (``pitfall_signals``: what failed,
where it failed); below the gate (``GATE``, or ``FRAMELESS_GATE`` for an error without a failing
function here: ``pitfall_signals.setting``) a candidate is not shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from whylens.index.commitdocs import doc_id
from whylens.models import Pitfall, Record, Symbol, Unit
from whylens.retrieval.errortext import Frame, ParsedError, parse_error_text
from whylens.retrieval.evidence import item_text, standing_revert
from whylens.retrieval.pitfall_signals import FRAME_DECAY, kind_of, score, setting
from whylens.retrieval.search import WEIGHTS, SearchContext, rank
from whylens.retrieval.paths import repo_relative, source_bytes
from whylens.symbols.languages import language_for_path
from whylens.symbols.outline import outline, symbol_at

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader

MAX_PER_FILE = 3  # diagnostics on one file
MAX_EXPLAINED = 5  # pitfalls for one pasted trace
MAX_FRAMES = 8  # frames looked up per trace (the innermost ones)
MAX_HISTORY = 30  # commits that changed one frame's symbol, newest first
MAX_INCLUDED = 200  # anchored candidates ranked by search among the rest
SEARCHED = 15  # hits of the search ranking that become candidates
# The error's search ranks by its words, the frames' files and symbols boosting; without the
# prior for the newest fixes touching those files (time travel's), which would rank the files'
# latest fixes above every document holding the error's words. The frames' own history comes in
# as anchored candidates.
ERROR_SEARCH = replace(WEIGHTS, context_n=0, context_prior=0.0)
LEXICAL_FULL = 2.0  # retrieval_signal: a hit holding half the error's words counts fully


@dataclass
class _Candidate:
    item: Unit | Record
    symbol: float = 0.0
    where: str = ""  # the symbol it was found through
    line: int | None = None
    retrieval: float = 0.0  # from its rank in the search for the error


@dataclass(frozen=True)
class Found:
    """The candidates for one error, and the failing functions of this repository (bare
    names with their frame's strength, innermost first)."""

    candidates: dict[str, _Candidate]
    frames: tuple[tuple[str, float], ...] = ()


def _key(item) -> str:
    return item.id


class TracePaths:
    """Each trace file's repository paths (``IndexReader.paths_for_trace_file``), looked up
    once per error."""

    def __init__(self, reader: IndexReader):
        self._reader = reader
        self._known: dict[str, frozenset[str]] = {}

    def __call__(self, trace_file: str | None) -> frozenset[str]:
        if not trace_file:
            return frozenset()
        if trace_file not in self._known:
            self._known[trace_file] = frozenset(self._reader.paths_for_trace_file(trace_file))
        return self._known[trace_file]


def _reason(item, parsed: ParsedError, where: str) -> str:
    text = item_text(item)
    named = [f for f in (*parsed.exceptions, *parsed.codes) if f in text]
    head = ", ".join(named[:2]) if named else "same failure words"
    return f"{head} in {where}" if where else head


def _frame_candidates(reader: IndexReader, frames, paths: TracePaths,
                      limit: int = MAX_FRAMES) -> Found:
    """Units and records anchored to the symbols the trace's frames name, and the commits that
    changed those symbols in the frames' files (their commit documents); the frames that have
    history here are the failing functions."""
    found: dict[str, _Candidate] = {}
    failing: dict[str, float] = {}
    for depth, frame in enumerate([f for f in frames if f.function][:limit]):
        decay = FRAME_DECAY ** depth
        for position, name in enumerate(frame.candidate_names()):
            qualified = position == 0 and "." in name
            items = [*reader.units_for_symbol(name), *reader.records_for_symbol(name),
                     *_changed_by(reader, frame, name, paths)]
            for item in items:
                strength = _frame_strength(item, frame, qualified, paths) * decay
                if strength <= 0:
                    continue
                failing.setdefault(name, decay)
                current = found.get(_key(item))
                if current is None or strength > current.symbol:
                    found[_key(item)] = _Candidate(item, strength, name, frame.line)
    return Found(found, tuple(failing.items()))


def _changed_by(reader: IndexReader, frame: Frame, name: str, paths: TracePaths) -> list[Unit]:
    """Commit documents of the commits that changed ``name`` in the frame's file, newest
    first."""
    shas = [e.commit for e in reader.symbol_history(name)
            if not frame.file or e.path in paths(frame.file)]
    ids = [doc_id(sha) for sha in dict.fromkeys(shas)][:MAX_HISTORY]
    items = reader.load_items(ids)
    return [item for i in ids if isinstance(item := items.get(i), Unit)]


def _frame_strength(item, frame: Frame, qualified: bool, paths: TracePaths) -> float:
    files = getattr(item, "files", ()) or ()
    if frame.file and files:
        if any(f in paths(frame.file) for f in files):
            return 1.0 if qualified else 0.85
        return 0.0  # the same name in another file is another function
    return 0.3


def error_query(parsed: ParsedError) -> str:
    """What search looks for: the failure names, the codes, then the messages."""
    return " ".join([*parsed.exceptions[:3], *parsed.codes[:3], *parsed.messages[:3]])[:600]


def error_context(parsed: ParsedError, paths: TracePaths) -> SearchContext:
    """The frames' files (as the repository's paths) and functions, innermost first, as
    search context."""
    frames = [f for f in parsed.frames if f.function or f.file][:MAX_FRAMES]
    files = tuple(dict.fromkeys(p for f in frames for p in sorted(paths(f.file))))
    symbols = tuple(dict.fromkeys(n for f in frames for n in f.candidate_names()))
    return SearchContext(paths=files, symbols=symbols)


def retrieval_signal(position: int, lexical: float) -> float:
    """The ``retrieval`` signal of the hit at ``position`` (0-based) of the error's search that
    holds ``lexical`` of the error's words (BM25F over (K1 + 1) × their idf): falling with rank,
    and full only for a hit that holds half of what the error says, by rarity (chosen on the
    tune half: 0.41 of the known errors in the top 3 at scales 1 to 3, 0.32 by rank alone)."""
    return min(1.0, LEXICAL_FULL * lexical) / (1.0 + position / 2)


def _search_candidates(reader: IndexReader, parsed: ParsedError, path: str | None = None,
                       context: SearchContext | None = None,
                       anchored: dict[str, _Candidate] | None = None) -> dict[str, _Candidate]:
    """The search ranking for the error's names and messages, with its frames as context and
    the ``anchored`` candidates ranked among the rest; a candidate's ``retrieval`` signal is
    its place in that ranking (``retrieval_signal``)."""
    query = error_query(parsed)
    found: dict[str, _Candidate] = dict(anchored or {})
    if not query.strip():
        return found
    ranking = rank(reader, query, context=context, weights=ERROR_SEARCH, load=SEARCHED,
                   filters={"path": path}, include=tuple(found)[:MAX_INCLUDED])
    shown = [s for s in ranking.ranked[:SEARCHED] if s.item is not None]
    for position, scored in enumerate(shown):
        assert scored.item is not None
        signal = retrieval_signal(position, scored.lexical)
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


def _rank(candidates: dict[str, _Candidate], parsed: ParsedError, line: int | None,
          frames: Sequence[tuple[str, float]] = ()) -> list[Pitfall]:
    pool = [c.item for c in candidates.values()]
    scored: list[Pitfall] = []
    for cand in candidates.values():
        confidence, _signals = score(cand.item, parsed, cand.symbol, cand.retrieval, frames)
        if confidence < setting(frames, cand.symbol)[1]:
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
    return {"pattern": 3, "decision": 2, "skill": 1, "fact": 1}.get(kind_of(item), 0)


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
    paths = TracePaths(reader)
    found = _frame_candidates(reader, parsed.frames, paths)
    candidates = _search_candidates(reader, parsed, context=error_context(parsed, paths),
                                    anchored=found.candidates)
    return with_reverts(reader, _rank(candidates, parsed, None, found.frames)[:MAX_EXPLAINED])


def with_reverts(reader: IndexReader, pitfalls: list[Pitfall]) -> list[Pitfall]:
    """Each pitfall with the standing revert of its fix, when one undid it: "fixed before" is
    then not true of the code today (``evidence.standing_revert``)."""
    out = []
    for p in pitfalls:
        revert = standing_revert(reader, *sorted(commits_of(p.item) |
                                                 ({p.fix.commit} if p.fix else set())))
        out.append(replace(p, reverted_by=revert) if revert else p)
    return out


def match_errors(reader: IndexReader, path: str, text: str | None, errors: list[dict[str, Any]],
                 cap: int = MAX_PER_FILE, symbols: Sequence[Symbol] | None = None
                 ) -> list[Pitfall]:
    """Pitfalls for another tool's errors in one file: at most one per line, three per file.

    ``errors``: ``{"line": 1-based, "message", "source", "code"}``. The enclosing symbol comes
    from ``symbols`` when the caller already has the buffer's outline, else from parsing
    ``text`` (the current buffer); frames inside a message count as callers.
    """
    return with_reverts(reader, choose(per_line(reader, path, text, errors, symbols), cap))


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
        pool = line_pool(reader, rel_path, symbols, error)
        if pool is None:
            continue
        ranked = _rank(pool.candidates, pool.parsed, pool.line, pool.frames)
        if ranked and (pool.line not in best or ranked[0].score > best[pool.line].score):
            best[pool.line] = ranked[0]
    return list(best.values())


@dataclass(frozen=True)
class LinePool:
    """One reported error's candidates (``per_line``; bench/tune_errors.py reads them too)."""

    line: int
    parsed: ParsedError
    candidates: dict[str, _Candidate]
    frames: tuple[tuple[str, float], ...]


def line_pool(reader: IndexReader, rel_path: str, symbols: Sequence[Symbol], error
              ) -> LinePool | None:
    """The candidates for ``error`` (``{line, message, code}``) in the file ``rel_path`` whose
    outline is ``symbols``; None when the error is unusable."""
    line, parsed = _error_input(error)
    if line is None or parsed.empty:
        return None
    enclosing = symbol_at(symbols, line) if symbols else None
    candidates, frames, context = _line_candidates(reader, rel_path, line, enclosing, parsed)
    candidates = _search_candidates(reader, parsed, path=rel_path, context=context,
                                    anchored=candidates)
    return LinePool(line, parsed, candidates, frames)


def _line_candidates(reader: IndexReader, rel_path: str, line: int, enclosing: Symbol | None,
                     parsed: ParsedError
                     ) -> tuple[dict[str, _Candidate], tuple[tuple[str, float], ...], SearchContext]:
    """An error on a line: the enclosing symbol is the innermost failing function (its
    knowledge and changes at full strength), the frames in the message its callers."""
    candidates: dict[str, _Candidate] = {}
    paths = TracePaths(reader)
    context = error_context(parsed, paths)
    frames: tuple[tuple[str, float], ...] = ()
    if enclosing is not None:
        here = Frame(enclosing.name, rel_path, line, "")
        for item in [*reader.units_for_symbol(enclosing.name, path=rel_path),
                     *reader.records_for_symbol(enclosing.name, path=rel_path),
                     *_changed_by(reader, here, enclosing.name, paths)]:
            candidates[_key(item)] = _Candidate(item, 1.0, enclosing.name, line)
        context = SearchContext((rel_path, *context.paths), (enclosing.name, *context.symbols))
        frames = ((enclosing.name, 1.0),)
    outer = _frame_candidates(reader, parsed.frames, paths, limit=4)
    _merge(candidates, outer.candidates)
    return candidates, (*frames, *outer.frames), context


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
