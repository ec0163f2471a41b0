"""Search and hover latency on real indexes, next to `git log --grep` measured in the same run.

    python bench/bench_search.py                      # requests + flask (indexes them if needed)
    python bench/bench_search.py --repo requests --workdir /tmp/search-bench
    python bench/bench_search.py --index /tmp/lsp-work/index   # bench_lsp.py's 100k index

Measures, per repository:
- the semantic part's share of index time: embedding, quantising and storing every document's
  vector again (what the writer does), against a fresh `whylens index` of the same history;
- warm search: `retrieval.search.search` (gate, semantic candidates, second stage and snippets
  included) over every labelled question in bench/labels/questions/<name>.jsonl, 3 passes with
  one reader kept open: p50 / p95 / max; then the
  same queries interleaved with the direct path's score cache off and with the Whoosh-matcher
  path (the baseline: how search ran before index/ranking.py), wall and CPU time, checking that
  all three return the same hits;
- hover lookups: `units_for_symbol` + `records_for_symbol` + `symbol_history` for symbols drawn
  from the index, and `knowledge_counts` per file (what a hover and a code lens ask);
- end to end: `whylens search QUERY --json` as a new process (imports, open, search, print);
- peak RSS of this process (warm reader) and of the `whylens search` child;
- baseline: `git log -i --grep=<word> ...` over the same queries (a new git process each time,
  OR of the query's words, the closest thing git has to a search).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "bench"))

from qbench import MIRRORS, ensure_index, questions  # noqa: E402

from whylens.index import ranking  # noqa: E402
from whylens.index.analysis import word_groups  # noqa: E402
from whylens.index.store import IndexStore  # noqa: E402
from whylens.retrieval.search import search  # noqa: E402


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def line(label: str, ms: list[float], extra: str = "") -> str:
    if not ms:
        return f"  {label:<34} (nothing to measure)"
    return (f"  {label:<34} p50 {pct(ms, .5):8.2f} ms  p95 {pct(ms, .95):8.2f} ms  "
            f"max {max(ms):8.2f} ms  (n={len(ms)}){extra}")


def timed(fn, *args, **kwargs) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return (time.perf_counter() - start) * 1000


def warm_search(reader, queries: list[str], passes: int = 3) -> tuple[list[float], int]:
    ms, answered = [], 0
    for _ in range(passes):
        for q in queries:
            start = time.perf_counter()
            result = search(reader, q, k=10)
            ms.append((time.perf_counter() - start) * 1000)
            answered += not result.abstained
    return ms, answered // passes


def search_modes(reader, queries: list[str], passes: int = 3) -> dict[str, tuple[list, list]]:
    """`search` (gate included) three ways, interleaved query by query so machine load hits all
    alike: the index's direct BM25F path (index/ranking.py), the same with its per-reader cache
    of common words' score tables off (every query pays for every posting list), and Whoosh's own
    matcher (the path before index/ranking.py: `_direct = False`). Wall and CPU ms per query; the
    first two must return identical hits (the Whoosh path may differ: see the note printed)."""
    uncached = IndexStore(reader.store.path).reader()
    uncached._direct = ranking.DirectScorer(uncached._searcher)
    uncached._direct.cache_postings = 0
    slow = IndexStore(reader.store.path).reader()
    slow._direct = False
    modes = {"direct": reader, "direct, no cache": uncached, "whoosh": slow}
    out: dict[str, tuple[list, list]] = {name: ([], []) for name in modes}
    differ = 0
    try:
        for r in modes.values():
            search(r, "warm up", k=10)
        for _ in range(passes):
            for q in queries:
                hits = {}
                for name, r in modes.items():
                    cpu, start = time.process_time(), time.perf_counter()
                    result = search(r, q, k=10)
                    out[name][0].append((time.perf_counter() - start) * 1000)
                    out[name][1].append((time.process_time() - cpu) * 1000)
                    hits[name] = (result.abstained,
                                  [(h.id, round(h.score, 9)) for h in result.hits])
                if hits["direct"] != hits["direct, no cache"]:
                    raise SystemExit(f"the score cache changed results for {q!r}: {hits}")
                differ += hits["direct"] != hits["whoosh"]
    finally:
        uncached.close()
        slow.close()
    if differ:
        print(f"  (Whoosh's matcher ranks only its own top N, so candidates found by meaning alone "
              f"get no lexical score there: {differ} of {passes * len(queries)} answers differ)")
    return out


def print_modes(modes: dict[str, tuple[list, list]]) -> None:
    for name, label in (("direct", "search, direct BM25F (now)"),
                        ("direct, no cache", "  the same, score cache off"),
                        ("whoosh", "baseline: Whoosh matcher (before)")):
        wall, cpu = modes[name]
        print(line(label, wall, f"  CPU p50 {pct(cpu, .5):.2f} p95 {pct(cpu, .95):.2f} ms"))


def zipf_queries(n: int = 60) -> list[str]:
    """bench_lsp.py's search queries: two Zipf-drawn words of its padding vocabulary and a
    failure name (the same seed, so the same 60 queries)."""
    from bench_lsp import FAILURES, vocabulary

    rng = random.Random(7)
    vocab, weights = vocabulary(random.Random(7))
    return [" ".join(rng.choices(vocab, cum_weights=weights, k=2)) + " " + rng.choice(FAILURES)
            for _ in range(n)]


def bench_index(index_dir: Path, symbols: int) -> None:
    """--index: an existing index (e.g. bench_lsp.py --work DIR's DIR/index, 100k units)."""
    print(f"\nload average {os.getloadavg()[0]:.2f} (2 cores shared)")
    reader = IndexStore(index_dir).reader()
    try:
        stats = reader.stats()
        print(f"{index_dir}: {stats['units_total']} units, {stats['records']} records, "
              f"{len(reader._ix._segments())} segment(s)")
        print_modes(search_modes(reader, zipf_queries()))
        picked, files = sample_symbols(reader, symbols)
        units_ms = []
        for path, symbol in picked:
            start = time.perf_counter()
            reader.units_for_symbol(symbol, path)
            reader.records_for_symbol(symbol, path)
            units_ms.append((time.perf_counter() - start) * 1000)
        symbol_ms, lens_ms = hover_lookups(reader, picked, files)
        print(line("hover: units+records for symbol", units_ms))
        print(line("hover: units+records+history", symbol_ms))
        print(line("lens: knowledge_counts(file)", lens_ms))
    finally:
        reader.close()


def hover_lookups(reader, conn_symbols: list[tuple[str, str]], files: list[str]):
    symbol_ms, lens_ms = [], []
    for path, symbol in conn_symbols:
        start = time.perf_counter()
        reader.units_for_symbol(symbol, path)
        reader.records_for_symbol(symbol, path)
        reader.symbol_history(symbol, path)
        symbol_ms.append((time.perf_counter() - start) * 1000)
    for path in files:
        lens_ms.append(timed(reader.knowledge_counts, path))
    return symbol_ms, lens_ms


def sample_symbols(reader, n: int) -> tuple[list[tuple[str, str]], list[str]]:
    rows = reader._conn.execute(
        "SELECT DISTINCT path, symbol FROM events WHERE tail = symbol ORDER BY path, symbol"
    ).fetchall()
    rng = random.Random(7)
    picked = rng.sample(rows, min(n, len(rows)))
    files = sorted({p for p, _ in picked})[:50]
    return picked, files


# Children write bytecode to a private cache (as an installed package has its .pyc files); this
# environment sets PYTHONDONTWRITEBYTECODE, which would otherwise recompile every module per run.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
CHILD_ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "whylens-bench-pycache")


