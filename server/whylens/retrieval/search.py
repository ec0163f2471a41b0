"""Search with a gate: the commits, units and records that answer a question, or silence.

1. The question loses its scaffolding (``query.plan``).
2. Candidates: the best documents by BM25F and the most similar by meaning (the index's
   semantic vectors), each with both scores (``IndexReader.candidates``).
3. Each is scored by a convex mix: ``(1 - w) · lexical + w · meaning``, where lexical is BM25F
   over the query's total idf (so it reads as "how much of the question, weighted by rarity,
   this document holds") and meaning is the cosine above the candidates' median; times the
   type's prior (typed units and records are the distilled layer), times a boost for knowledge
   anchored where the caller is (``SearchContext``: files, symbols, stack frames); recency breaks
   near-ties.
4. One hit per commit (a record stands for its fixing commits): its best-scoring document, the
   typed one when it scores nearly as well as the commit document.
5. The gate (``gate.confidence``) turns features of the top hit into a probability that the
   question is about something the history holds; below ``GATE`` the answer is silence.
6. Each hit gets the sentence(s) of its commit message or record that answer the question
   (``snippets``), within a character budget.

Every weight and the threshold are set on the TUNE repositories only (bench/calibrate_gate.py,
bench/bench_questions.py --tune); the held-out figures are in docs/benchmarks.md.
"""

from __future__ import annotations

import logging
import re
import statistics
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from whylens.history.links import WebLinks
from whylens.models import COMMIT_TYPE, RECORD_TYPE, SNIPPET_BUDGET, Hit, Record, Unit
from whylens.retrieval import gate as gates
from whylens.retrieval import rerank
from whylens.retrieval.citations import item_url
from whylens.retrieval.query import QueryPlan, plan

if TYPE_CHECKING:
    from whylens.index.reader import Candidate, IndexReader

log = logging.getLogger(__name__)

K1_PLUS_1 = 2.2  # BM25F's K1 + 1: the most one query word can add, per unit of its idf


@dataclass(frozen=True)
class Weights:
    """The ranking's knobs (tuned on the tune half; see the module docstring)."""

    semantic: float = 0.4  # w of the convex mix (bench/tune_search.py --stage ranking)
    lexical_n: int = 100  # candidates by BM25F
    semantic_n: int = 100  # candidates by meaning
    context_n: int = 50  # the newest commits touching the context's files, ranked with the rest
    # Their prior, as a share of the best score (both stages). bench/bench_timetravel.py --tune
    # (requests, express, redis; 59 fixes): MRR@10 of the earlier fix to the same lines 0.302
    # without it, 0.376 at 0.4, 0.449 at 0.8, 0.401 at 1.5; the 10 most recent earlier fixes
    # 0.362; file_boost 0.3 vs 1.0 made no difference.
    context_prior: float = 0.8
    # the distilled layer (units, records) over raw commit documents; tune_search.py: 1.2 gave
    # MRR 0.614 against 0.610 at 1.0 and 0.587 at 0.8 (first stage, tune half)
    type_boost: tuple[tuple[str, float], ...] = (
        ("pattern", 1.2), ("skill", 1.2), ("fact", 1.2), ("decision", 1.2), ("commit", 1.0))
    typed_preference: float = 0.9  # a typed item represents its commit at this share of the best
    file_boost: float = 0.3  # knowledge touching a context file
    symbol_boost: float = 0.5  # knowledge anchored to a context symbol
    recency: float = 0.01  # at most this much of a score for being the newest candidate


WEIGHTS = Weights()
GATE = gates.GATE
SPARE = 5  # hits read beyond k, so that folding hits of one change still shows k changes
MAX_ALSO = 20  # commits a folded hit lists besides its own


@dataclass(frozen=True)
class SearchContext:
    """Where the caller is: files (repo-relative) and qualified or bare symbols; knowledge
    anchored there ranks higher (explain-error's frames, a hover, a review)."""

    paths: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.paths or self.symbols)


