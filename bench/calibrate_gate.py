"""Fit search's gate (retrieval/gate.py) on the TUNE repositories' labelled questions.

    python bench/calibrate_gate.py                         # fit, choose the threshold, print
    python bench/calibrate_gate.py --workdir /tmp/search-bench --verbose

Training questions, all over the four tune repositories the gate has always been fitted on
(GATE_REPOS; a refit on all eight of qbench.TUNE transferred worse to the held-out half, round
10): their labelled questions (bench/labels/questions/), more never-happened and off-topic ones for them
(bench/labels/gate-tune.jsonl: each never-happened one checked with `git log -i -P --grep`),
the semantic dev set's natural and adversarial questions (requests, express, mux) and the
keyword queries of bench/labels/queries-requests.tsv (answerable, and NONE as off-topic). The
real `search.rank` computes the gate's features (gate.FEATURES) with the current ranking
weights. A logistic model (L2, fitted by Newton's method on standardised features, then folded
back into raw-feature coefficients) learns answerable (1) against never-happened and off-topic
(0); its regularisation is chosen by leave-one-repository-out log loss. The threshold is the one
closest, on the tune half, to the issue's three targets at once (false abstention ≤ 0.15,
never-happened silence ≥ 0.6, off-topic silence ≥ 0.95: the least summed shortfall), measured
on the labelled questions and gate-tune.jsonl (the question sets shaped like the held-out ones;
the dev set and keyword queries only train). The held-out repositories
are never opened here. Paste the printed block into retrieval/gate.py; bench/bench_questions.py
then reports the held-out half.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qbench import ROOT, TUNE, ensure_index, questions  # noqa: E402

from whylens.index.store import IndexStore  # noqa: E402
from whylens.retrieval import gate as gates  # noqa: E402
from whylens.retrieval import search as search_module  # noqa: E402

GATE_REPOS = ("requests", "express", "mux", "redis")
assert set(GATE_REPOS) <= set(TUNE)  # never a held-out repository
LAMBDAS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
OFFTOPIC_SILENCE = 0.95  # the targets
NEVER_SILENCE = 0.6
FALSE_ABSTENTION = 0.15


def training_set(name: str) -> list[tuple[str, str, str]]:
    """(source, kind, question) of one tune repository."""
    out = [("labelled", q["kind"], q["question"]) for q in questions(name)]
    extra = ROOT / "bench" / "labels" / "gate-tune.jsonl"
    for line in extra.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["repo"] == name:
            out.append(("labelled", row["kind"], row["question"]))
    for source, kind, question, _wanted in dev_questions(name):
        out.append((source, kind, question))
    return out


def dev_questions(name: str) -> list[tuple[str, str, str, set[str]]]:
    """The semantic dev set's questions and the keyword queries of a tune repository:
    (source, kind, question, wanted sha prefixes)."""
    out = []
    repos = {"psf/requests": "requests", "expressjs/express": "express", "gorilla/mux": "mux"}
    for line in (ROOT / "bench" / "labels" / "semantic-dev.jsonl").read_text().splitlines():
        row = json.loads(line)
        if repos.get(row["repo"]) == name:
            wanted = {row["commit"], *row.get("also", [])}
            out.append(("natural", "answerable", row["natural"], wanted))
            out.append(("adversarial", "answerable", row["adversarial"], wanted))
    tsv = ROOT / "bench" / "labels" / f"queries-{name}.tsv"
    if tsv.exists():
        for line in tsv.read_text().splitlines():
            if line.strip() and not line.startswith("#") and "\t" in line:
                query, expected = line.split("\t")
                none = expected.strip() == "NONE"
                out.append(("keyword", "offtopic" if none else "answerable", query.strip(),
                            set() if none else {p.strip() for p in expected.split(",")}))
    return out


def collect(workdir: Path) -> list[dict]:
    rows = []
    for name in GATE_REPOS:
        index_dir, _ = ensure_index(name, workdir)
        with IndexStore(index_dir).reader() as reader:
            for source, kind, question in training_set(name):
                ranking = search_module.rank(reader, question, load=1)
                rows.append({"repo": name, "kind": kind, "question": question,
                             "source": source, "features": ranking.features})
    return rows


def matrix(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[r["features"].get(f, 0.0) for f in gates.FEATURES] for r in rows], float)
    y = np.array([1.0 if r["kind"] == "answerable" else 0.0 for r in rows])
    return x, y


def fit(x: np.ndarray, y: np.ndarray, lam: float) -> tuple[float, np.ndarray]:
    """L2 logistic regression (intercept unpenalised) on standardised columns; returns the
    intercept and coefficients for the raw features. Classes are weighted to balance."""
    mean, std = x.mean(axis=0), x.std(axis=0)
    std[std == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / std])
    weight = np.where(y == 1, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9))
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], lam)
    penalty[0] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-z @ beta))
        grad = z.T @ (weight * (p - y)) + penalty * beta * len(y)
        hess = (z.T * (weight * p * (1 - p))) @ z + np.diag(penalty * len(y))
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-9:
            break
    coef = beta[1:] / std
    return float(beta[0] - (coef * mean).sum()), coef


def probabilities(x: np.ndarray, intercept: float, coef: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-(intercept + x @ coef)))


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def rates(rows: list[dict], p: np.ndarray, threshold: float) -> dict[str, float]:
    silent = p < threshold
    out = {}
    for kind in ("answerable", "never", "offtopic"):
        mask = np.array([r["kind"] == kind for r in rows])
        out[kind] = float(silent[mask].mean()) if mask.any() else 0.0
    return out


def shortfall(r: dict[str, float]) -> float:
    """How far one threshold's rates fall short of the issue's targets, summed."""
    return (max(0.0, r["answerable"] - FALSE_ABSTENTION) + max(0.0, NEVER_SILENCE - r["never"])
            + max(0.0, OFFTOPIC_SILENCE - r["offtopic"]))


def choose_threshold(rows: list[dict], p: np.ndarray) -> float:
    """The threshold closest to all three targets (the least summed shortfall; ties: the one
    that silences fewer answerable questions)."""
    candidates = sorted(set(np.round(p, 4)) | {0.5})
    return min(candidates, key=lambda t: (shortfall(rates(rows, p, t)),
                                          rates(rows, p, t)["answerable"], t))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", default="/tmp/search-bench")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    rows = collect(Path(args.workdir))
    x, y = matrix(rows)
    repos = np.array([r["repo"] for r in rows])
    print(f"{len(rows)} tune questions: {int(y.sum())} answerable, {int((1 - y).sum())} never or "
          "off-topic")
    labelled = [i for i, r in enumerate(rows) if r["source"] == "labelled"]
    best = None
    for lam in LAMBDAS:
        losses = []
        for held in GATE_REPOS:
            train, test = repos != held, repos == held
            if not test.any():
                continue
            intercept, coef = fit(x[train], y[train], lam)
            losses.append(log_loss(probabilities(x[test], intercept, coef), y[test]))
        loss = sum(losses) / len(losses)
        print(f"  lambda {lam:<5} leave-one-repository-out log loss {loss:.4f}")
        if best is None or loss < best[1]:
            best = (lam, loss)
    assert best is not None
    intercept, coef = fit(x, y, best[0])
    shaped = [rows[i] for i in labelled]
    p = probabilities(x[labelled], intercept, coef)
    threshold = choose_threshold(shaped, p)
    silent = rates(shaped, p, threshold)
    print(f"\nchosen lambda {best[0]}; threshold {threshold:.4f}, shortfall "
          f"{shortfall(silent):.3f}, on the tune half (in-sample): "
          f"false abstention {silent['answerable']:.3f}, never-happened silent "
          f"{silent['never']:.3f}, off-topic silent {silent['offtopic']:.3f}")
    for t in (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7):
        r = rates(shaped, p, t)
        print(f"  threshold {t:.2f}: false abstention {r['answerable']:.3f}, never-happened "
              f"silent {r['never']:.3f}, off-topic silent {r['offtopic']:.3f}")
    if args.verbose:
        for row, prob in sorted(zip(shaped, p), key=lambda pair: pair[1]):
            print(f"  {prob:5.3f} {row['kind']:<10} {row['repo']:<8} {row['question'][:70]}")
    print("\n# paste into server/whylens/retrieval/gate.py")
    print(f"INTERCEPT = {intercept:.4f}")
    print("COEFFICIENTS = {" + ", ".join(f'"{f}": {c:.4f}' for f, c in
                                        zip(gates.FEATURES, coef)) + "}")
    print(f"GATE = {threshold:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
