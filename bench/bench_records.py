"""Decision records from the history of a real repository, and the precision of their fields.

    python bench/bench_records.py [REPO] [--labels FILE] [--sample N] [--seed S]

Default REPO: the psf/requests mirror fetched for benchmarks. Prints, from one run:
- the walk alone (whylens.history.walk, the floor every record build stands on), anchoring of the
  fixing commits, and ``build_records`` + ``revert_pairs`` (time next to the walk);
- the baseline: commits whose subject names a PR (``Merge pull request #N``, ``… (#N)``), counted
  with ``git log`` — the upper bound of PR-owned work visible in the history;
- records by kind, ``fix_edge_source``, ``outcome_status``, ``thread_shape``; how many have a
  cause, a decision, rejected alternatives, anchors;
- with ``--labels`` (default bench/labels/records-<repo>.tsv when present): per-field precision
  over hand-labelled records (verdicts ``correct`` / ``wrong`` / ``empty``);
- with ``--sample N``: N records picked with a fixed seed, printed for labelling.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from whylens.history.blobs import BlobReader  # noqa: E402
from whylens.history.repo import open_repository  # noqa: E402
from whylens.history.walk import walk  # noqa: E402
from whylens.records.history import build_records  # noqa: E402
from whylens.records.reverts import effective_reverts, revert_pairs  # noqa: E402
from whylens.records.outcome import outcome_status  # noqa: E402
from whylens.symbols.anchor import Anchorer  # noqa: E402

DEFAULT_REPO = "/work/.mirror/psf+requests/repo"
LABELS = Path(__file__).resolve().parent / "labels"
FIELDS = ("problem", "cause", "decision", "rejected")
VERDICTS = ("correct", "wrong", "empty")


def pr_subject_baseline(repo_path: str) -> tuple[int, int]:
    out = subprocess.run(["git", "-C", repo_path, "log", "--format=%s", "HEAD"],
                         capture_output=True, text=True, errors="replace", check=True).stdout
    subjects = out.splitlines()
    merges = sum(1 for s in subjects if s.startswith("Merge pull request #"))
    import re
    squashes = sum(1 for s in subjects if re.search(r"\(#\d+\)\s*$", s))
    return merges, squashes


def mine(repo_path: str):
    with open_repository(repo_path) as repo:
        start = time.perf_counter()
        commits = list(walk(repo))
        walk_s = time.perf_counter() - start
        first = build_records(commits, {})
        fixing = {sha for r in first for sha in r.fixing_commits}
        start = time.perf_counter()
        events = {}
        with BlobReader(repo) as blobs:
            anchorer = Anchorer(blobs.read, repo.gitattributes("HEAD"))
            for commit in commits:
                if commit.sha in fixing and len(commit.parents) <= 1:
                    events[commit.sha] = anchorer.events(commit)
        anchor_s = time.perf_counter() - start
    start = time.perf_counter()
    records = build_records(commits, events)
    pairs = revert_pairs(commits)
    build_s = time.perf_counter() - start
    return commits, records, pairs, walk_s, anchor_s, build_s, len(fixing)


def report(repo_path: str, labels: Path | None, size: int, rich: int, seed: int) -> None:
    merges, squashes = pr_subject_baseline(repo_path)
    commits, records, pairs, walk_s, anchor_s, build_s, n_fixing = mine(repo_path)
    reverted = effective_reverts(pairs)
    outcomes = {r.id: outcome_status(r, lambda s: s in reverted, records) for r in records}

    print(f"repository: {repo_path} ({len(commits)} commits)")
    print(f"walk (floor):        {walk_s:6.2f}s")
    print(f"anchor fixing:       {anchor_s:6.2f}s  ({n_fixing} fixing commits)")
    print(f"build_records+reverts: {build_s:4.2f}s  ({build_s / walk_s:.2f}× the walk)")
    print(f"baseline (git log subjects): {merges} 'Merge pull request #N' + {squashes} '(#N)' "
          f"= {merges + squashes} PR-marked commits (bots and releases included)")
    print(f"records: {len(records)}  by kind {dict(Counter(r.kind for r in records))}")
    print(f"  fix_edge_source: {dict(Counter(r.fix_edge_source for r in records))}")
    print(f"  outcome_status:  {dict(Counter(outcomes.values()))}")
    print(f"  thread_shape:    {dict(Counter(r.thread_shape for r in records))}")
    n = len(records) or 1
    for name, count in (
        ("cause", sum(1 for r in records if r.cause)),
        ("decision", sum(1 for r in records if r.decision)),
        ("decision (marker, not the title fallback)",
         sum(1 for r in records if any(c.unit != r.thread[0].id for c in r.decision))),
        ("rejected alternatives", sum(1 for r in records if r.rejected)),
        ("anchors", sum(1 for r in records if r.anchors)),
    ):
        print(f"  with {name}: {count} ({100 * count / n:.0f}%)")
    print(f"revert pairs: {len(pairs)} ({len(reverted)} standing)")

    if labels is not None and labels.exists():
        precision(labels, {r.id: r for r in records})
    if size or rich:
        print_sample(records, outcomes, size, rich, seed)


def fields_sha(record) -> str:
    """What a label judged: the first claim of each field (a changed rule output makes it stale)."""
    first = [record.problem] + [next(iter(getattr(record, f)), None) for f in FIELDS[1:]]
    text = "|".join(c.text if c else "" for c in first)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def precision(path: Path, by_id: dict) -> None:
    """Per-field precision over the labels, overall and per stratum (sample)."""
    counts: dict[str, dict[str, Counter]] = {}
    seen, stale = set(), 0
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t"):
            record = by_id.get(row["record_id"])
            if record is None or row.get("fields_sha") not in (None, "", fields_sha(record)):
                stale += 1  # not built, or its fields changed since they were judged
                continue
            first = row["record_id"] not in {rid for _, rid in seen}
            seen.add((row["stratum"], row["record_id"]))
            for stratum in (("all",) if first else ()) + (row["stratum"],):
                for field in FIELDS:
                    verdict = row[field].strip()
                    if verdict not in VERDICTS:
                        raise SystemExit(f"{path}: bad verdict {verdict!r} for {row['record_id']} {field}")
                    counts.setdefault(stratum, {f: Counter() for f in FIELDS})[field][verdict] += 1
    unique = len({rid for _, rid in seen})
    print(f"labelled records: {unique} ({len(seen)} labels used; {stale} stale: the record is gone "
          "or its fields changed since labelling, so re-label those)")
    for stratum, fields in counts.items():
        print(f"  [{stratum}]")
        for field in FIELDS:
            c = fields[field]
            judged = c["correct"] + c["wrong"]
            share = f"{100 * c['correct'] / judged:.0f}%" if judged else "n/a"
            print(f"    {field:9} precision {share:>4} (correct {c['correct']}, wrong {c['wrong']}, "
                  f"empty {c['empty']})")


def sample(records, size: int, rich: int, seed: int) -> list[tuple[str, object]]:
    """(stratum, record): ``size`` at random, then ``rich`` more among those with a cause or
    rejected alternatives (rare fields need their own sample to be judged at all)."""
    rng = random.Random(seed)
    picked = rng.sample(records, min(size, len(records)))
    rest = [r for r in records if (r.cause or r.rejected) and r not in picked]
    extra = rng.sample(rest, min(rich, len(rest)))
    return [("random", r) for r in picked] + [("rich", r) for r in extra]


def print_sample(records, outcomes, size: int, rich: int, seed: int) -> None:
    for stratum, r in sample(records, size, rich, seed):
        print(f"\n### stratum {stratum}")
        print(f"\n=== {r.id} [{r.kind} {outcomes[r.id]} {r.fix_edge_source} {r.thread_shape}] {r.title}")
        for unit in r.thread[:14]:
            print(f"   {unit.id} ({unit.kind}) {unit.text[:300]}")
        print(f"  problem : {r.problem.text if r.problem else '-'}")
        for field in ("cause", "decision", "rejected"):
            for claim in getattr(r, field):
                print(f"  {field:8}: [{claim.unit}] {claim.text}")
        print(f"  anchors : {', '.join(r.anchors[:8])}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo", nargs="?", default=DEFAULT_REPO)
    parser.add_argument("--labels", type=Path)
    parser.add_argument("--sample", type=int, default=0, help="print N random records to label")
    parser.add_argument("--rich", type=int, default=0,
                        help="and N more among records with a cause or rejected alternatives")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    name = Path(args.repo).resolve().parent.name.split("+")[-1] if args.repo == DEFAULT_REPO \
        else Path(args.repo).resolve().name.removesuffix(".git")
    labels = args.labels or LABELS / f"records-{name}.tsv"
    report(args.repo, labels, args.sample, args.rich, args.seed)


if __name__ == "__main__":
    main()