@dataclass(frozen=True)
class Scored:
    """One hit before it becomes a ``Hit``: the document shown for a commit, and its scores."""

    candidate: Candidate
    score: float
    lexical: float  # the best of the commit's documents: BM25F / (K1 + 1) / Σ idf, 0..1
    cosine: float  # the best of the commit's documents
    item: Unit | Record | None = None  # loaded for the hits shown and the gate's top hit
    boost: float = 1.0  # context and recency: multiplies its score in both stages
    prior: float = 0.0  # the context prior (newest commits touching the context's files)
    # for the hits ``rerank`` re-ordered: their sentences, each one's score, its features
    sentences: tuple[str, ...] = ()
    sentence_scores: tuple[float, ...] = ()
    features: dict[str, float] = field(default_factory=dict)

    @property
    def commit(self) -> str:
        return self.candidate.commit


@dataclass(frozen=True)
class Ranking:
    """Everything search decided before the gate (the calibration scripts read it whole)."""

    plan: QueryPlan
    ranked: list[Scored]
    features: dict[str, float] = field(default_factory=dict)
    notice: str | None = None  # said once: why search is lexical only


@dataclass(frozen=True)
class SearchResult:
    query: str
    abstained: bool
    hits: list[Hit] = field(default_factory=list)
    confidence: float = 0.0  # the gate's probability for the top hit (0 when nothing matched)
    notice: str | None = None  # e.g. semantic matching is off and why (say it once)


def rank(reader: IndexReader, query: str, types: list[str] | None = None,
         context: SearchContext | None = None, weights: Weights = WEIGHTS, load: int = 10,
         second_stage: bool = True, include: tuple[str, ...] = (),
         filters: dict[str, str | None] | None = None) -> Ranking:
    """Candidates scored and grouped by commit, best first, with the gate's features; the
    items of the first ``load`` hits are loaded, and the first ``rerank.DEPTH`` re-ordered by
    their sentences (``second_stage``). ``include``: ids of documents to rank whatever they
    score (the caller's own candidates); ``filters``: path, author, since, until."""
    q = plan(query)
    terms = reader.query_terms(q.lexical)
    total_idf = sum(t.idf for t in terms)
    if not terms and not q.meaning.strip():
        return Ranking(q, [])
    if context and context.paths and weights.context_n:
        include = (*include, *reader.recent_ids(context.paths, weights.context_n))
    found = reader.candidates(q.lexical, q.meaning, lexical_n=weights.lexical_n,
                              semantic_n=weights.semantic_n, types=types, include=include,
                              **(filters or {}))
    candidates = found.items
    notice = reader.semantic_problem
    if not candidates:
        return Ranking(q, [], gates.features(reader, q, terms, [], {}, found), notice)
    groups = _score(reader, candidates, total_idf, context, weights)
    ranked = [_representative(group, weights) for group in groups.values()]
    ranked.sort(key=lambda s: (-s.score, s.commit))
    depth = max(load, rerank.DEPTH) if second_stage else load
    ranked = _load(reader, ranked, depth, groups)
    if second_stage:
        ranked = rerank.apply(reader, q, terms, ranked, depth, prior_weight=weights.context_prior)
    return Ranking(q, ranked, gates.features(reader, q, terms, ranked, groups, found), notice)


