"""Tune the known-pitfall scoring (retrieval/pitfall_signals.py) on the TUNE repositories' errors.

    python bench/tune_errors.py [WORKDIR]     # sweep, print the best settings

Errors: bench/labels/errors/{requests,httpx,express}.jsonl (known, with the commits that explain
them, and unrelated). Each error's candidates and their signals are computed once with the
real code (`explain_error`'s frames and search); every setting of the signal weights, the
commit documents' prior and the gate then re-scores them. A setting is feasible when it keeps
at least 90% of the unrelated errors silent and obeys the design rules of
`pitfall_signals`: no single signal passes alone; neither do all the where-it-failed signals
together (the failing symbol, its newest change, a text naming it, a fix word) without a word
of what failed, nor a generic builtin failure name (``TypeError``) with the failing symbol;
a specific one (``PoolExhaustedError``) with the failing symbol or search's first hit passes
(the table of tests/unit/retrieval/test_pitfalls.py). The best feasible setting puts a relevant
commit in the top 3 for the most known errors (ties: more silence, then the higher gate). The
held-out repositories are never opened.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from bench_errors import file_at  # noqa: E402
from qbench import ERRORS_TUNE, MIRRORS, ensure_index, errors  # noqa: E402

from whylens.index.store import IndexStore  # noqa: E402
from whylens.retrieval import pitfall_signals as ps  # noqa: E402
from whylens.retrieval import pitfalls  # noqa: E402
from whylens.retrieval.errortext import parse_error_text  # noqa: E402
from whylens.symbols.languages import language_for_path  # noqa: E402
from whylens.symbols.outline import outline  # noqa: E402

SILENCE = 0.9
GRID = {
    "name": (0.4, 0.6), "symbol": (0.3, 0.45, 0.6), "words": (0.3, 0.5),
    "retrieval": (0.3, 0.5, 0.7), "fix": (0.0, 0.1, 0.2), "absent": (0.0, 0.2, 0.4),
    "names": (0.0, 0.2, 0.4),
}
COMMIT_PRIORS = (0.7, 0.85, 1.0)
GATES = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)


def collect(workdir: Path) -> tuple[list[dict], list[dict]]:
    """Each error's candidates as explain-error finds them, and as the hint finds them for
    the errors reported on a line (the file as it was at ``as_of``)."""
    explained, hinted = [], []
    for name in ERRORS_TUNE:
        index_dir, _ = ensure_index(name, workdir)
        with IndexStore(index_dir).reader() as reader:
            for row in errors(name):
                parsed = parse_error_text(row["text"])
                paths = pitfalls.TracePaths(reader)
                found = pitfalls._frame_candidates(reader, parsed.frames, paths)
                candidates = pitfalls._search_candidates(
                    reader, parsed, context=pitfalls.error_context(parsed, paths),
                    anchored=found.candidates)
                explained.append(_row(row, parsed, candidates, found.frames))
                if row.get("path") and row.get("line"):
                    text = file_at(MIRRORS[name], row["as_of"], row["path"])
                    language = language_for_path(row["path"])
                    symbols = outline(text.encode(), language) if text and language else []
                    pool = pitfalls.line_pool(reader, row["path"], symbols, {
                        "line": row["line"], "message": row["message"], "code": None})
                    if pool is not None:
                        hinted.append(_row(row, pool.parsed, pool.candidates, pool.frames))
    return explained, hinted


def _row(row: dict, parsed, candidates: dict, frames) -> dict:
    scored = []
    for cand in candidates.values():
        signals = ps.signals(cand.item, parsed, cand.symbol, cand.retrieval, frames)
        scored.append((ps.kind_of(cand.item), pitfalls.commits_of(cand.item), signals))
    return {"id": row["id"], "kind": row["kind"], "relevant": set(row["relevant"]),
            "candidates": scored}


class Matrix:
    """Every candidate's signals as one array (rows: candidates of all errors), so that a
    setting re-scores them all at once; ``ps.confidence`` is the same formula."""

    def __init__(self, rows: list[dict]):
        self.rows = rows
        self.signals = np.array([[signals.get(n, 0.0) for n in GRID] for row in rows
                                 for _kind, _commits, signals in row["candidates"]], dtype=float)
        self.kinds = [kind for row in rows for kind, _c, _s in row["candidates"]]
        self.spans: list[tuple[int, int]] = []
        start = 0
        for row in rows:
            self.spans.append((start, start + len(row["candidates"])))
            start += len(row["candidates"])

    def confidences(self, weights: dict, priors: dict) -> np.ndarray:
        w = np.array([weights.get(n, 0.0) for n in GRID])
        prior = np.array([priors.get(k, 0.7) for k in self.kinds])
        return np.round(prior * (1.0 - np.prod(1.0 - self.signals * w, axis=1)), 4)


def top3(row: dict, confidences: np.ndarray, depth: int = 3) -> list[tuple[float, bool]]:
    """The first ``depth`` pitfalls (one per commit) as (confidence, relevant), gate aside."""
    seen: set[str] = set()
    top: list[tuple[float, bool]] = []
    for i in np.argsort(-confidences, kind="stable"):  # one pitfall per commit, as _one_per_commit
        commits = row["candidates"][i][1]
        if commits & seen:
            continue
        seen |= commits
        top.append((float(confidences[i]), bool(commits & row["relevant"])))
        if len(top) == depth:
            break
    return top


def evaluate(matrix: Matrix, weights: dict, priors: dict, gates=GATES, depth: int = 3
             ) -> dict[float, tuple[float, float]]:
    """{gate: (known errors with a relevant commit in the first ``depth`` pitfalls, unrelated
    errors silent)}. The hint shows one pitfall per line (``per_line``): depth 1."""
    rows = matrix.rows
    known = sum(r["kind"] == "known" for r in rows)
    unrelated = sum(r["kind"] == "unrelated" for r in rows)
    hits = dict.fromkeys(gates, 0)
    silent = dict.fromkeys(gates, 0)
    scores = matrix.confidences(weights, priors)
    for row, (start, end) in zip(rows, matrix.spans):
        top = top3(row, scores[start:end], depth)
        for gate in gates:
            if row["kind"] == "known":
                hits[gate] += any(rel and c >= gate for c, rel in top)
            else:
                silent[gate] += not top or top[0][0] < gate
    return {g: (hits[g] / max(known, 1), silent[g] / max(unrelated, 1)) for g in gates}


def feasible(weights: dict, priors: dict, gate: float) -> bool:
    """The design rules (module docstring)."""
    strongest = max(priors.values())

    def passes(values: dict, prior: float = strongest) -> bool:
        return ps.confidence("pattern", values, weights, {"pattern": prior}) >= gate

    if any(passes({signal: 1.0}) for signal in weights):
        return False  # one signal alone
    if passes(dict.fromkeys(ps.WHERE, 1.0)):
        return False  # the failing function and its history, no word of what failed
    if passes({"name": ps.GENERIC_NAME, "symbol": 1.0}):
        return False  # a builtin failure name (TypeError) in the failing function
    return passes({"name": 1.0, "symbol": 1.0}, 1.0) and passes({"name": 1.0, "retrieval": 1.0},
                                                                  1.0)


def main() -> int:
    explained, hinted = collect(Path("/tmp/search-bench") if len(sys.argv) < 2
                                else Path(sys.argv[1]))
    print(f"{sum(r['kind'] == 'known' for r in explained)} known, "
          f"{sum(r['kind'] == 'unrelated' for r in explained)} unrelated tune errors; on a "
          f"line (the hint): {sum(r['kind'] == 'known' for r in hinted)} known, "
          f"{sum(r['kind'] == 'unrelated' for r in hinted)} unrelated")
    both = Matrix(explained), Matrix(hinted)
    now = [evaluate(m, ps.WEIGHTS, ps.TYPE_PRIOR, (ps.GATE,), d)[ps.GATE]
           for m, d in zip(both, (3, 1))]
    print("current settings: explain-error top-3 {:.3f}, silent {:.3f}; hint {:.3f}, silent "
          "{:.3f}".format(*now[0], *now[1]))
    names = list(GRID)
    results = []
    for values in itertools.product(*GRID.values(), COMMIT_PRIORS):
        weights = dict(zip(names, values[:-1]))
        priors = {**ps.TYPE_PRIOR, "commit": values[-1]}
        gates = tuple(g for g in GATES if feasible(weights, priors, g))
        if not gates:
            continue
        explain, hint = (evaluate(m, weights, priors, gates, d) for m, d in zip(both, (3, 1)))
        for gate in gates:
            results.append((*explain[gate], *hint[gate], gate, *values))
    best = sorted((r for r in results if r[1] >= SILENCE and r[3] >= SILENCE),
                  key=lambda r: (-(r[0] + r[2]), -r[0], -(r[1] + r[3]), -r[4]))
    print("best feasible settings (explain top-3, silent, hint top-3, silent, gate, "
          + ", ".join(names) + ", commit prior):")
    for r in best[:15]:
        print("  " + "  ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