def end_to_end(mirror: str, index_dir: Path, queries: list[str]) -> tuple[list[float], int]:
    """Wall time of each ``whylens search --json`` process, and the largest peak RSS of those
    processes (each child's own rusage: RUSAGE_CHILDREN would count the indexer run before)."""
    ms, child_rss = [], 0
    for n, q in enumerate([queries[0]] + queries):  # the first run fills the bytecode cache
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "whylens", "search", q, "--repo", mirror,
                                 "--index-dir", str(index_dir), "--json"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                                env=CHILD_ENV)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise SystemExit(f"whylens search {q!r} exited {proc.returncode}")
        if n:
            ms.append((time.perf_counter() - start) * 1000)
            child_rss = max(child_rss, usage.ru_maxrss // 1024)
    return ms, child_rss


def python_floor(runs: int) -> list[float]:
    return [timed(subprocess.run, [sys.executable, "-c", "pass"], check=True, env=CHILD_ENV)
            for _ in range(runs)]


def git_grep_baseline(mirror: str, queries: list[str]) -> list[float]:
    ms = []
    for q in queries:
        words = [g.raw for g in word_groups(q)] or [q]
        args = ["git", "--git-dir", mirror, "log", "-i", "--format=%H"]
        args += [f"--grep={w}" for w in words]
        ms.append(timed(subprocess.run, args, check=True, capture_output=True))
    return ms


def semantic_share(name: str, workdir: Path, index_dir: Path) -> None:
    """A fresh index of the history (wall and CPU), and the writer's vector work redone on all
    its documents: embed (the shipped static table), quantise, store in a scratch sqlite."""
    import sqlite3

    from whylens.index import vectors
    from whylens.index.codec import record_text
    from whylens.models import Record

    scratch = workdir / f"share-{name}"
    started, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    ensure_index(name, workdir.parent / (workdir.name + "-share"), reindex=True)
    wall = time.perf_counter() - started
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    index_cpu = child.ru_utime + child.ru_stime - cpu.ru_utime - cpu.ru_stime
    with IndexStore(index_dir).reader() as reader:
        ids = [row[0] for row in reader._db.execute("SELECT id FROM vectors ORDER BY id")]
        items = {}
        for start in range(0, len(ids), 500):
            items.update(reader.load_items(ids[start:start + 500]))
    texts = [f"{i.title}\n{record_text(i)}" if isinstance(i, Record) else f"{i.title}\n{i.content}"
             for i in items.values()]
    enc, _ = vectors.encoder()
    scratch.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(scratch / "vectors.sqlite")
    conn.executescript("DROP TABLE IF EXISTS vectors;" + vectors.DDL)
    cpu_start, started = time.process_time(), time.perf_counter()
    vectors.write(conn, list(items), texts, enc)
    conn.commit()
    spent, spent_cpu = time.perf_counter() - started, time.process_time() - cpu_start
    conn.close()
    print(f"\n{name}: fresh index {wall:.1f} s wall, {index_cpu:.1f} s CPU; vectors of "
          f"{len(texts)} documents: {spent:.1f} s wall, {spent_cpu:.1f} s CPU "
          f"({100 * spent_cpu / max(index_cpu, 1e-9):.1f}% of the index's CPU)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", action="append", default=[], choices=sorted(MIRRORS),
                        help="repositories to measure (default: requests and flask)")
    parser.add_argument("--workdir", default="/tmp/search-bench")
    parser.add_argument("--e2e-runs", type=int, default=15)
    parser.add_argument("--symbols", type=int, default=300)
    parser.add_argument("--index", type=Path, help="measure this existing index instead "
                        "(bench_lsp.py's generated one: search with its queries, hover lookups)")
    args = parser.parse_args()
    if args.index:
        bench_index(args.index, args.symbols)
        return 0
    names = args.repo or ["requests", "flask"]

    print(f"load average {os.getloadavg()[0]:.2f} (2 cores shared)")
    for name in names:
        mirror = MIRRORS[name]
        queries = [q["question"] for q in questions(name)]
        index_dir, _ = ensure_index(name, Path(args.workdir))
        semantic_share(name, Path(args.workdir), index_dir)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        open_ms = []
        start = time.perf_counter()
        reader = IndexStore(index_dir).reader()
        open_ms.append((time.perf_counter() - start) * 1000)
        stats = reader.stats()
        search(reader, "warm up", k=10)
        ms, answered = warm_search(reader, queries)
        modes = search_modes(reader, queries)
        picked, files = sample_symbols(reader, args.symbols)
        symbol_ms, lens_ms = hover_lookups(reader, picked, files)
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        reader.close()

        e2e_queries = queries[:: max(1, len(queries) // args.e2e_runs)][: args.e2e_runs]
        e2e_ms, child_rss = end_to_end(mirror, index_dir, e2e_queries)
        floor_ms = python_floor(5)
        git_ms = git_grep_baseline(mirror, e2e_queries)

        print(f"\n{name}: {stats['commits']} commits, {stats['units_total']} units, "
              f"{stats['records']} records, {stats['events']} symbol events, "
              f"index {stats['index_bytes'] / 1e6:.1f} MB "
              f"({stats['index_bytes'] / max(stats['commits'], 1) / 1024:.1f} KB per commit); "
              f"{len(queries)} queries "
              f"({answered} answered, the rest abstained)")
        print(f"  open reader                        {open_ms[0]:8.2f} ms")
        print(line("search, warm (gate included)", ms))
        print_modes(modes)
        print(line("hover: units+records+history", symbol_ms))
        print(line("lens: knowledge_counts(file)", lens_ms))
        print(line("end to end: whylens search --json", e2e_ms))
        print(line("floor: python -c pass", floor_ms))
        print(line("baseline: git log -i --grep (OR)", git_ms))
        print(f"  peak RSS: this process {rss_after} MB (before opening {rss_before} MB); "
              f"whylens search child {child_rss} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
