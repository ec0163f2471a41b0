"""The gate: is the question about something this history holds? A probability, or silence.

Features of a ranking (all computed from the top hit and the query, none from the labels):

- ``lexical``: the top commit's BM25F over (K1 + 1) × the query's total idf: how much of the
  question, weighted by rarity, it holds;
- ``coverage``: idf-weighted share of the query's words found in the top commit's documents;
- ``unknown``: idf-weighted share of the query's words that no document contains (a question
  about something the project never did names it: "zstd", "Raft", "GraphQL");
- ``foreign``: the same for the words that are in no document *as typed* and are no everyday
  English word either (``lexicon.is_foreign``: "WebSocket", whose parts web and socket are
  indexed; "JWT", "brotli"), while a user's own plain words ("truncates", "floor") are not:
  on the tune half 62 of 90 never-happened questions hold one, 13 of 76 answerable ones;
- ``cosine`` and ``cosine_gap``: the top commit's similarity by meaning, and how far it stands
  above the candidates' median (cosine alone is a poor gate: SEMANTIC.md);
- ``margin``: how far the top commit is ahead of the second;
- ``domain``: the question's similarity to the mean of every document (is it about this
  project at all?); ``cosine_z``: how far the top commit's similarity stands out of the whole
  index's (standard deviations above the mean);
- ``sentence_coverage``, ``sentence_cosine``: the same for the top hit's best single sentence;
- ``shared``: query clarity: the idf of the question's words that the best ``SHARED_TOP`` hits
  hold, averaged over those hits, in units of log N (N: the index's documents). The best hits of
  a real question agree on its rare words; those of a generic developer question ("undo my
  last commit") each hold a different common one, or none.

``confidence`` is a logistic model of those features, fitted on the TUNE repositories' labelled
questions (answerable vs never-happened and off-topic) by ``bench/calibrate_gate.py``, which
prints the coefficients below and the threshold ``GATE``: the one closest to the issue's
targets at once on the tune half (false abstention ≤ 0.15, never-happened silence ≥ 0.6,
off-topic silence ≥ 0.95).
"""

from __future__ import annotations

import math
import statistics
from typing import TYPE_CHECKING, Any

from whylens.retrieval.lexicon import is_foreign

if TYPE_CHECKING:
    from whylens.index.reader import Candidates, IndexReader, QueryTerm
    from whylens.retrieval.query import QueryPlan

FEATURES = ("lexical", "coverage", "unknown", "foreign", "cosine", "cosine_gap", "margin",
            "domain", "cosine_z", "sentence_coverage", "sentence_cosine", "shared")
SHARED_TOP = 3  # hits read for ``shared`` (bench/calibrate_gate.py: leave-one-repository-out)

# Fitted by bench/calibrate_gate.py on four tune repositories (requests, express, mux, redis;
# lambda 0.01); GATE is the threshold closest to the three targets at once. In-sample at
# GATE (labelled questions + gate-tune.jsonl, 290 questions): false abstention 0.118,
# never-happened silent 0.809, off-topic silent 0.933 (without ``shared``, same questions and
# indexes, the gate shipped before: 0.158 / 0.787 / 0.858; see docs/benchmarks.md).
INTERCEPT = -1.5221
COEFFICIENTS = {"lexical": 0.8619, "coverage": -0.1095, "unknown": -2.4054, "foreign": -4.1723,
                "cosine": 0.2782, "cosine_gap": 5.8824, "margin": 1.3189, "domain": 3.2069,
                "cosine_z": -0.3310, "sentence_coverage": 0.3839, "sentence_cosine": 0.3197,
                "shared": 2.1367}
GATE = 0.4957

def features(reader: IndexReader, q: QueryPlan, terms: list[QueryTerm], ranked: list[Any],
             groups: dict[str, list[Any]], found: Candidates) -> dict[str, float]:
    """The gate's inputs for ``ranked`` (``search.Scored``, best first; ``groups``: every scored
    document of each commit; ``found``: the candidates and the query's place in the index)."""
    total = sum(t.idf for t in terms)
    unknown = sum(t.idf for t in terms if t.df == 0) / total if total > 0 else 1.0
    foreign = sum(t.idf for t in terms if is_foreign(t.group.raw, t.whole_df))
    out = {name: 0.0 for name in FEATURES} | {
        "unknown": unknown, "foreign": foreign / total if total > 0 else 0.0,
        "domain": found.domain}
    if not ranked:
        return out
    top = ranked[0]
    covered = [False] * len(terms)
    for scored in groups.get(top.commit, [top]):
        if scored.item is not None:
            covered = [a or b for a, b in zip(covered, reader.covered(terms, scored.item))]
    coverage = sum(t.idf for t, hit in zip(terms, covered) if hit) / total if total > 0 else 0.0
    cosines = [s.cosine for s in ranked]
    second = ranked[1].score if len(ranked) > 1 else 0.0
    return out | {
        "lexical": top.lexical,
        "coverage": coverage,
        "cosine": top.cosine,
        "cosine_gap": top.cosine - statistics.median(cosines),
        "margin": (top.score - second) / top.score if top.score > 0 else 0.0,
        "cosine_z": (top.cosine - found.cosine_mean) / found.cosine_std
        if found.cosine_std > 0 else 0.0,
        "sentence_coverage": top.features.get("sentence_coverage", 0.0),
        "sentence_cosine": top.features.get("sentence_cosine", 0.0),
        "shared": shared(reader, terms, ranked),
    }


def shared(reader: IndexReader, terms: list[QueryTerm], ranked: list[Any]) -> float:
    """Σ idf of the query's indexed words, each times the share of the best ``SHARED_TOP``
    hits (those whose item is loaded) that hold it, over log N."""
    items = [s.item for s in ranked[:SHARED_TOP] if s.item is not None]
    if not items:
        return 0.0
    held = [reader.covered(terms, item) for item in items]
    mass = sum(t.idf * sum(h[i] for h in held) for i, t in enumerate(terms) if t.df > 0)
    return mass / len(items) / math.log(1 + max(reader.doc_count(), 1))


def confidence(values: dict[str, float]) -> float:
    """The fitted logistic model's probability that the question is answerable here."""
    z = INTERCEPT + sum(COEFFICIENTS[name] * values.get(name, 0.0) for name in FEATURES)
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))
