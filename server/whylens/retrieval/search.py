"""Search with a gate: the best cited units and records for a query, or silence.

Ranking is the index's (BM25F over the catch-all text × per-type boost × the unit's prior), with
one adjustment here: later hits from a commit already shown are discounted, so one verbose
commit does not fill the list. The gate then turns the top hit into a confidence in [0, 1]:

    coverage   = idf-weighted share of the query's words that the top hit contains
    margin     = (top score - best score of another commit) / top score
    confidence = coverage × (0.5 + 0.5 × margin)

A query word that appears nowhere in the index (df = 0) has the highest idf, so a question about
something the history never discussed ("kubernetes ingress" on requests) loses most of its weight
at once, while a paraphrase that shares the rare words of a commit keeps it. The margin tells a
clear winner from a toss-up between commits (measured: median margin 0.29 for right answers, 0.10
for wrong ones). Below ``GATE`` the answer is ``abstained`` with no hits: never a weak guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from whylens.history.links import WebLinks
from whylens.models import RECORD_TYPE, Hit, Record, Unit
from whylens.retrieval.citations import item_url

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader

# Calibrated with bench/calibrate_gate.py on hand-labelled queries over psf/requests and
# pallets/flask (bench/labels/queries-*.tsv; 99 answerable with indexed commits, 44 that the
# history cannot answer): the lowest threshold whose answered precision reaches 0.95. At 0.35:
# precision 0.97, recall 0.63, all 44 unanswerable queries silent; 0.30 answers 6% more queries
# at precision 0.91. Coverage alone reached precision 0.95 only at recall 0.58; plain, capped-idf,
# squared-idf and known-terms-only coverage separated worse. Re-run the script after any change
# to ranking, analysis or extraction.
GATE = 0.35
SAME_COMMIT_DISCOUNT = 0.8  # each further hit from one commit keeps this share of its score


@dataclass(frozen=True)
class SearchResult:
    query: str
    abstained: bool
    hits: list[Hit] = field(default_factory=list)
    confidence: float = 0.0  # the gate's measure for the top hit (0 when nothing matched)


def coverage(reader: IndexReader, query: str, item: Unit | Record) -> float:
    """Idf-weighted share of the query's words that ``item`` contains (0..1)."""
    terms = reader.query_terms(query)
    total = sum(t.idf for t in terms)
    if not terms or total <= 0:
        return 0.0
    covered = reader.covered(terms, item)
    return sum(t.idf for t, hit in zip(terms, covered) if hit) / total


def margin(ranked: list[tuple[Unit | Record, float]]) -> float:
    """How far the top hit is ahead of the best hit from another commit (0..1)."""
    top_item, top = ranked[0]
    if top <= 0:
        return 0.0
    first = _commit_of(top_item)
    runner_up = next((s for item, s in ranked[1:] if _commit_of(item) != first), 0.0)
    return max(0.0, (top - runner_up) / top)


def confidence(reader: IndexReader, query: str, ranked: list[tuple[Unit | Record, float]]
               ) -> float:
    if not ranked:
        return 0.0
    return coverage(reader, query, ranked[0][0]) * (0.5 + 0.5 * margin(ranked))


def search(reader: IndexReader, query: str, k: int = 10, types: list[str] | None = None,
           links: WebLinks | None = None, gate: float | None = None,
           **filters: str | None) -> SearchResult:
    """Top ``k`` hits for ``query`` or an abstention. ``filters``: path, author, since, until.
    ``links`` fills ``Hit.url`` (``citations.item_url``); ``gate`` overrides ``GATE``
    (calibration only)."""
    threshold = GATE if gate is None else gate
    ranked = reader.search(query, k=max(3 * k, 10), types=types, **filters)
    if not ranked:
        return SearchResult(query, True, [])
    ranked = _spread_commits(ranked)
    score = confidence(reader, query, ranked)
    ranked = ranked[:k]
    if score < threshold:
        return SearchResult(query, True, [], score)
    return SearchResult(query, False, [to_hit(item, s, links) for item, s in ranked], score)


def _spread_commits(ranked: list[tuple[Unit | Record, float]]) -> list[tuple[Unit | Record, float]]:
    seen: dict[str, int] = {}
    adjusted = []
    for item, score in ranked:
        key = _commit_of(item)
        repeat = seen.get(key, 0)
        seen[key] = repeat + 1
        adjusted.append((item, score * SAME_COMMIT_DISCOUNT**repeat))
    adjusted.sort(key=lambda pair: -pair[1])
    return adjusted


def _commit_of(item: Unit | Record) -> str:
    if isinstance(item, Record):
        return item.fixing_commits[0] if item.fixing_commits else item.id
    return item.commit


def to_hit(item: Unit | Record, score: float, links: WebLinks | None = None) -> Hit:
    """One ranked item as a ``Hit`` (the ``search --json`` result shape); the only conversion."""
    if isinstance(item, Record):
        return Hit(
            id=item.id, type=RECORD_TYPE, title=item.title,
            content=item.problem.text if item.problem else item.title, score=score,
            commit=item.fixing_commits[0] if item.fixing_commits else "", author=item.author,
            date=item.date, files=item.files, symbols=item.anchors, source=item.kind,
            url=item_url(item, links),
        )
    return Hit(
        id=item.id, type=item.type, title=item.title, content=item.content, score=score,
        commit=item.commit, author=item.author, date=item.date, files=item.files,
        symbols=item.symbols, source=item.source, url=item_url(item, links),
    )
