"""Second stage: the first ``DEPTH`` commits re-ordered by what their sentences say.

The first stage scores whole documents; a question is usually answered by one sentence. For
each of the first ``DEPTH`` hits this reads its candidate sentences (``snippets``), scores each
by idf-weighted word coverage and by meaning, and re-orders the hits by a linear model of:

- ``score``: the first stage's score; ``lexical`` and ``cosine``: the document's;
- ``sentence_coverage``, ``sentence_cosine``: the best single sentence's coverage and meaning;
- ``title_coverage``: the coverage of its title (a subject that repeats the question's words
  is often a changelog line, not the explanation);
- ``sentences``: log(1 + the number of sentences); ``typed``: a unit or record, not a bare
  commit document; ``explains``: sentences with a reason cue (because, otherwise, previously,
  prevents ...), at most 3; ``identifiers``: share of the question's code-like words it names.

The coefficients are fitted on the TUNE repositories (listwise logistic loss, leave one
repository out to choose the regularisation) by ``bench/tune_search.py --stage rerank``. The
sentence scores are kept on each hit so that its snippet is packed from them.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from whylens.retrieval.query import QueryPlan, looks_like_code
from whylens.retrieval.snippets import (candidate_sentences, coverage, entry_lines,
                                       reason_bonus, sentence_cosines, sentence_scores)

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader, QueryTerm

DEPTH = 15
FEATURES = ("score", "lexical", "cosine", "sentence_coverage", "sentence_cosine",
            "title_coverage", "sentences", "typed", "explains", "identifiers")
# Fitted by bench/tune_search.py --stage rerank on the tune half (230 questions; lambda 1.0;
# leave one repository out: top 1 0.539 -> 0.591, MRR 0.614 -> 0.652); then the two length
# priors cut (``sentences`` 0.4051, ``explains`` 0.2751 as fitted): a long message with many
# reason cues took the first place from a short one that answers (bench/tune_top.py, tune
# half: see docs/benchmarks.md, issue 12, round 27).
COEFFICIENTS = {"score": 1.4572, "lexical": 0.9102, "cosine": 1.1466, "sentence_coverage": 1.8108,
                "sentence_cosine": 1.3867, "title_coverage": 1.0994, "sentences": 0.25,
                "typed": 0.1272, "explains": 0.15, "identifiers": 0.3956}
_REASON = re.compile(
    r"\b(?:because|since|so that|otherwise|prevent\w*|previously|caus\w*|would|could|can't|"
    r"cannot|leads? to|in order to|avoid\w*|instead|which means|due to|reason\w*)\b", re.I)


def identifiers_of(q: QueryPlan) -> list[str]:
    """The question's code-like words, lower-cased, punctuation around them stripped."""
    words = (w.strip(".,;:!?\"'()[]{}`").lower() for w in q.lexical.split() if looks_like_code(w))
    return [w for w in words if len(w) > 1]


def sentence_features(reader: IndexReader, q: QueryPlan, terms: list[QueryTerm],
                      items: list[Any]) -> list[dict[str, Any]]:
    """Per item: its sentences, their scores, and the sentence-level features."""
    groups = [candidate_sentences(reader, item) for item in items]
    cosines = sentence_cosines(reader, q, [s for g in groups for s in g])
    idents = identifiers_of(q)
    reason = reason_bonus(q)
    out, offset = [], 0
    for item, group, appended in zip(items, groups, entry_lines(reader, items)):
        cos = cosines[offset:offset + len(group)]
        offset += len(group)
        cov = [coverage(terms, s) for s in group]
        text = " ".join(group).lower()
        out.append({
            "sentences": tuple(group),
            "coverages": tuple(cov),
            "cosines": tuple(cos),
            "sentence_scores": tuple(sentence_scores(terms, group, cos, item.title, appended,
                                                     reason)),
            "sentence_coverage": max(cov, default=0.0),
            "sentence_cosine": max(cos, default=0.0),
            "title_coverage": coverage(terms, item.title),
            "sentences_log": math.log1p(len(group)),
            "explains": float(min(3, sum(1 for s in group if _REASON.search(s)))),
            "identifiers": sum(1 for w in idents if w in text) / len(idents) if idents else 0.0,
        })
    return out


def apply(reader: IndexReader, q: QueryPlan, terms: list[QueryTerm], ranked: list[Any],
          depth: int = DEPTH, coefficients: dict[str, float] | None = None,
          prior_weight: float = 0.0) -> list[Any]:
    """``ranked`` (``search.Scored`` with items loaded) with its first ``depth`` re-ordered;
    each of those carries its sentences and their scores, and as its score the model's value
    times its context and recency boost, plus ``prior_weight`` × its context prior × the best
    value (the first stage's score is one of the model's features)."""
    weights = COEFFICIENTS if coefficients is None else coefficients
    head = [s for s in ranked[:depth] if s.item is not None]
    extra = sentence_features(reader, q, terms, [s.item for s in head])
    values = [feature_values(scored, feats) for scored, feats in zip(head, extra)]
    model = [sum(weights.get(name, 0.0) * v[name] for name in FEATURES) * s.boost
             for s, v in zip(head, values)]
    top = max(model, default=0.0)
    rescored = []
    for scored, feats, v, value in zip(head, extra, values, model):
        value += prior_weight * scored.prior * top
        rescored.append((value, replace(scored, score=value, sentences=feats["sentences"],
                                        sentence_scores=feats["sentence_scores"], features=v)))
    rescored.sort(key=lambda pair: (-pair[0], pair[1].commit))
    return [s for _, s in rescored] + list(ranked[depth:])


def feature_values(scored: Any, feats: dict[str, Any]) -> dict[str, float]:
    item = scored.item
    return {
        "score": scored.score, "lexical": scored.lexical, "cosine": scored.cosine,
        "sentence_coverage": feats["sentence_coverage"],
        "sentence_cosine": feats["sentence_cosine"], "title_coverage": feats["title_coverage"],
        "sentences": feats["sentences_log"],
        "typed": float(getattr(item, "type", "decision") != "commit"),
        "explains": feats["explains"], "identifiers": feats["identifiers"],
    }
