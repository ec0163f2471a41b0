"""Cards on held-out repositories: item usefulness, record field precision, length, hover time.

    # choose the symbols once (committed: bench/labels/cards/symbols.tsv)
    python bench/bench_cards.py select --repo flask=/tmp/flask --index flask=/tmp/idx-flask ...
    # measure this code and, in the same run, a baseline checkout of the code with its own index
    python bench/bench_cards.py report --repo flask=/tmp/flask --index flask=/tmp/idx-flask \
        --baseline-code /tmp/base/server --baseline-index flask=/tmp/idx-base-flask ...
    # write the items no label covers yet, for a person to label
    python bench/bench_cards.py report ... --unlabelled /tmp/todo.jsonl

The repositories are the held-out ones of bench/labelling/GUIDE.md (flask, axios, gin, jq): no
rule, weight or threshold of the cards was tuned on them. Each needs a work tree (the card reads
the symbol from the file) and an index built by the code being measured.

What a card shows is read from the markdown of ``whylens why --symbol`` (the default view) as a
reader sees it: every knowledge item (a pitfall, constraint or fix; a record's problem, cause,
decision or rejected alternative; a reverted change; the change behind a line). The history table
and the "Fixed in" lines are left out (the symbol-history benchmark measures those). Labels, one
JSON object a line in bench/labels/cards/<repo>.jsonl: ``{"repo", "path", "symbol", "field",
"text", "label": useful|marginal|noise, "field_ok": true|false (record fields), "note"}`` — a
person's reading of the item alone, as a stranger to the code would read it on a card.

Record field precision is also read on a seeded sample of records that count as a symbol's
decisions (``sample-records``, ids in bench/labels/cards/records.tsv, every field of them, in both
codes' indexes; labels in records.jsonl: ``{"repo", "record", "field", "text", "field_ok"}``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

LABELS = Path(__file__).resolve().parent / "labels" / "cards"
SYMBOLS = LABELS / "symbols.tsv"
PER_REPO = 10
MIN_CHANGES = 3
# Generated or vendored code: nobody reads a card there (axios commits its dist/ bundles).
_GENERATED = re.compile(r"(?:^|/)(?:dist|build|vendor|third_party|node_modules)/|\.min\.js$")
HOVER_REPEATS = 5
RECORD_FIELDS = ("problem", "cause", "decision", "rejected")
_FIELD_LINE = re.compile(r"^- (Problem|Cause|Decision|Rejected): (.*)$")
_SECTION = re.compile(r"^#{2,4} (.*)$")
_TRAILING_REF = re.compile(r"\s+(?:—|–|-)\s+(?:\[#?\S+?\]\([^)]*\)|#\d+|`[0-9a-f]{7,}`)[^—]*$")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_UNIT_SECTIONS = {"pitfalls": "pitfall", "constraints": "constraint", "fixes": "fix"}


def pairs(values: list[str]) -> dict[str, str]:
    return dict(v.split("=", 1) for v in values or [])


# -- selecting symbols (run once, with the baseline index) --------------------------------------

def select(args) -> int:
    from whylens.index.store import IndexStore
    from whylens.knowledge.features import path_kind
    from whylens.symbols.languages import language_for_path
    from whylens.symbols.outline import find, outline

    rng = random.Random(args.seed)
    rows = []
    for name, repo in pairs(args.repo).items():
        reader = IndexStore(Path(pairs(args.index)[name])).reader()
        try:
            found = reader._conn.execute(
                "SELECT path, symbol, COUNT(DISTINCT sha) FROM events WHERE tail = symbol "
                "GROUP BY path, symbol HAVING COUNT(DISTINCT sha) >= ? ORDER BY path, symbol",
                (MIN_CHANGES,)).fetchall()
        finally:
            reader.close()
        candidates = []
        for path, symbol, n in found:
            file = Path(repo) / path
            language = language_for_path(path)
            if not language or path_kind(path) != "code" or _GENERATED.search(path) \
                    or not file.is_file():
                continue
            if find(outline(file.read_bytes(), language), symbol) is not None:
                candidates.append((path, symbol, n))
        for path, symbol, n in sorted(rng.sample(candidates, min(args.per_repo, len(candidates)))):
            rows.append(f"{name}\t{path}\t{symbol}\t{n}")
    LABELS.mkdir(parents=True, exist_ok=True)
    SYMBOLS.write_text("repo\tpath\tsymbol\tchanges_at_selection\n" + "\n".join(rows) + "\n")
    print(f"wrote {len(rows)} symbols to {SYMBOLS}")
    return 0


def symbols() -> list[tuple[str, str, str]]:
    lines = SYMBOLS.read_text().splitlines()[1:]
    return [tuple(line.split("\t")[:3]) for line in lines if line.strip()]  # type: ignore[misc]


# -- measuring the code on sys.path -------------------------------------------------------------

def items_of(markdown: str) -> list[dict]:
    """The knowledge items a `why` markdown shows (see the module docstring)."""
    out: list[dict] = []
    section = ""
    for line in markdown.splitlines():
        head = _SECTION.match(line)
        if head:
            section = head.group(1).split(" (")[0].strip().lower()
            continue
        if not line.startswith("- ") or section.startswith("history"):
            continue
        field = _FIELD_LINE.match(line)
        if field:
            out.append({"field": field.group(1).lower(), "text": clean(field.group(2))})
        elif section in _UNIT_SECTIONS:
            out.append({"field": _UNIT_SECTIONS[section], "text": clean(line[2:])})
        elif section.startswith(("reverted", "superseded", "why this line", "last change")):
            out.append({"field": "history-note", "text": clean(line[2:])})
    return [item for item in out if item["text"]]


def clean(text: str) -> str:
    """An item as a reader sees it: no trailing citation, links as their text, markdown escapes
    undone (the labels are keyed on the text, whichever code rendered it)."""
    text = _TRAILING_REF.sub("", text)
    text = _LINK.sub(r"\1", text)
    try:
        from whylens.markup import unescape
    except ImportError:  # code from before the escaping module escaped nothing
        unescape = None  # type: ignore[assignment]
    if unescape is not None:
        text = unescape(text)
    return " ".join(text.split()).strip()


def measure(args) -> dict:
    from whylens.index.store import IndexStore
    from whylens.render.cards import hover_card
    try:
        from whylens.render.rationale import rationale
    except ImportError:  # the code before this branch kept it in render.cards
        from whylens.render.cards import rationale  # type: ignore[attr-defined,no-redef]
    from whylens.retrieval.citations import web_links_from_meta
    from whylens.retrieval.why import symbol_story, why

    results = []
    readers: dict[str, object] = {}
    repos, indexes = pairs(args.repo), pairs(args.index)
    try:
        for repo, path, symbol in symbols():
            if repo not in repos:
                continue
            if repo not in readers:
                readers[repo] = IndexStore(Path(indexes[repo])).reader()
            reader = readers[repo]
            links = web_links_from_meta(reader.meta)  # type: ignore[attr-defined]
            story = why(reader, path, symbol=symbol, repo_root=Path(repos[repo]))
            markdown = rationale(story, links)
            card = hover_card(story, links) or ""
            times = []
            for _ in range(HOVER_REPEATS):
                start = time.perf_counter()
                hover_card(symbol_story(reader, path, story.symbol, now=time.time()), links)
                times.append(time.perf_counter() - start)
            results.append({"repo": repo, "path": path, "symbol": symbol,
                            "items": items_of(markdown), "why_chars": len(markdown),
                            "hover_chars": len(card), "hover_seconds": times})
    finally:
        for reader in readers.values():
            reader.close()  # type: ignore[attr-defined]
    return {"code": os.environ.get("PYTHONPATH") or "this checkout", "symbols": results}


# -- record fields: a sample of the records that count as a symbol's decisions ------------------

RECORD_SAMPLE = LABELS / "records.tsv"


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
    RECORD_SAMPLE.write_text("repo\trecord\n" + "\n".join(rows) + "\n")
    print(f"wrote {len(rows)} record ids to {RECORD_SAMPLE}")
    return 0


def measure_records(args) -> list[dict]:
    """Every problem / cause / decision / rejected claim of the sampled records, as this code's
    index holds them (a record missing from it is listed with no fields)."""
    from whylens.index.store import IndexStore

    out = []
    indexes = pairs(args.index)
    wanted = [line.split("\t") for line in RECORD_SAMPLE.read_text().splitlines()[1:] if line]
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


def field_precision(name: str, claims: list[dict], unlabelled: list) -> list[str]:
    labels = {}
    file = LABELS / "records.jsonl"
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


# -- reporting ----------------------------------------------------------------------------------

def load_labels() -> dict[tuple, dict]:
    out = {}
    for file in sorted(f for f in LABELS.glob("*.jsonl") if f.name != "records.jsonl"):
        for line in file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                out[(row["repo"], row["symbol"], row["field"], row["text"])] = row
    return out


def summarise(name: str, run: dict, labels: dict, unlabelled: list) -> list[str]:
    counts: Counter = Counter()
    field_ok: dict[str, Counter] = defaultdict(Counter)
    per_field: dict[str, Counter] = defaultdict(Counter)
    for result in run["symbols"]:
        for item in result["items"]:
            key = (result["repo"], result["symbol"], item["field"], item["text"])
            row = labels.get(key)
            if row is None:
                counts["unlabelled"] += 1
                unlabelled.append({"repo": result["repo"], "path": result["path"],
                                   "symbol": result["symbol"], **item})
                continue
            counts[row["label"]] += 1
            per_field[item["field"]][row["label"]] += 1
            if item["field"] in RECORD_FIELDS and "field_ok" in row:
                field_ok[item["field"]][bool(row["field_ok"])] += 1
    labelled = sum(counts[k] for k in ("useful", "marginal", "noise"))
    share = lambda k: f"{counts[k]} ({100 * counts[k] / labelled:.0f}%)" if labelled else "0"  # noqa: E731
    whys = [r["why_chars"] for r in run["symbols"]]
    hovers = [r["hover_chars"] for r in run["symbols"]]
    times = sorted(t for r in run["symbols"] for t in r["hover_seconds"])
    lines = [f"### {name}", f"code: {run['code']}; {len(run['symbols'])} symbols, "
             f"{sum(len(r['items']) for r in run['symbols'])} items shown", "",
             f"- items: useful {share('useful')}, marginal {share('marginal')}, noise "
             f"{share('noise')}; unlabelled {counts['unlabelled']}"]
    for field, c in sorted(per_field.items()):
        lines.append(f"  - {field}: " + ", ".join(f"{k} {c[k]}" for k in ("useful", "marginal", "noise")))
    for field in RECORD_FIELDS:
        ok = field_ok.get(field)
        if ok:
            n = ok[True] + ok[False]
            lines.append(f"- record field precision, {field}: {ok[True] / n:.2f} ({ok[True]}/{n})")
    if whys:
        lines.append(f"- `why` markdown chars: median {statistics.median(whys):.0f}, "
                     f"p90 {pct(whys, 0.9):.0f}, max {max(whys)}; hover chars: median "
                     f"{statistics.median(hovers):.0f}, max {max(hovers)}")
        lines.append(f"- hover (story + card, in process): p50 {1000 * pct(times, 0.5):.1f} ms, "
                     f"p95 {1000 * pct(times, 0.95):.1f} ms over {len(times)} calls")
    return lines + [""]


def pct(values, q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def report(args) -> int:
    runs = [("this branch", {**measure(args), "records": measure_records(args)})]
    if args.baseline_code:
        command = [sys.executable, __file__, "measure", *sum((["--repo", f"{k}={v}"] for k, v in
                                                              pairs(args.repo).items()), []),
                   *sum((["--index", f"{k}={v}"] for k, v in pairs(args.baseline_index).items()), [])]
        env = dict(os.environ, PYTHONPATH=args.baseline_code)
        out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
        runs.append(("baseline", json.loads(out)))
    labels = load_labels()
    unlabelled: list[dict] = []
    lines = []
    record_claims: list[dict] = []
    for name, run in runs:
        lines += summarise(name, run, labels, unlabelled)
        if RECORD_SAMPLE.exists():
            lines += field_precision(name, run.get("records", []), record_claims) + [""]
    print("\n".join(lines))
    if args.unlabelled:
        seen = set()
        with open(args.unlabelled, "w", encoding="utf-8") as fh:
            for row in unlabelled:
                key = (row["repo"], row["symbol"], row["field"], row["text"])
                if key not in seen:
                    seen.add(key)
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{len(seen)} unlabelled items written to {args.unlabelled}")
        with open(f"{args.unlabelled}.records", "w", encoding="utf-8") as fh:
            for row in {json.dumps(r, ensure_ascii=False, sort_keys=True) for r in record_claims}:
                fh.write(row + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps(dict(runs), indent=1))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("select", "measure", "report", "sample-records"):
        p = sub.add_parser(name)
        p.add_argument("--repo", action="append", help="NAME=work tree")
        p.add_argument("--index", action="append", help="NAME=index folder built by this code")
        if name in ("select", "sample-records"):
            p.add_argument("--per-repo", type=int, default=PER_REPO)
            p.add_argument("--seed", type=int, default=13)
        if name == "report":
            p.add_argument("--baseline-code", help="a `server` folder of the code to compare with")
            p.add_argument("--baseline-index", action="append", help="NAME=index built by it")
            p.add_argument("--unlabelled", help="write the items no label covers to this file")
            p.add_argument("--json", help="write both runs as JSON here")
    args = parser.parse_args()
    if args.command == "select":
        return select(args)
    if args.command == "measure":
        print(json.dumps({**measure(args), "records": measure_records(args)}))
        return 0
    if args.command == "sample-records":
        return sample_records(args)
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
