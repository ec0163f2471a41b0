"""Which evidence puts the right commit first (issue 12, round 27): the second stage's hits of
every tune question, dumped once, then re-ordered offline by variants of ``rerank`` and scored
as `whylens search` prints them (gate off; TUNE repositories only, in-sample).

    python bench/tune_top.py --tune --workdir DIR            # grid, its leave-one-out, deltas
    python bench/tune_top.py --tune --workdir DIR --verbose  # + questions moved, refits

Per question: the first ``rerank.DEPTH`` hits of the first stage, each one's second-stage
features (``rerank.feature_values``, and three candidates: the best sentence's snippet score,
the best non-subject sentence's coverage and cosine) and its printed block (title, then its
snippet less the title, within 256 characters). A variant's order is the model's value with its
coefficients, a hit of a change already shown folded away; the printed answer is the blocks in
that order (the figure tracks bench_questions.py's gate-off column, not exactly). Measures: the
answer sentence within the first 256 printed characters, the right commit first, MRR@10, over
the labelled answerable questions, the semantic dev set's (requests, express, mux) and the
keyword queries (bench/labels/queries-*.tsv: top 1 and MRR only). Also printed: the grid's
choice made on all tune repositories but one and scored on that one; per feature, how often
the right hit ranked 2nd-3rd (its block showing the answer) beats the first; ``--verbose``
refits the listwise model with the candidate features, leave one repository out.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qbench import ROOT, TUNE, answer_shown, ensure_index, questions, split_args, wanted_commits  # noqa: E402,I001

from tune_search import is_right  # noqa: E402
from whylens.index.store import IndexStore  # noqa: E402
from whylens.models import Record  # noqa: E402
from whylens.render.hits import flatten, without_title  # noqa: E402
from whylens.retrieval import rerank  # noqa: E402
from whylens.retrieval import search as search_module  # noqa: E402
from whylens.retrieval.snippets import pack  # noqa: E402

SEMANTIC_REPOS = {"psf/requests": "requests", "expressjs/express": "express",
                  "gorilla/mux": "mux"}


def tune_questions(name: str) -> list[tuple[str, str, str, set[str], str]]:
    """(source, id, question, wanted shas or prefixes, answer sentence)."""
    out = [("labelled", q["id"], q["question"], wanted_commits(q), q["answer"])
           for q in questions(name) if q["kind"] == "answerable"]
    for n, line in enumerate((ROOT / "bench" / "labels" / "semantic-dev.jsonl").read_text()
                             .splitlines()):
        row = json.loads(line)
        if SEMANTIC_REPOS.get(row["repo"]) == name:
            wanted = {row["commit"], *row.get("also", [])} - {""}
            for kind in ("natural", "adversarial"):
                out.append(("semantic", f"{name}-s{n}{kind[0]}", row[kind], wanted,
                            row["answer"]))
    tsv = ROOT / "bench" / "labels" / f"queries-{name}.tsv"
    lines = tsv.read_text().splitlines() if tsv.exists() else []
    for n, line in enumerate(lines):
        if line.strip() and not line.startswith("#") and "\t" in line:
            query, expected = line.split("\t")
            if expected.strip() != "NONE":
                out.append(("keyword", f"{name}-k{n}", query.strip(),
                            {p.strip() for p in expected.split(",") if p.strip()}, ""))
    return out


def dump(reader, text: str, wanted: set[str]) -> list[dict]:
    """The first stage's first ``rerank.DEPTH`` hits with their features and printed blocks."""
    ranking = search_module.rank(reader, text, load=rerank.DEPTH, second_stage=False)
    terms = reader.query_terms(ranking.plan.lexical)
    head = [s for s in ranking.ranked[:rerank.DEPTH] if s.item is not None]
    feats = rerank.sentence_features(reader, ranking.plan, terms, [s.item for s in head])
    rows = []
    for s, f in zip(head, feats):
        title = flatten(s.item.title)
        snippet = without_title(flatten(pack(f["sentences"], f["sentence_scores"], terms, 256,
                                             title=s.item.title)), title)
        values = rerank.feature_values(s, f) | extra_features(f)
        change = set(s.item.fixing_commits) if isinstance(s.item, Record) else set()
        rows.append({"values": values, "boost": s.boost, "change": change | {s.commit},
                     "right": is_right(s, wanted), "commit": s.commit,
                     "block": title + (f"\n{snippet}" if snippet else "")})
    return rows


