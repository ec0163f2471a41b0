"""Cards: item usefulness, record field precision, length, hover time, on a tune or held-out set.

    # choose the symbols once (committed: bench/labels/cards/<set>symbols.tsv)
    python bench/bench_cards.py select --set tune --repo requests=/tmp/requests \
        --index requests=/tmp/idx-requests --extra express=lib/request.js:4 ...
    # measure this code and, in the same run, baseline checkouts of the code with their own index
    python bench/bench_cards.py report --set heldout --repo flask=/tmp/flask \
        --index flask=/tmp/idx-flask --baseline main=/tmp/main/server \
        --baseline-index main:flask=/tmp/idx-main-flask ...
    # write the items no label covers yet (of every code measured, deduplicated and shuffled:
    # nothing says which code showed them), for a person to label blind
    python bench/bench_cards.py report ... --unlabelled /tmp/todo.jsonl

Four sets (bench/labelling/GUIDE.md): ``tune`` (requests, express, redis, mux, and since round 6
httpx, cobra, sinatra; every weight and gate of the cards was chosen on it, so its figures are
in-sample), since round 11 ``tune2`` (gson, ripgrep, serde, sinatra: 40 more tune symbols, each
with a card that shows an item; lodash has none), ``heldout`` (flask, axios, gin, jq; reported
only) and, since round 9, ``heldout2`` (flask, axios, gin, jq, okhttp: 40 more symbols, each
with a card that shows an item). Each
repository needs a work tree (the card reads the symbol from the file) and an index built by the
code being measured.

What a card shows is read from the markdown of ``whylens why --symbol`` (the default view) as a
reader sees it: every knowledge item (a pitfall, constraint or fix; a record's problem, cause,
decision or rejected alternative; a reverted change; the change behind a line). The history table
and the "Fixed in" lines are left out (the symbol-history benchmark measures those). Labels, one
JSON object a line in bench/labels/cards/<repo>.jsonl (tune: tune-<repo>.jsonl): ``{"repo",
"path", "symbol", "field", "text", "label": useful|marginal|noise, "field_ok": true|false (record
fields), "note"}`` — a person's reading of the item alone, as a stranger to the code would read it
on a card: *useful* says why this code is the way it is (a constraint, a failure mode and its
cause, the reason for a choice); *marginal* is about this code but says only what was done ("Add
X option"), or says why only vaguely; *noise* is about other code, housekeeping, a fragment, or
wrong.

Record field precision is also read on a seeded sample of records that count as a symbol's
decisions (``sample-records``, ids in <set>records.tsv, every field of them, in every code's
index; labels in records.jsonl / tune-records.jsonl: ``{"repo", "record", "field", "text",
"field_ok"}``).
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from card_sets import (LABELS, SETS, field_precision, measure_records, pairs,  # noqa: E402
                       sample_records, set_file, symbols)

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


# -- selecting symbols (run once, with the baseline index) --------------------------------------

def select(args) -> int:
    from whylens.index.store import IndexStore
    from whylens.knowledge.features import path_kind
    from whylens.symbols.languages import language_for_path
    from whylens.symbols.outline import find, outline

    rng = random.Random(args.seed)
    rows: list[str] = []
    extra = {}  # repo -> (file, how many more symbols from it)
    for value in args.extra or []:
        name, rest = value.split("=", 1)
        path, n = rest.rsplit(":", 1)
        extra[name] = (path, int(n))
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
        if args.with_items:
            picked = with_items(args, name, repo, candidates, rng)
        else:
            picked = sorted(rng.sample(candidates, min(args.per_repo, len(candidates))))
        if name in extra:  # more from one file (express's getter-heavy lib/request.js)
            path, n = extra[name]
            more = [c for c in candidates if c[0] == path and c not in picked]
            picked += sorted(rng.sample(more, min(n, len(more))))
        rows += [f"{name}\t{path}\t{symbol}\t{n}" for path, symbol, n in picked]
    LABELS.mkdir(parents=True, exist_ok=True)
    target = set_file(args, "symbols")
    target.write_text("repo\tpath\tsymbol\tchanges_at_selection\n" + "\n".join(rows) + "\n")
    print(f"wrote {len(rows)} symbols to {target}")
    return 0


def with_items(args, name: str, repo: str, candidates: list, rng: random.Random) -> list:
    """The first ``--per-repo`` candidates, in seeded random order, that no other set holds and
    whose card (this code, this index) shows at least one item."""
    from whylens.index.store import IndexStore
    from whylens.render.rationale import rationale
    from whylens.retrieval.citations import web_links_from_meta
    from whylens.retrieval.why import why

    taken = {tuple(line.split("\t")[:3]) for spec in SETS.values()
             if (LABELS / spec["symbols"]).exists() and spec["symbols"] != SETS[args.set]["symbols"]
             for line in (LABELS / spec["symbols"]).read_text().splitlines()[1:]}
    order = sorted(c for c in candidates if (name, c[0], c[1]) not in taken)
    rng.shuffle(order)
    picked = []
    reader = IndexStore(Path(pairs(args.index)[name])).reader()
    try:
        links = web_links_from_meta(reader.meta)
        for path, symbol, n in order:
            story = why(reader, path, symbol=symbol, repo_root=Path(repo))
            if items_of(rationale(story, links)):
                picked.append((path, symbol, n))
                if len(picked) == args.per_repo:
                    break
    finally:
        reader.close()
    return sorted(picked)


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


def each_symbol(args):
    """(repo, path, symbol, reader) for every symbol of the set whose repository was given; the
    readers (one per index) are closed at the end."""
    from whylens.index.store import IndexStore

    readers: dict[str, object] = {}
    repos, indexes = pairs(args.repo), pairs(args.index)
    try:
        for repo, path, symbol in symbols(args):
            if repo in repos:
                if repo not in readers:
                    readers[repo] = IndexStore(Path(indexes[repo])).reader()
                yield repo, path, symbol, readers[repo]
    finally:
        for reader in readers.values():
            reader.close()  # type: ignore[attr-defined]


def measure(args) -> dict:
    from whylens.render.cards import hover_card
    try:
        from whylens.render.rationale import rationale
    except ImportError:  # the code before this branch kept it in render.cards
        from whylens.render.cards import rationale  # type: ignore[attr-defined,no-redef]
    from whylens.retrieval.citations import web_links_from_meta
    from whylens.retrieval.why import symbol_story, why

    results = []
    repos = pairs(args.repo)
    for repo, path, symbol, reader in each_symbol(args):
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
    return {"code": os.environ.get("PYTHONPATH") or "this checkout", "symbols": results}


# -- record fields: a sample of the records that count as a symbol's decisions ------------------

# -- reporting ----------------------------------------------------------------------------------

def load_labels() -> dict[tuple, dict]:
    out = {}
    record_labels = {spec["record_labels"] for spec in SETS.values()}
    for file in sorted(f for f in LABELS.glob("*.jsonl") if f.name not in record_labels):
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
    indexes: dict[str, dict[str, str]] = defaultdict(dict)  # baseline -> repo -> index
    for value in args.baseline_index or []:
        key, index = value.split("=", 1)
        baseline, repo = key.split(":", 1)
        indexes[baseline][repo] = index
    for baseline, code in pairs(args.baseline).items():
        command = [sys.executable, __file__, "measure", "--set", args.set,
                   *sum((["--repo", f"{k}={v}"] for k, v in pairs(args.repo).items()), []),
                   *sum((["--index", f"{k}={v}"] for k, v in indexes[baseline].items()), [])]
        env = dict(os.environ, PYTHONPATH=code)
        out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
        runs.append((baseline, json.loads(out)))
    labels = load_labels()
    unlabelled: list[dict] = []
    lines = []
    record_claims: list[dict] = []
    for name, run in runs:
        lines += summarise(name, run, labels, unlabelled)
        lines += field_precision(args, name, run.get("records", []), record_claims) + [""]
    print("\n".join(lines))
    if args.unlabelled:
        write_blind(args.unlabelled, unlabelled, ("repo", "symbol", "field", "text"))
        write_blind(f"{args.unlabelled}.records", record_claims, ("repo", "record", "field", "text"))
    if args.json:
        Path(args.json).write_text(json.dumps(dict(runs), indent=1))
    return 0


def write_blind(file: str, rows: list[dict], key: tuple[str, ...]) -> None:
    """The rows no label covers, once each, shuffled (seeded): the order says nothing about
    which code showed them, so they can be labelled blind."""
    unique = {tuple(row[k] for k in key): row for row in rows}
    ordered = sorted(unique.values(), key=lambda r: json.dumps(r, sort_keys=True))
    random.Random(7).shuffle(ordered)
    with open(file, "w", encoding="utf-8") as fh:
        for row in ordered:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(ordered)} unlabelled rows written to {file}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("select", "measure", "report", "sample-records"):
        p = sub.add_parser(name)
        p.add_argument("--set", choices=sorted(SETS), default="heldout")
        p.add_argument("--repo", action="append", help="NAME=work tree")
        p.add_argument("--index", action="append", help="NAME=index folder built by this code")
        if name in ("select", "sample-records"):
            p.add_argument("--per-repo", type=int, default=PER_REPO)
            p.add_argument("--seed", type=int, default=13)
        if name == "select":
            p.add_argument("--extra", action="append",
                           help="NAME=PATH:N: N more symbols from one file of NAME")
            p.add_argument("--with-items", action="store_true",
                           help="only symbols whose card shows an item (first N, seeded order)")
        if name == "report":
            p.add_argument("--baseline", action="append",
                           help="LABEL=a `server` folder of code to compare with")
            p.add_argument("--baseline-index", action="append",
                           help="LABEL:NAME=index built by that code")
            p.add_argument("--unlabelled", help="write the items no label covers to this file")
            p.add_argument("--json", help="write every run as JSON here")
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