def _score(reader: IndexReader, candidates: list[Candidate], total_idf: float,
           context: SearchContext | None, weights: Weights) -> dict[str, list[Scored]]:
    """First-stage scores, grouped by commit: the convex mix, times the type's boost and the
    context and recency boost, plus the context prior (the newest fixes touching the context's
    files: 1 for the newest, falling with each older one)."""
    semantic_on = reader.vector_index() is not None
    base = statistics.median(c.cosine for c in candidates) if semantic_on else 0.0
    near = reader.anchored(candidates, context.paths, context.symbols) if context else {}
    boosts = dict(weights.type_boost)
    oldest = min(c.ts for c in candidates)
    span = max(max(c.ts for c in candidates) - oldest, 1)
    w = weights.semantic if semantic_on else 0.0
    fixes = reader.fix_commits([c.commit for c in candidates if near.get(c.id, (0, 0))[0]])
    newest_first = sorted({c.commit: c.ts for c in candidates if c.commit in fixes}.items(),
                          key=lambda pair: (-pair[1], pair[0]))
    priors = {commit: 1.0 / (1.0 + n / 3) for n, (commit, _) in enumerate(newest_first)}
    scored = []
    for cand in candidates:
        lexical = cand.lexical / (K1_PLUS_1 * total_idf) if total_idf > 0 else 0.0
        meaning = max(0.0, (cand.cosine - base) / (1.0 - base)) if semantic_on else 0.0
        in_file, on_symbol = near.get(cand.id, (False, False))
        boost = (1.0 + weights.file_boost * in_file + weights.symbol_boost * on_symbol) * (
            1.0 + weights.recency * (cand.ts - oldest) / span)
        score = ((1 - w) * lexical + w * meaning) * boosts.get(cand.type, 1.0) * boost
        scored.append(Scored(cand, score, lexical, cand.cosine, boost=boost,
                             prior=priors.get(cand.commit, 0.0)))
    top = max((s.score for s in scored), default=0.0)
    groups: dict[str, list[Scored]] = {}
    for s in scored:
        lifted = replace(s, score=s.score + weights.context_prior * s.prior * top)
        groups.setdefault(s.commit, []).append(lifted)
    return groups


def _load(reader: IndexReader, ranked: list[Scored], n: int, groups: dict[str, list[Scored]]
          ) -> list[Scored]:
    """Attach the items of the first ``n`` hits (and of every document of the top commit, which
    the gate reads); hits whose item has vanished are dropped."""
    wanted = [s.candidate.id for s in ranked[:n]]
    if ranked:
        wanted += [s.candidate.id for s in groups.get(ranked[0].commit, [])]
    items = reader.load_items(list(dict.fromkeys(wanted)))
    for group in groups.values():
        group[:] = [replace(s, item=items.get(s.candidate.id)) for s in group]
    head = [replace(s, item=items.get(s.candidate.id)) for s in ranked[:n]]
    return [s for s in head if s.item is not None] + ranked[n:]


def search(reader: IndexReader, query: str, k: int = 10, types: list[str] | None = None,
           links: WebLinks | None = None, gate: float | None = None,
           budget: int = SNIPPET_BUDGET, context: SearchContext | None = None,
           **filters: str | None) -> SearchResult:
    """Top ``k`` hits for ``query`` or an abstention. ``filters``: path, author, since, until.
    ``links`` fills ``Hit.url`` (``citations.item_url``); ``gate`` overrides ``GATE``
    (calibration only); ``budget``: characters of answer sentences per hit."""
    from whylens.retrieval.snippets import pack, snippets

    threshold = GATE if gate is None else gate
    ranking = rank(reader, query, types=types, context=context, load=k + SPARE, filters=filters)
    if ranking.notice:
        _say_once(ranking.notice)
    if not ranking.ranked:
        return SearchResult(query, True, [], 0.0, ranking.notice)
    confidence = gates.confidence(ranking.features)
    if confidence < threshold:
        return SearchResult(query, True, [], confidence, ranking.notice)
    shown = [(s, s.item) for s in ranking.ranked[:k + SPARE] if s.item is not None]
    terms = reader.query_terms(ranking.plan.lexical)
    fresh = iter(snippets(reader, ranking.plan, [i for s, i in shown if not s.sentences], budget))
    texts = [pack(s.sentences, s.sentence_scores, terms, budget, title=item.title)
             if s.sentences else next(fresh) for s, item in shown]
    hits = fold_changes([(replace(to_hit(item, s.score, links), snippet=text), change_of(item))
                         for (s, item), text in zip(shown, texts)])[:k]
    items = {item.id: item for _, item in shown}
    hits = [_with_outcome(reader, hit, items[hit.id]) for hit in hits]
    return SearchResult(query, False, hits, confidence, ranking.notice)


def change_of(item: Unit | Record) -> tuple[str, ...]:
    """The commits of the change an item stands for: a record's fixing commits (a PR's merge
    and its own commits), else its commit."""
    if isinstance(item, Record):
        return item.fixing_commits or (item.id,)
    return (item.commit,)