def extra_features(f: dict) -> dict[str, float]:
    """Candidate evidence beyond the shipped features: the best sentence's snippet score, and
    coverage and meaning of the best sentence other than the first (the subject)."""
    body = range(1, len(f["sentences"]))
    return {"sentence_best": max(f["sentence_scores"], default=0.0),
            "body_coverage": max((f["coverages"][i] for i in body), default=0.0),
            "body_cosine": max((f["cosines"][i] for i in body), default=0.0)}


def order(rows: list[dict], coefficients: dict[str, float]) -> list[dict]:
    """The rows by the model's value, a later hit of a change already shown folded away (as
    ``search.fold_changes`` does by shared commits)."""
    value = [sum(coefficients.get(k, 0.0) * v for k, v in r["values"].items()) * r["boost"]
             for r in rows]
    out: list[dict] = []
    for _, r in sorted(zip(value, rows), key=lambda p: (-p[0], p[1]["commit"])):
        if not any(r["change"] & o["change"] for o in out):
            out.append(r)
    return out


def chosen_out(data: list[dict]) -> None:
    """Does choosing in the grid generalise? Per tune repository: the variant best on the
    others (answer shown in 256 characters, then top 1), scored on it, against shipped."""
    grid = variants()
    repos = sorted({d["id"].split("-")[0] for d in data})
    got = shipped = 0
    for repo in repos:
        train = [d for d in data if not d["id"].startswith(repo + "-")]
        test = [d for d in data if d["id"].startswith(repo + "-")]
        label = max(grid, key=lambda v: (measure(train, grid[v])[0], measure(train, grid[v])[1]))
        a, b = measure(test, grid[label])[0], measure(test, grid["shipped"])[0]
        got, shipped = got + a, shipped + b
        print(f"  {repo:<10} chosen on the others: {label:<62} {a:>3} (shipped {b})")
    print(f"  leave one repository out: {got} against shipped {shipped}")


def deltas(data: list[dict]) -> None:
    """Per feature: how often the right hit at rank 2-3 (its own block showing the answer)
    beats the hit at rank 1, and how often a right rank-1 hit beats the one below it."""
    names = list(data[0]["rows"][0]["values"]) if data and data[0]["rows"] else []
    up: list[tuple[dict, dict]] = []
    kept: list[tuple[dict, dict]] = []
    for d in data:
        ranked = order(d["rows"], rerank.COEFFICIENTS)
        rank = next((n for n, r in enumerate(ranked[:3], 1) if r["right"]), None)
        if rank and rank > 1 and answer_shown(d["answer"], ranked[rank - 1]["block"]) and \
                not answer_shown(d["answer"], "\n".join(r["block"] for r in ranked)):
            up.append((ranked[rank - 1]["values"], ranked[0]["values"]))
        elif rank == 1 and len(ranked) > 1:
            kept.append((ranked[0]["values"], ranked[1]["values"]))
    print(f"\n{len(up)} misses with the right hit 2nd-3rd, its block showing the answer; "
          f"{len(kept)} right at rank 1. Share where the right hit's feature is higher:")
    for name in names:
        a = sum(r[name] > w[name] for r, w in up) / max(len(up), 1)
        b = sum(r[name] > w[name] for r, w in kept) / max(len(kept), 1)
        print(f"  {name:<18} misses {a:5.2f}   kept {b:5.2f}")


_SHOWN: dict[tuple, bool] = {}  # (question, first hits) -> the answer shown in 256 characters


def measure(data: list[dict], coefficients: dict[str, float]) -> tuple[int, int, float, set]:
    shown = top1 = 0
    mrr = 0.0
    hits = set()
    for d in data:
        ranked = order(d["rows"], coefficients)
        key = (d["id"], tuple(r["commit"] for r in ranked[:4]))
        if key not in _SHOWN:
            _SHOWN[key] = bool(d["answer"]) and answer_shown(
                d["answer"], "\n".join(r["block"] for r in ranked[:4]))
        if _SHOWN[key]:
            shown += 1
            hits.add(d["id"])
        rank = next((n for n, r in enumerate(ranked[:10], 1) if r["right"]), None)
        top1 += rank == 1
        mrr += 1 / rank if rank else 0.0
    return shown, top1, mrr / max(len(data), 1), hits


FITTED = {"sentences": 0.4051, "explains": 0.2751}  # the priors as tune_search.py fitted them


