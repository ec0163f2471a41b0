"""Tune the known-pitfall scoring (retrieval/pitfall_signals.py) on the TUNE repositories' errors.

    python bench/tune_errors.py [WORKDIR]     # sweep, print the best settings

Errors: bench/labels/errors/<repo>.jsonl for the repositories of ``qbench.ERRORS_TUNE`` (known,
with the commits that explain them, and unrelated). Each error's candidates and their signals are computed once with the
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

Framed and frameless errors apart (round 28): an error with no failing function of this
repository (``pitfall_signals.setting``) has its own weights and gate. Each group is swept on
its own errors (the framed group with the hint, as before; the frameless one on explain-error,
its where-it-failed weights being moot), and the pair of settings chosen that puts a relevant
commit first-three for the most known errors while keeping at least ``SILENCE`` of all the
unrelated errors silent (both groups counted together), each setting obeying the rules above.
``--loro`` adds leave-one-repository-out figures for the frameless choice.
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
# Errors without a failing function here: symbol and names are 0 by construction.
FRAMELESS_GRID = {
    "name": (0.3, 0.4, 0.5, 0.6), "symbol": (0.0,), "words": (0.3, 0.4, 0.5, 0.6),
    "retrieval": (0.3, 0.4, 0.5, 0.6, 0.7), "fix": (0.0, 0.1, 0.2), "absent": (0.0, 0.2, 0.4),
    "names": (0.0,),
}


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
            "candidates": scored, "framed": bool(frames), "repo": row["repo"]}


class Matrix:
    """Every candidate's signals as one array (rows: candidates of all errors), so that a
    setting re-scores them all at once; ``ps.confidence`` is the same formula."""

    def __init__(self, rows: list[dict]):
        self.rows = rows
        self.signals = np.array([[signals.get(n, 0.0) for n in GRID] for row in rows
                                 for _kind, _commits, signals in row["candidates"]],
                                dtype=float).reshape(-1, len(GRID))
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


def evaluate(matrix: Matrix, weights: dict, priors: dict, gates=GATES, depth: int = 3,
             counts: bool = False) -> dict[float, tuple[float, float]]:
    """{gate: (known errors with a relevant commit in the first ``depth`` pitfalls, unrelated
    errors silent)}, as shares (or ``counts``). The hint shows one pitfall per line
    (``per_line``): depth 1."""
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
    if counts:
        return {g: (hits[g], silent[g]) for g in gates}
    return {g: (hits[g] / max(known, 1), silent[g] / max(unrelated, 1)) for g in gates}


def feasible(weights: dict, priors: dict, gate: float, framed: bool = True) -> bool:
    """The design rules (module docstring)."""
    strongest = max(priors.values())

    def passes(values: dict, prior: float = strongest) -> bool:
        return ps.confidence("pattern", values, weights, {"pattern": prior}) >= gate

    if any(passes({signal: 1.0}) for signal in weights):
        return False  # one signal alone
    if not framed:
        if passes({"name": ps.GENERIC_NAME, "fix": 1.0, "absent": 1.0}):
            return False  # a builtin failure name and a fix word, no word of the message
        return passes({"name": 1.0, "retrieval": 1.0}, 1.0)
    if passes(dict.fromkeys(ps.WHERE, 1.0)):
        return False  # the failing function and its history, no word of what failed
    if passes({"name": ps.GENERIC_NAME, "symbol": 1.0}):
        return False  # a builtin failure name (TypeError) in the failing function
    return passes({"name": 1.0, "symbol": 1.0}, 1.0) and passes({"name": 1.0, "retrieval": 1.0},
                                                                  1.0)


def sweep(matrices: tuple[Matrix, Matrix], grid: dict, framed: bool) -> list[tuple]:
    """Every feasible setting of ``grid`` on one group: (explain hits, silent, hint hits, hint
    silent, gate, *weights, commit prior), counts."""
    names = list(GRID)
    results = []
    for values in itertools.product(*grid.values(), COMMIT_PRIORS):
        weights = dict(zip(names, values[:-1]))
        priors = {**ps.TYPE_PRIOR, "commit": values[-1]}
        gates = tuple(g for g in GATES if feasible(weights, priors, g, framed))
        if not gates:
            continue
        explain, hint = (evaluate(m, weights, priors, gates, d, counts=True)
                         for m, d in zip(matrices, (3, 1)))
        for gate in gates:
            results.append((*explain[gate], *hint[gate], gate, *values))
    return results


def front(results: list[tuple]) -> list[tuple]:
    """The best setting for each (explain silent, hint silent) count: most hits (explain and
    hint), then more explain hits, then the higher gate."""
    best: dict[tuple[int, int], tuple] = {}
    for r in results:
        key = (r[1], r[3])
        if key not in best or (r[0] + r[2], r[0], r[4]) > (best[key][0] + best[key][2],
                                                          best[key][0], best[key][4]):
            best[key] = r
    return list(best.values())


def _split(rows: list[dict], framed: bool) -> list[dict]:
    return [r for r in rows if r["framed"] is framed]


def _totals(rows: list[dict]) -> tuple[int, int]:
    return sum(r["kind"] == "known" for r in rows), sum(r["kind"] == "unrelated" for r in rows)


def choose(explained: list[dict], hinted: list[dict]) -> list[tuple]:
    """The best pairs (framed setting, frameless setting), best first."""
    groups = {}
    for framed in (True, False):
        matrices = Matrix(_split(explained, framed)), Matrix(_split(hinted, framed))
        groups[framed] = front(sweep(matrices, GRID if framed else FRAMELESS_GRID, framed))
    known, unrelated = _totals(explained)
    hint_known, hint_unrelated = _totals(hinted)
    pairs = []
    for a in groups[True]:
        for b in groups[False]:
            silent = (a[1] + b[1]) / max(unrelated, 1)
            hint_silent = (a[3] + b[3]) / hint_unrelated if hint_unrelated else 1.0
            if silent < SILENCE or hint_silent < SILENCE:
                continue
            pairs.append(((a[0] + b[0]) / max(known, 1), silent,
                          (a[2] + b[2]) / max(hint_known, 1), hint_silent, a, b))
    pairs.sort(key=lambda p: (-(p[0] + p[2]), -p[0], -(p[1] + p[3]), -p[4][4], -p[5][4]))
    return pairs


def _current(explained: list[dict], hinted: list[dict], frameless: bool) -> list[tuple]:
    """(explain top-3, silent, hint top-3, silent) of the settings in pitfall_signals, for the
    framed group, the frameless group and all, as shares."""
    out = []
    for label, keep in (("framed", lambda r: r["framed"]), ("frameless", lambda r: not r["framed"]),
                        ("all", lambda r: True)):
        e = [r for r in explained if keep(r)]
        h = [r for r in hinted if keep(r)]
        hits = [0, 0, 0, 0]
        for framed in (True, False):
            weights, gate = ps.setting((("x", 1.0),) if framed or not frameless else ())
            for i, (rows, depth) in enumerate(((e, 3), (h, 1))):
                part = _split(rows, framed)
                if part:
                    got = evaluate(Matrix(part), weights, ps.TYPE_PRIOR, (gate,), depth,
                                   counts=True)[gate]
                    hits[2 * i] += got[0]
                    hits[2 * i + 1] += got[1]
        k, u = _totals(e)
        hk, hu = _totals(h)
        out.append((label, k, u, hits[0] / max(k, 1), hits[1] / max(u, 1),
                     hits[2] / max(hk, 1), hits[3] / max(hu, 1)))
    return out


def _fmt(r: tuple) -> str:
    return "  ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in r)


def loro(explained: list[dict], framed_setting: tuple) -> None:
    """Leave one repository out, frameless setting only (the framed one held as chosen): the
    frameless errors of each repository under the setting chosen on the others."""
    repos = sorted({r["repo"] for r in explained})
    frameless = _split(explained, False)
    total = [0, 0, 0, 0]
    for repo in repos:
        train = [r for r in explained if r["repo"] != repo]
        test = [r for r in frameless if r["repo"] == repo]
        if not test:
            continue
        pairs = choose(train, [])
        if not pairs:
            continue
        b = pairs[0][5]
        weights = dict(zip(GRID, b[5:-1]))
        priors = {**ps.TYPE_PRIOR, "commit": b[-1]}
        got = evaluate(Matrix(test), weights, priors, (b[4],), 3, counts=True)[b[4]]
        k, u = _totals(test)
        total = [total[0] + got[0], total[1] + got[1], total[2] + k, total[3] + u]
        print(f"  {repo:<22} frameless known {got[0]}/{k}, unrelated silent {got[1]}/{u}")
    print(f"  all (leave one repository out): known {total[0]}/{total[2]}, unrelated silent "
          f"{total[1]}/{total[3]}")


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    explained, hinted = collect(Path(args[0]) if args else Path("/tmp/search-bench"))
    for label, rows in (("explain-error", explained), ("the hint (on a line)", hinted)):
        for framed in (True, False):
            k, u = _totals(_split(rows, framed))
            print(f"{label}, {'framed' if framed else 'frameless'}: {k} known, {u} unrelated")
    for frameless in (False, True):
        print("settings in pitfall_signals" + (" (one setting for all)" if not frameless else
                                                " (frameless apart)") + ":")
        for r in _current(explained, hinted, frameless):
            print("  {} ({} known, {} unrelated): explain-error top-3 {:.3f}, silent {:.3f}; "
                  "hint {:.3f}, silent {:.3f}".format(*r))
    pairs = choose(explained, hinted)
    print("best feasible pairs (explain top-3, silent, hint top-3, silent; then framed and "
          "frameless settings as counts: explain hits, silent, hint hits, silent, gate, "
          + ", ".join(GRID) + ", commit prior):")
    for p in pairs[:10]:
        print("  " + _fmt(p[:4]))
        print("    framed    " + _fmt(p[4]))
        print("    frameless " + _fmt(p[5]))
    if "--loro" in sys.argv and pairs:
        loro(explained, pairs[0][4])
    return 0


if __name__ == "__main__":
    sys.exit(main())
