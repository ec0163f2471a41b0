"""Calibrate retrieval.search.GATE on labelled queries over real public repositories.

    python bench/calibrate_gate.py                       # requests + flask, default mirrors
    python bench/calibrate_gate.py --repo requests=/path/to/requests.git --workdir /tmp/calib

For each repository: index it with the real pipeline (`whylens index`, reused when already
there), run every labelled query of bench/labels/queries-<name>.tsv through `search` with the gate
off, and record the gate's confidence and whether an expected commit is among the top hits. Then
sweep the threshold and print, per threshold: answered precision (answered queries whose answer
holds an expected commit; an answer to a NONE query is wrong), recall (answerable queries answered
right), abstention accuracy (NONE queries left unanswered) and overall accuracy. The chosen
threshold is the lowest one whose answered precision reaches --target-precision, pooled over all
repositories (ties: higher recall). Reproducible: same mirrors, labels and code → same table.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from whylens.index.store import IndexStore  # noqa: E402
from whylens.models import Record  # noqa: E402
from whylens.retrieval.search import GATE, search  # noqa: E402

DEFAULT_MIRRORS = {
    "requests": "/work/.mirror/psf+requests/repo",
    "flask": "/work/.mirror/pallets+flask/repo",
}
TOP = 3  # an answer is right when an expected commit is among its first TOP hits


@dataclass
class Outcome:
    repo: str
    query: str
    expected: tuple[str, ...]  # sha prefixes; empty = NONE
    confidence: float
    right_at_1: bool
    right_at_top: bool
    reachable: bool  # some expected commit has a unit or record in the index
    top_commit: str
    top_title: str = ""


def load_labels(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    labels = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        query, expected = line.split("\t")
        wanted = () if expected.strip() == "NONE" else tuple(
            p.strip().lower() for p in expected.split(",") if p.strip())
        labels.append((query.strip(), wanted))
    return labels


def ensure_index(mirror: str, index_dir: Path, reindex: bool) -> float | None:
    """Index with the real CLI unless an index is already there; returns seconds spent."""
    if IndexStore(index_dir).exists() and not reindex:
        return None
    if reindex and index_dir.exists():
        shutil.rmtree(index_dir)  # `whylens index` alone would find it up to date
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "whylens", "index", "--repo", mirror, "--index-dir",
         str(index_dir), "--progress", "none"],
        check=True, cwd=ROOT,
    )
    return time.monotonic() - started


def item_commits(reader, hit) -> list[str]:
    if hit.type == "decision":
        record = reader.record(hit.id)
        return list(record.fixing_commits) if isinstance(record, Record) else [hit.commit]
    return [hit.commit]


def indexed_commits(reader) -> set[str]:
    shas = {u.commit for u in reader.iter_units()}
    for record in reader.iter_records():
        shas.update(record.fixing_commits)
    return shas


def evaluate(name: str, reader, labels) -> list[Outcome]:
    known = indexed_commits(reader)
    outcomes = []
    for query, expected in labels:
        result = search(reader, query, k=TOP, gate=0.0)
        commits = [item_commits(reader, h) for h in result.hits]
        match = [any(c.startswith(p) for c in cs for p in expected) for cs in commits]
        reachable = any(c.startswith(p) for c in known for p in expected)
        outcomes.append(Outcome(
            name, query, expected, result.confidence if result.hits else 0.0,
            bool(match[:1] and match[0]), any(match), reachable,
            commits[0][0][:8] if commits else "-",
            result.hits[0].title[:70] if result.hits else "",
        ))
    return outcomes


def sweep(outcomes: list[Outcome], threshold: float) -> dict:
    answerable = [o for o in outcomes if o.expected]
    unanswerable = [o for o in outcomes if not o.expected]
    answered = [o for o in outcomes if o.confidence >= threshold and o.top_commit != "-"]
    right = [o for o in answered if o.expected and o.right_at_top]
    silent_none = [o for o in unanswerable if o not in answered]
    return {
        "threshold": threshold,
        "answered": len(answered),
        "precision": len(right) / len(answered) if answered else 1.0,
        "recall": len(right) / len(answerable) if answerable else 0.0,
        "abstain_acc": len(silent_none) / len(unanswerable) if unanswerable else 1.0,
        "accuracy": (len(right) + len(silent_none)) / len(outcomes),
    }


def print_table(title: str, outcomes: list[Outcome], chosen: float | None = None) -> None:
    print(f"\n{title}: {len(outcomes)} queries "
          f"({sum(1 for o in outcomes if o.expected)} answerable, "
          f"{sum(1 for o in outcomes if not o.expected)} NONE)")
    print(f"{'gate':>5} {'answered':>8} {'precision':>9} {'recall':>7} {'abstain-acc':>11} "
          f"{'accuracy':>8}")
    for step in range(0, 21):
        row = sweep(outcomes, step / 20)
        mark = "  <- chosen" if chosen is not None and abs(row["threshold"] - chosen) < 1e-9 else ""
        mark += "  (GATE)" if abs(row["threshold"] - GATE) < 1e-9 else ""
        print(f"{row['threshold']:5.2f} {row['answered']:8d} {row['precision']:9.3f} "
              f"{row['recall']:7.3f} {row['abstain_acc']:11.3f} {row['accuracy']:8.3f}{mark}")


def choose(outcomes: list[Outcome], target: float) -> float:
    rows = [sweep(outcomes, step / 20) for step in range(0, 21)]
    good = [r for r in rows if r["precision"] >= target and r["answered"]]
    if good:
        return max(good, key=lambda r: (r["recall"], -r["threshold"]))["threshold"]
    return max(rows, key=lambda r: (r["precision"], r["recall"]))["threshold"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", action="append", default=[],
                        help="NAME=MIRROR (default: requests and flask mirrors)")
    parser.add_argument("--workdir", default="/tmp/whylens-calibration")
    parser.add_argument("--reindex", action="store_true")
    parser.add_argument("--target-precision", type=float, default=0.95)
    parser.add_argument("--verbose", action="store_true", help="print every query's outcome")
    parser.add_argument("--include-unreachable", action="store_true",
                        help="keep labels whose commits yielded no unit or record (they measure "
                        "extraction, not the gate, so they are left out by default)")
    args = parser.parse_args()
    repos = dict(item.split("=", 1) for item in args.repo) or DEFAULT_MIRRORS

    everything: list[Outcome] = []
    for name, mirror in repos.items():
        labels = load_labels(ROOT / "bench" / "labels" / f"queries-{name}.tsv")
        index_dir = Path(args.workdir) / name
        spent = ensure_index(mirror, index_dir, args.reindex)
        if spent is not None:
            print(f"{name}: indexed in {spent:.1f} s")
        with IndexStore(index_dir).reader() as reader:
            outcomes = evaluate(name, reader, labels)
        unreachable = [o for o in outcomes if o.expected and not o.reachable]
        answerable = [o for o in outcomes if o.expected]
        print(f"{name}: hit@1 {sum(o.right_at_1 for o in answerable)}/{len(answerable)}, "
              f"hit@{TOP} {sum(o.right_at_top for o in answerable)}/{len(answerable)}; "
              f"{len(unreachable)} labelled commits have no unit or record in the index")
        if args.verbose:
            for o in outcomes:
                status = "NONE" if not o.expected else ("ok" if o.right_at_top else "miss")
                reach = "" if o.reachable or not o.expected else " (label not indexed)"
                print(f"  {o.confidence:5.2f} {status:4} {o.top_commit} {o.query}{reach}\n"
                      f"{'':16}-> {o.top_title}")
        if not args.include_unreachable:
            outcomes = [o for o in outcomes if o.reachable or not o.expected]
        everything += outcomes
        print_table(name, outcomes)

    chosen = choose(everything, args.target_precision)
    print_table("all repositories", everything, chosen)
    none_conf = [o.confidence for o in everything if not o.expected]
    right_conf = [o.confidence for o in everything if o.expected and o.right_at_top]
    if none_conf and right_conf:
        print(f"\nconfidence median: right answers {statistics.median(right_conf):.2f}, "
              f"NONE queries {statistics.median(none_conf):.2f}")
    print(f"chosen gate: {chosen:.2f} (target answered precision {args.target_precision}); "
          f"retrieval.search.GATE = {GATE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