def variants() -> dict[str, dict[str, float]]:
    """The shipped model, and a grid over its priors (sentences, explains, typed) and the best
    sentence's snippet score."""
    base = dict(rerank.COEFFICIENTS)
    out = {"shipped": base, "as fitted": base | FITTED}
    for s, e in ((FITTED["sentences"], 0.15), (0.2, FITTED["explains"]), (0.2, 0.14), (0.25, 0.15),
                 (0.3, 0.15)):
        out[f"sentences {s:.3f} explains {e:.3f}"] = base | {"sentences": s, "explains": e}
    for s, e, t, c, b in itertools.product(
            (0.2, 0.25, 0.3, 0.35, FITTED["sentences"]), (0.05, 0.1, 0.15, 0.2, FITTED["explains"]),
            (0.0, base["typed"]), (0.6, 0.85, base["title_coverage"]), (0.0, 1.0)):
        out[f"sentences {s:.3f} explains {e:.3f} typed {t:.3f} title {c:.2f} best {b}"] = \
            base | {"sentences": s, "explains": e, "typed": t, "title_coverage": c,
                    "sentence_best": b}
    return out


def fitted(data: list[dict], names: tuple[str, ...], lam: float, target: str
           ) -> dict[str, float]:
    """``tune_search.fit_listwise`` over ``names``; target: the right commit, or the right
    commit whose own block shows the answer ("shows")."""
    from tune_search import fit_listwise

    rows = []
    for d in data:
        if not d["rows"]:
            continue
        y = [float(r["right"] and (target != "shows" or answer_shown(d["answer"], r["block"])))
             for r in d["rows"]]
        rows.append({"x": np.array([[r["values"][n] for n in names] for r in d["rows"]]),
                     "y": np.array(y)})
    return dict(zip(names, fit_listwise(rows, lam)))


def leave_one_out(data: list[dict], names: tuple[str, ...], lam: float, target: str
                  ) -> tuple[int, int, float]:
    shown = top1 = 0
    mrr = 0.0
    for repo in sorted({d["id"].split("-")[0] for d in data}):
        train = [d for d in data if not d["id"].startswith(repo + "-")]
        test = [d for d in data if d["id"].startswith(repo + "-")]
        a = measure(test, fitted(train, names, lam, target))
        shown, top1, mrr = shown + a[0], top1 + a[1], mrr + a[2] * len(test)
    return shown, top1, mrr / max(len(data), 1)


def main() -> int:
    args, names, _ = split_args(__doc__, TUNE, TUNE)
    data: list[dict] = []
    for name in names:
        index_dir, _ = ensure_index(name, Path(args.workdir))
        with IndexStore(index_dir).reader() as reader:
            for source, qid, text, wanted, answer in tune_questions(name):
                data.append({"source": source, "id": qid, "answer": answer,
                             "rows": dump(reader, text, wanted)})
    labelled = [d for d in data if d["source"] == "labelled"]
    semantic = [d for d in data if d["source"] == "semantic"]
    print(f"{len(labelled)} labelled, {len(semantic)} semantic-dev questions")
    keyword = [d for d in data if d["source"] == "keyword"]
    rows = []
    for label, coefficients in variants().items():
        rows.append((label, measure(labelled, coefficients), measure(semantic, coefficients),
                     measure(keyword, coefficients)))
    print(f"{'variant':<62} {'labelled: 256 top1 mrr':>24} {'semantic: 256 top1 mrr':>24} "
          f"{'keyword: top1 mrr':>18}")
    best = sorted(rows[1:], key=lambda r: (-(r[1][0] + r[2][0]), -(r[1][1] + r[2][1])))[:15]
    for label, a, b, c in rows[:7] + best:
        print(f"{label:<62} {a[0]:>10} {a[1]:>5} {a[2]:7.3f} {b[0]:>10} {b[1]:>5} {b[2]:7.3f} "
              f"{c[1]:>5} {c[2]:7.3f}")
        if args.verbose:
            print(f"    + {sorted(a[3] - rows[0][1][3])}  - {sorted(rows[0][1][3] - a[3])}")
    chosen_out(labelled + semantic)
    deltas(pool := labelled + semantic)
    deltas(labelled)
    if not args.verbose:
        return 0
    extra = ("sentence_best", "body_coverage", "body_cosine")
    for names in (rerank.FEATURES, rerank.FEATURES + extra):
        for target in ("right", "shows"):
            for lam in (0.01, 0.1, 1.0):
                a = leave_one_out(pool, names, lam, target)
                print(f"fit {len(names)} features, target {target}, lambda {lam}: leave one "
                      f"repository out, labelled+semantic {a[0]} {a[1]} {a[2]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
