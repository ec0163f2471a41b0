"""Pseudo-relevance feedback: the words the best first-stage hits share that the question lacks.

A question says "background save" where the commit says "fork" and "child"; "replica" where it
says "slave"; "eviction limit" where it says "maxmemory". The first stage's best hits of such a
question are mostly about the same subject, and their words bridge the gap: the words that
weigh most across the first ``DOCS`` hits (each hit by its score's share of the best, each word
by its share of the hit's words and its idf), held by at least ``MIN_DOCS`` of them and by at
most ``MAX_SHARE`` of the index (``MIN_CAP`` documents in a small one), are searched again
beside the question at ``WEIGHT`` of its weight (RM3, Lavrenko and Croft's relevance model, on
BM25F). Measured on the tune half (docs/benchmarks.md): ranking about the same, the gate's top
hits more telling (fewer false abstentions at the same threshold, more silence at the same
false abstention). Error searches (explain-error, pitfall hints: ``pitfalls.ERROR_SEARCH``) do
not use it.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING

from whylens.index.analysis import text_terms
from whylens.index.codec import record_text
from whylens.models import Unit

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader, QueryTerm
    from whylens.retrieval.search import Scored

DOCS = 10  # first-stage hits read
TERMS = 8  # words added
WEIGHT = 0.5  # their share of the question's weight (Σ idf)
MIN_DOCS = 2  # a word only one hit holds is that hit's, not the subject's
MAX_SHARE = 0.03  # words in more documents than this share say nothing about the subject
MIN_CAP = 15  # ... or than this many in a small index (3% of the smallest tune index, mux: 15.5)
MIN_LENGTH = 3


def terms(reader: IndexReader, head: list[Scored], query: list[QueryTerm]
          ) -> list[tuple[str, float]]:
    """(index term, idf) of the words to add, best first; [] when the hits share none."""
    head = head[:DOCS]
    if not head or head[0].score <= 0:
        return []
    items = reader.load_items([s.candidate.id for s in head])
    asked = {t.group.whole for t in query} | {p for t in query for p in t.group.parts}
    weight: dict[str, float] = {}
    holders: Counter[str] = Counter()
    for s in head:
        item = items.get(s.candidate.id)
        if item is None:
            continue
        if isinstance(item, Unit):
            body = [item.title, item.content, *item.symbols]
        else:
            body = [item.title, record_text(item), *item.anchors]
        words = [w for w in text_terms("\n".join(body)) if len(w) >= MIN_LENGTH and not w.isdigit()]
        share = s.score / head[0].score
        for word, count in Counter(words).items():
            if word not in asked:
                weight[word] = weight.get(word, 0.0) + share * count / len(words)
                holders[word] += 1
    shared = [w for w in weight if holders[w] >= MIN_DOCS]
    n, df = reader.term_frequencies(shared)
    n = max(n, 1)
    scored = []
    for word in shared:
        if 0 < df[word] <= max(MAX_SHARE * n, MIN_CAP):
            idf = math.log(1 + (n - df[word] + 0.5) / (df[word] + 0.5))
            scored.append((weight[word] * idf, word, idf))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [(word, idf) for _, word, idf in scored[:TERMS]]
