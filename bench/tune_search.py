"""Tune search's ranking on the TUNE repositories only; the held-out ones are never opened.

    python bench/tune_search.py --stage ranking     # first stage: semantic weight, type boosts
    python bench/tune_search.py --stage rerank      # second stage: fit rerank.COEFFICIENTS
    python bench/tune_search.py --stage sentences   # the sentence score's coverage share

Training questions, all over tune repositories: the labelled questions of requests, express,
mux and redis (answerable ones), the semantic dev set's natural and adversarial questions
(bench/labels/semantic-dev.jsonl: requests, express, mux) and the keyword queries of
bench/labels/queries-requests.tsv. The first stage is swept with the real ``search.rank``
(second stage off) over candidates fetched once (a reader that serves them from a cache). The
second stage is a listwise logistic model over the first ``rerank.DEPTH`` hits, its
regularisation chosen by leave-one-repository-out top 1; the printed block goes into
retrieval/rerank.py.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qbench import ROOT, TUNE, answer_shown, ensure_index, questions, wanted_commits  # noqa: E402

from whylens.index.store import IndexStore  # noqa: E402
from whylens.models import Record  # noqa: E402
from whylens.retrieval import rerank  # noqa: E402
from whylens.retrieval import search as search_module  # noqa: E402

POOL = 200
LAMBDAS = (0.001, 0.01, 0.1, 1.0)


class CachedReader:
    """A reader whose ``candidates`` come from a cache filled once at the widest pool."""

    def __init__(self, reader) -> None:
        self._reader = reader
        self._cache: dict[tuple, list] = {}
        self._terms: dict[str, list] = {}

    def __getattr__(self, name):
        return getattr(self._reader, name)

    def query_terms(self, query):
        if query not in self._terms:
            self._terms[query] = self._reader.query_terms(query)
        return self._terms[query]

    def candidates(self, query, meaning=None, lexical_n=100, semantic_n=100, **filters):
        key = (query, meaning, repr(sorted(filters.items())))
        if key not in self._cache:
            self._cache[key] = self._reader.candidates(query, meaning, lexical_n=POOL,
                                                       semantic_n=POOL, **filters)
        found = self._cache[key]
        pool = found.items
        lexical = sorted((c for c in pool if c.lexical > 0), key=lambda c: -c.lexical)[:lexical_n]
        semantic = sorted(pool, key=lambda c: -c.cosine)[:semantic_n]
        return replace(found, items=list({c.id: c for c in lexical + semantic}.values()))


def training_questions(name: str) -> list[tuple[str, str, set[str], str]]:
    """(source, question, wanted shas or sha prefixes, answer sentence) of one tune repo."""
    out = [("labelled", q["question"], wanted_commits(q), q["answer"])
           for q in questions(name) if q["kind"] == "answerable"]
    repos = {"psf/requests": "requests", "expressjs/express": "express", "gorilla/mux": "mux"}
    for line in (ROOT / "bench" / "labels" / "semantic-dev.jsonl").read_text().splitlines():
        row = json.loads(line)
        if repos.get(row["repo"]) == name:
            wanted = {row["commit"], *row.get("also", [])}
            out.append(("natural", row["natural"], wanted, row["answer"]))
            out.append(("adversarial", row["adversarial"], wanted, row["answer"]))
    tsv = ROOT / "bench" / "labels" / f"queries-{name}.tsv"
    if name in TUNE and tsv.exists():
        for line in tsv.read_text().splitlines():
            if line.strip() and not line.startswith("#") and "\t" in line:
                query, expected = line.split("\t")
                if expected.strip() != "NONE":
                    out.append(("keyword", query.strip(),
                                {p.strip() for p in expected.split(",") if p.strip()}, ""))
    return out


def is_right(scored, wanted: set[str]) -> bool:
    shas = [scored.commit]
    if isinstance(scored.item, Record):
        shas += list(scored.item.fixing_commits)
    return any(s.startswith(w) for s in shas for w in wanted)


def first_rank(ranked, wanted: set[str], depth: int = 10) -> int | None:
    for n, scored in enumerate(ranked[:depth], 1):
        if scored.item is not None and is_right(scored, wanted):
            return n
    return None


def open_readers(workdir: Path):
    readers = []
    for name in TUNE:
        index_dir, _ = ensure_index(name, workdir)
        readers.append((name, CachedReader(IndexStore(index_dir).reader()),
                        training_questions(name)))
    return readers


def stage_ranking(readers) -> None:
    base = search_module.WEIGHTS
    print(f"{'first stage (second stage off)':<50} {'top10':>6} {'top1':>6} {'mrr':>6}")
    results = []
    settings = [replace(base, semantic=w, typed_preference=t)
                for w, t in itertools.product((0.0, 0.2, 0.3, 0.4, 0.5, 0.6), (1.0, 0.8))]
    settings += [replace(base, type_boost=tuple((k, b if k != "commit" else 1.0)
                                                for k, _ in base.type_boost)) for b in (0.8, 1.2)]
    for weights in settings:
        ranks = [first_rank(search_module.rank(reader, text, weights=weights, load=10,
                                               second_stage=False).ranked, wanted)
                 for _, reader, qs in readers for _, text, wanted, _ in qs]
        n = len(ranks)
        row = (sum(r is not None for r in ranks) / n, sum(r == 1 for r in ranks) / n,
               sum(1 / r for r in ranks if r) / n)
        results.append((row, weights))
        label = (f"semantic={weights.semantic} typed={weights.typed_preference} "
                 f"unit boost={dict(weights.type_boost)['pattern']}")
        print(f"{label:<50} {row[0]:6.3f} {row[1]:6.3f} {row[2]:6.3f}")
    best = max(results, key=lambda pair: (pair[0][2] + pair[0][0], -pair[1].semantic))
    print(f"best first stage: semantic={best[1].semantic} typed={best[1].typed_preference} "
          f"boosts={best[1].type_boost}")


def rerank_data(readers) -> list[dict]:
    data = []
    for name, reader, qs in readers:
        for source, text, wanted, _ in qs:
            ranking = search_module.rank(reader, text, load=rerank.DEPTH, second_stage=False)
            terms = reader.query_terms(ranking.plan.lexical)
            head = [s for s in ranking.ranked[:rerank.DEPTH] if s.item is not None]
            feats = rerank.sentence_features(reader, ranking.plan, terms, [s.item for s in head])
            rows = [rerank.feature_values(s, f) for s, f in zip(head, feats)]
            data.append({"repo": name, "source": source, "x": np.array(
                [[r[f] for f in rerank.FEATURES] for r in rows], float).reshape(-1, len(
                    rerank.FEATURES)), "y": np.array([is_right(s, wanted) for s in head], float)})
    return data


def fit_listwise(data: list[dict], lam: float) -> np.ndarray:
    """Softmax over each question's hits, the right ones as the target; L2; gradient descent
    on standardised features, returned for raw features."""
    stacked = np.vstack([d["x"] for d in data if len(d["x"])])
    mean, std = stacked.mean(axis=0), stacked.std(axis=0)
    std[std == 0] = 1.0
    usable = [((d["x"] - mean) / std, d["y"] / d["y"].sum()) for d in data if d["y"].sum() > 0]
    w = np.zeros(stacked.shape[1])
    for _ in range(400):
        grad = np.zeros_like(w)
        for x, target in usable:
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            grad += x.T @ (p - target)
        w -= 0.5 * (grad / len(usable) + lam * w)
    return w / std


def top1_mrr(data: list[dict], w: np.ndarray | None) -> tuple[float, float]:
    top1 = mrr = 0.0
    for d in data:
        if not len(d["x"]):
            continue
        order = np.arange(len(d["x"])) if w is None else np.argsort(-(d["x"] @ w), kind="stable")
        for k, i in enumerate(order[:10]):
            if d["y"][i]:
                mrr += 1 / (k + 1)
                top1 += k == 0
                break
    return top1 / len(data), mrr / len(data)


def stage_rerank(readers) -> None:
    data = rerank_data(readers)
    print(f"{len(data)} training questions; the right commit in the first {rerank.DEPTH}: "
          f"{sum(d['y'].sum() > 0 for d in data)}")
    base = top1_mrr(data, None)
    print(f"first stage alone (in-sample): top1 {base[0]:.3f} mrr {base[1]:.3f}")
    best = None
    for lam in LAMBDAS:
        folds = []
        for held in TUNE:
            train = [d for d in data if d["repo"] != held]
            test = [d for d in data if d["repo"] == held]
            w = fit_listwise(train, lam)
            folds.append((top1_mrr(test, w), len(test), top1_mrr(test, None)))
        n = sum(size for _, size, _ in folds)
        top1 = sum(r[0] * size for r, size, _ in folds) / n
        mrr = sum(r[1] * size for r, size, _ in folds) / n
        print(f"  lambda {lam:<6} leave-one-repository-out: top1 {top1:.3f} mrr {mrr:.3f}")
        if best is None or (top1 + mrr) > best[1]:
            best = (lam, top1 + mrr)
    assert best is not None
    w = fit_listwise(data, best[0])
    for source in sorted({d["source"] for d in data}):
        subset = [d for d in data if d["source"] == source]
        print(f"  {source:<12} n={len(subset):<4} first stage top1/mrr "
              f"{top1_mrr(subset, None)[0]:.3f}/{top1_mrr(subset, None)[1]:.3f}  reranked "
              f"(in-sample) {top1_mrr(subset, w)[0]:.3f}/{top1_mrr(subset, w)[1]:.3f}")
    print("\n# paste into server/whylens/retrieval/rerank.py (lambda "
          f"{best[0]})\nCOEFFICIENTS = {{" + ", ".join(
              f'"{f}": {c:.4f}' for f, c in zip(rerank.FEATURES, w)) + "}")


def stage_sentences(readers) -> None:
    """Share of coverage in a sentence's score: is the labelled answer sentence inside the
    right commit's packed snippet (256 characters)?"""
    from whylens.retrieval.snippets import pack

    for share in (0.0, 0.2, 0.3, 0.5, 0.7, 1.0):
        found = total = 0
        for _, reader, qs in readers:
            for source, text, wanted, answer in qs:
                if source != "labelled":
                    continue
                ranking = search_module.rank(reader, text, load=rerank.DEPTH, second_stage=False)
                terms = reader.query_terms(ranking.plan.lexical)
                head = [s for s in ranking.ranked[:rerank.DEPTH]
                        if s.item is not None and is_right(s, wanted)]
                if not head:
                    continue
                feats = rerank.sentence_features(reader, ranking.plan, terms, [head[0].item])[0]
                covers = [share * c for c in feats["coverages"]]
                scores = [a + (1 - share) * b for a, b in zip(covers, feats["cosines"])]
                total += 1
                found += answer_shown(answer, pack(feats["sentences"], scores, terms, 256))
        print(f"  sentence score = {share} coverage + {1 - share:.1f} meaning: answer sentence "
              f"in the right commit's snippet {found}/{total}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", default="/tmp/search-bench")
    parser.add_argument("--stage", choices=("ranking", "rerank", "sentences"), required=True)
    args = parser.parse_args()
    readers = open_readers(Path(args.workdir))
    {"ranking": stage_ranking, "rerank": stage_rerank, "sentences": stage_sentences}[args.stage](
        readers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
