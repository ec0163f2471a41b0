"""The card benchmark's sets (symbols, record samples, label files) and its record-field
measure: sampling the records, reading their fields from an index, scoring them with the labels.
Used by ``bench_cards.py`` and ``tune_cards.py``; see ``bench_cards.py`` for the method."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from pathlib import Path

LABELS = Path(__file__).resolve().parent / "labels" / "cards"
# Symbol sets: "heldout" (flask, axios, gin, jq: reported, never tuned on), "tune" (requests,
# express, redis, mux, httpx, cobra, sinatra: every weight and gate of the cards was chosen on
# it) and the more below. Each has
# its symbols, its record sample and its record-field labels; item labels (keyed by repository)
# are read from every file.
SETS = {
    "heldout": {"symbols": "symbols.tsv", "records": "records.tsv", "record_labels": "records.jsonl"},
    "tune": {"symbols": "tune-symbols.tsv", "records": "tune-records.tsv",
             "record_labels": "tune-records.jsonl"},
    # round 9: 40 more held-out symbols (flask, axios, gin, jq, okhttp), each chosen among the
    # symbols whose card shows at least one item (``select --with-items``)
    "heldout2": {"symbols": "symbols2.tsv", "records": "records2.tsv",
                 "record_labels": "records2.jsonl"},
    # round 11: tune symbols of gson, ripgrep, serde, lodash (chosen as heldout2 was); their
    # item labels are in the tune-<repo>.jsonl files like the first tune set's
    "tune2": {"symbols": "tune2-symbols.tsv", "records": "tune2-records.tsv",
              "record_labels": "tune2-records.jsonl"},
    # round 12: a third tune set (cobra, httpx, express, mux, redis, requests; chosen as tune2
    # was, seed 131), labelled blind on main's cards before any rule of the round was scored
    "tune3": {"symbols": "tune3-symbols.tsv", "records": "tune3-records.tsv",
              "record_labels": "tune3-records.jsonl"},
    # round 31: a fourth tune set (redis, gson, ripgrep, serde, sinatra, cobra; chosen as tune3
    # was, seed 431), labelled blind on base31's cards before any rule of the round was written
    "tune4": {"symbols": "tune4-symbols.tsv", "records": "tune4-records.tsv",
              "record_labels": "tune4-records.jsonl"},
}
def pairs(values: list[str]) -> dict[str, str]:
    return dict(v.split("=", 1) for v in values or [])


def set_file(args, what: str) -> Path:
    return LABELS / SETS[args.set][what]


def symbols(args) -> list[tuple[str, str, str]]:
    lines = set_file(args, "symbols").read_text().splitlines()[1:]
    return [tuple(line.split("\t")[:3]) for line in lines if line.strip()]  # type: ignore[misc]


def sample_records(args) -> int:
    """Pick ``--per-repo`` records anchored to a symbol (the ones cards show), seeded; the same
    ids are then read from both indexes (``measure_records``)."""
    from whylens.index.store import IndexStore

    rng = random.Random(args.seed)
    rows = []
    for name in pairs(args.repo):
        reader = IndexStore(Path(pairs(args.index)[name])).reader()
        try:
            ids = [r.id for r in reader.iter_records() if r.anchors]
        finally:
            reader.close()
        rows += [f"{name}\t{rid}" for rid in sorted(rng.sample(ids, min(args.per_repo, len(ids))))]
    set_file(args, "records").write_text("repo\trecord\n" + "\n".join(rows) + "\n")
    print(f"wrote {len(rows)} record ids to {set_file(args, 'records')}")
    return 0


def measure_records(args) -> list[dict]:
    """Every problem / cause / decision / rejected claim of the sampled records, as this code's
    index holds them (a record missing from it is listed with no fields)."""
    from whylens.index.store import IndexStore

    out = []
    indexes = pairs(args.index)
    sample = set_file(args, "records")
    if not sample.exists():
        return out
    wanted = [line.split("\t") for line in sample.read_text().splitlines()[1:] if line]
    for repo in sorted({r for r, _ in wanted}):
        if repo not in indexes:
            continue
        reader = IndexStore(Path(indexes[repo])).reader()
        try:
            for _, rid in (w for w in wanted if w[0] == repo):
                record = reader.record(rid)
                if record is None:
                    continue
                claims = [("problem", record.problem)] if record.problem else []
                claims += [(f, c) for f in ("cause", "decision", "rejected")
                           for c in getattr(record, f)]
                for field, claim in claims:
                    out.append({"repo": repo, "record": rid, "title": record.title,
                                "field": field, "text": claim.text})
        finally:
            reader.close()
    return out


def field_precision(args, name: str, claims: list[dict], unlabelled: list) -> list[str]:
    labels = {}
    file = set_file(args, "record_labels")
    if file.exists():
        for line in file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                labels[(row["repo"], row["record"], row["field"], row["text"])] = row["field_ok"]
    ok: dict[str, Counter] = defaultdict(Counter)
    for claim in claims:
        key = (claim["repo"], claim["record"], claim["field"], claim["text"])
        if key not in labels:
            unlabelled.append(claim)
            continue
        ok[claim["field"]][labels[key]] += 1
    lines = [f"- sampled records ({name}): " + "; ".join(
        f"{field} {c[True] / (c[True] + c[False]):.2f} ({c[True]}/{c[True] + c[False]})"
        for field, c in sorted(ok.items()))]
    return lines