def fold_changes(hits: list[tuple[Hit, tuple[str, ...]]]) -> list[Hit]:
    """One hit per change. A later hit folds into an earlier one that stands for the same
    change: one of its commits (a PR's record, and a unit or message of one of the PR's own
    commits), or the same subject (case, PR numbers and a final period aside), files and answer
    sentences (a cherry-pick to a release branch). Its commits go to the first hit's ``also``."""
    out: list[Hit] = []
    changes: list[set[str]] = []
    twins: dict[tuple, int] = {}
    for hit, commits in hits:
        key = (_subject_key(hit.title), frozenset(hit.files), _subject_key(hit.snippet))
        same = twins.get(key)
        if same is None:
            same = next((n for n, change in enumerate(changes) if change.intersection(commits)),
                        None)
        if same is None:
            twins[key] = len(out)
            changes.append(set(commits))
            out.append(hit)
            continue
        first = out[same]
        new = [c for c in commits if c not in changes[same]]  # ``also`` is within changes
        changes[same].update(commits)
        if new:
            out[same] = replace(first, also=(*first.also, *new)[:MAX_ALSO])
    return out


_REFS = re.compile(r"(?:\s*\(#\d+\))+\s*$|[.\s]+$")


def _subject_key(text: str) -> str:
    return " ".join(_REFS.sub("", text).lower().split())


def _representative(group: list[Scored], weights: Weights) -> Scored:
    """The document a commit is shown as: the best typed one when it scores nearly as well as
    the best (a labelled fact, skill, pattern or record reads better than a raw message); it
    carries the commit's best score and similarities."""
    best = max(group, key=lambda s: (s.score, s.candidate.id))
    typed = [s for s in group if s.candidate.type != COMMIT_TYPE]
    shown = best
    if typed:
        top_typed = max(typed, key=lambda s: (s.score, s.candidate.id))
        if top_typed.score >= weights.typed_preference * best.score:
            shown = top_typed
    return replace(shown, score=best.score, lexical=max(s.lexical for s in group),
                   cosine=max(s.cosine for s in group), boost=max(s.boost for s in group),
                   prior=max(s.prior for s in group))


def commit_of(item: Unit | Record) -> str:
    """The commit a hit stands for (a record: its first fixing commit, else its own id)."""
    if isinstance(item, Record):
        return item.fixing_commits[0] if item.fixing_commits else item.id
    return item.commit


def _with_outcome(reader: IndexReader, hit: Hit, item: Unit | Record) -> Hit:
    """A record's outcome; for a commit or unit hit, "reverted" and the revert's sha when a
    revert of its commit stands (what the history undid is never shown as current)."""
    from whylens.retrieval.evidence import record_outcome, standing_revert

    if isinstance(item, Record):
        outcome = record_outcome(reader, item, reader.superseding_candidates(item))
        revert = standing_revert(reader, *item.fixing_commits) if outcome == "reverted" else None
        return replace(hit, outcome=outcome, reverted_by=revert or "")
    revert = standing_revert(reader, item.commit) if item.commit else None
    return replace(hit, outcome="reverted", reverted_by=revert) if revert else hit


def to_hit(item: Unit | Record, score: float, links: WebLinks | None = None) -> Hit:
    """One ranked item as a ``Hit`` (the ``search --json`` result shape); the only conversion."""
    if isinstance(item, Record):
        return Hit(
            id=item.id, type=RECORD_TYPE, title=item.title,
            content=item.problem.text if item.problem else item.title, score=score,
            commit=item.fixing_commits[0] if item.fixing_commits else "", author=item.author,
            date=item.date, files=item.files, symbols=item.anchors, source=item.kind,
            url=item_url(item, links), problem=item.problem.text if item.problem else None,
            cause=tuple(c.text for c in item.cause),
            decision=tuple(c.text for c in item.decision),
            rejected=tuple(c.text for c in item.rejected),
        )
    return Hit(
        id=item.id, type=item.type, title=item.title, content=item.content, score=score,
        commit=item.commit, author=item.author, date=item.date, files=item.files,
        symbols=item.symbols, source=item.source, url=item_url(item, links),
    )


_said: set[str] = set()


def _say_once(message: str) -> None:
    if message not in _said:
        _said.add(message)
        log.warning("%s; search is lexical only", message)
