"""Train the sentence classifier shipped in server/whylens/knowledge/data/.

    python bench/train_sentences.py            # train on the tune labels, write the model
    python bench/train_sentences.py --cv-only  # leave-one-repository-out figures, write nothing
    python bench/train_sentences.py --keep role  # retrain the unit head only

Two multinomial logistic regressions (unit type, record role) over ``knowledge.features``,
trained on the hand-labelled sentences of the TUNE repositories only (bench/labelling/GUIDE.md);
the held-out ones are for bench/eval_sentences.py. The L2 strength is chosen by
leave-one-repository-out cross-validation (log loss), and so are the per-class thresholds: the
lowest probability at which the cross-validated precision of that class reaches its target
(``TARGETS``). Deterministic: the same labels give the same file byte for byte.

Training uses numpy; the package reads the result with plain Python.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sentence_corpus import ROLE_CLASSES, TUNE, UNIT_CLASSES, Labelled, features_of, load  # noqa: E402

from whylens.knowledge.classify import DATA_DIR, FORMAT, MANIFEST_FILE, MODEL_FILE  # noqa: E402

LAMBDAS = (8.0, 16.0, 32.0)
ITERATIONS = 400
LEARNING_RATE = 0.05
MIN_SENTENCES = 3  # a word feature must occur in this many training sentences
MIN_REPOS = 2  # ... of at least this many repositories (no repository's private vocabulary)
PRUNE = 0.005  # weights smaller than this are left out of the file
# Precision each class must reach (cross-validated) before the classifier may choose it. For the
# unit type the gate is "any": 1 - P(none), whether the sentence is knowledge at all (the three
# types are too few apart to threshold one by one); the type is then the most probable one.
TARGETS = {
    "unit": {"any": 0.60},
    "role": {"problem": 0.80, "cause": 0.80, "decision": 0.80, "rejected": 0.85},
}
THRESHOLD_GRID = [round(x, 2) for x in np.arange(0.20, 0.96, 0.05)]


def featurise(rows: list[Labelled]) -> list[set[str]]:
    return [features_of(row) for row in rows]


def vocabulary(feats: list[set[str]], repos: list[str]) -> list[str]:
    count: Counter = Counter()
    where: dict[str, set[str]] = defaultdict(set)
    for fs, repo in zip(feats, repos):
        for f in fs:
            count[f] += 1
            where[f].add(repo)
    keep = []
    for f, n in count.items():
        lexical = f.split(":", 1)[0] in ("w", "b", "first", "first2")
        if n >= (MIN_SENTENCES if lexical else 2) and (not lexical or len(where[f]) >= MIN_REPOS):
            keep.append(f)
    return sorted(keep)


class Sparse:
    """A binary sentence × feature matrix as (row, column) index pairs."""

    def __init__(self, feats: list[set[str]], vocab: list[str]) -> None:
        index = {f: i for i, f in enumerate(vocab)}
        rows, cols = [], []
        for r, fs in enumerate(feats):
            for f in sorted(fs):
                i = index.get(f)
                if i is not None:
                    rows.append(r)
                    cols.append(i)
        self.rows = np.array(rows, dtype=np.int64)
        self.cols = np.array(cols, dtype=np.int64)
        self.shape = (len(feats), len(vocab))
        self.bias = index.get("bias")
        self._prepare()

    def dot(self, w: np.ndarray) -> np.ndarray:
        """X @ w: rows are in order and none is empty (every sentence has the bias feature)."""
        return np.add.reduceat(w[self.cols], self._row_starts, axis=0)

    def tdot(self, g: np.ndarray) -> np.ndarray:
        """X.T @ g: by column (every vocabulary feature occurs in the matrix it came from;
        a column that does not gets zeros)."""
        out = np.zeros((self.shape[1], g.shape[1]))
        sums = np.add.reduceat(g[self.rows[self._by_col]], self._col_starts, axis=0)
        out[self._present] = sums
        return out

    def _prepare(self) -> None:
        self._row_starts = np.searchsorted(self.rows, np.arange(self.shape[0]))
        self._by_col = np.argsort(self.cols, kind="stable")
        cols_sorted = self.cols[self._by_col]
        self._present, self._col_starts = np.unique(cols_sorted, return_index=True)


def fit(x: Sparse, y: np.ndarray, classes: int, lam: float) -> np.ndarray:
    """Weights (features × classes) of an L2-penalised multinomial logistic regression (Adam);
    the bias feature is not penalised."""
    w = np.zeros((x.shape[1], classes))
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    onehot = np.eye(classes)[y]
    n = len(y)
    mask = np.ones((x.shape[1], 1))
    if x.bias is not None:
        mask[x.bias] = 0
    for t in range(1, ITERATIONS + 1):
        p = softmax(x.dot(w))
        grad = x.tdot(p - onehot) / n + lam * mask * w / n
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= LEARNING_RATE * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return w


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def labels_of(rows: list[Labelled], task: str) -> np.ndarray:
    classes = UNIT_CLASSES if task == "unit" else ROLE_CLASSES
    return np.array([classes.index(getattr(r, task)) for r in rows])


def cross_validate(rows, feats, task: str, lam: float) -> np.ndarray:
    """Out-of-fold probabilities, one repository held out at a time."""
    classes = UNIT_CLASSES if task == "unit" else ROLE_CLASSES
    y = labels_of(rows, task)
    repos = [r.repo for r in rows]
    out = np.zeros((len(rows), len(classes)))
    for held in sorted(set(repos)):
        train = [i for i, r in enumerate(repos) if r != held]
        test = [i for i, r in enumerate(repos) if r == held]
        vocab = vocabulary([feats[i] for i in train], [repos[i] for i in train])
        w = fit(Sparse([feats[i] for i in train], vocab), y[train], len(classes), lam)
        out[test] = softmax(Sparse([feats[i] for i in test], vocab).dot(w))
    return out


def log_loss(probs: np.ndarray, y: np.ndarray) -> float:
    return float(-np.mean(np.log(np.clip(probs[np.arange(len(y)), y], 1e-12, 1))))


def choose(probs: np.ndarray, classes, thresholds: dict[str, float]) -> list[str]:
    """What ``classify.Head.choose`` picks, for a whole matrix."""
    out = []
    for row in probs:
        if "any" in thresholds:
            best = max((p, c) for c, p in zip(classes, row) if c != "none")
            out.append(best[1] if 1 - row[classes.index("none")] >= thresholds["any"] else "none")
            continue
        ranked = sorted(((p, c) for c, p in zip(classes, row) if c != "none"), reverse=True)
        out.append(next((c for p, c in ranked if p >= thresholds.get(c, 1.01)), "none"))
    return out


def pick_thresholds(probs, y, classes, targets) -> dict[str, float]:
    """Per class, the lowest grid threshold whose CV precision reaches the target (with the
    other classes at their own thresholds); a class that never does gets the best-F1 one."""
    gold = [classes[i] for i in y]
    if "any" in targets:
        knowledge = [g != "none" for g in gold]
        for t in THRESHOLD_GRID:
            picked = [1 - row[classes.index("none")] >= t for row in probs]
            hits = sum(1 for p, k in zip(picked, knowledge) if p and k)
            if sum(picked) and hits / sum(picked) >= targets["any"]:
                return {"any": float(t)}
        return {"any": float(THRESHOLD_GRID[-1])}
    thresholds = {c: 0.5 for c in classes if c != "none"}
    for _ in range(3):  # classes interact through the argmax: settle in a few passes
        for c in thresholds:
            best, best_f1 = None, (-1.0, 0.0)
            for t in THRESHOLD_GRID:
                trial = dict(thresholds, **{c: t})
                pred = choose(probs, classes, trial)
                p, r, f = prf(pred, gold, c)
                if p >= targets[c] and best is None:
                    best = t
                if (f, -t) > best_f1:
                    best_f1 = (f, -t)
            thresholds[c] = best if best is not None else -best_f1[1]
    return {c: float(t) for c, t in thresholds.items()}


def prf(pred: list[str], gold: list[str], c: str) -> tuple[float, float, float]:
    tp = sum(1 for p, g in zip(pred, gold) if p == c and g == c)
    fp = sum(1 for p, g in zip(pred, gold) if p == c and g != c)
    fn = sum(1 for p, g in zip(pred, gold) if p != c and g == c)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def train(rows, feats, task: str, lam: float, thresholds) -> dict:
    classes = UNIT_CLASSES if task == "unit" else ROLE_CLASSES
    y = labels_of(rows, task)
    vocab = vocabulary(feats, [r.repo for r in rows])
    w = fit(Sparse(feats, vocab), y, len(classes), lam)
    bias = w[vocab.index("bias")]
    weights = {}
    for f, row in zip(vocab, w):
        if f != "bias" and np.max(np.abs(row)) >= PRUNE:
            weights[f] = [round(float(x), 4) for x in row]
    return {"classes": list(classes), "bias": [round(float(x), 4) for x in bias],
            "weights": weights, "thresholds": thresholds, "lambda": lam}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv-only", action="store_true")
    parser.add_argument("--out", type=Path, default=DATA_DIR)
    parser.add_argument("--keep", choices=("unit", "role"), action="append", default=[],
                        help="keep this head of the shipped model as it is (not retrained)")
    args = parser.parse_args()
    shipped = json.loads((DATA_DIR / MODEL_FILE).read_text()) if args.keep else {}
    rows = load(TUNE)
    feats = featurise(rows)
    print(f"{len(rows)} labelled sentences from {len(set(r.repo for r in rows))} tune repositories",
          flush=True)
    model = {"format": FORMAT, "meta": {"trained_on": sorted(set(r.repo for r in rows)),
                                        "sentences": len(rows)}}
    for task in ("unit", "role"):
        if task in args.keep:
            model[task] = shipped[task]
            print(f"{task}: kept as shipped")
            continue
        classes = UNIT_CLASSES if task == "unit" else ROLE_CLASSES
        y = labels_of(rows, task)
        losses = {}
        cv = {}
        for lam in LAMBDAS:
            cv[lam] = cross_validate(rows, feats, task, lam)
            losses[lam] = log_loss(cv[lam], y)
            print(f"  {task} lambda={lam}: CV log loss {losses[lam]:.4f}", flush=True)
        lam = min(LAMBDAS, key=lambda k: (losses[k], k))
        thresholds = pick_thresholds(cv[lam], y, classes, TARGETS[task])
        pred = choose(cv[lam], classes, thresholds)
        gold = [classes[i] for i in y]
        print(f"{task}: lambda {lam}, thresholds {thresholds}")
        knowledge = [p != "none" for p in pred]
        hits = sum(1 for p, g in zip(pred, gold) if p != "none" and g != "none")
        print(f"  CV any non-none: P {hits / max(sum(knowledge), 1):.2f} "
              f"R {hits / max(sum(g != 'none' for g in gold), 1):.2f}")
        for c in classes:
            if c != "none":
                p, r, f = prf(pred, gold, c)
                print(f"  CV (in-sample repos, out-of-fold) {c:9} P {p:.2f} R {r:.2f} F1 {f:.2f}"
                      f"  (n={gold.count(c)})")
        if not args.cv_only:
            model[task] = train(rows, feats, task, lam, thresholds)
    if args.cv_only:
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(model, sort_keys=True, separators=(",", ":")).encode()
    (args.out / MODEL_FILE).write_bytes(raw)
    manifest = {MODEL_FILE: {"sha256": hashlib.sha256(raw).hexdigest(), "bytes": len(raw)}}
    (args.out / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    print(f"wrote {args.out / MODEL_FILE} ({len(raw)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
