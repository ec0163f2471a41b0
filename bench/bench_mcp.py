"""`whylens mcp` latency on a real repository: warm tool calls, and process start to first answer.

    python bench/bench_mcp.py /work/.mirror/psf+requests/repo [--index-dir DIR] [--targets 200]

Indexes the repository (a bare mirror is fine) unless --index-dir holds an index, materialises
its HEAD source files into a temporary work folder (as bench_why.py does), then starts the real
server over stdio with the SDK's client:

- warm: `why` on the name line of sampled symbols and `search` with the labelled queries
  (bench/labels/queries-<name>.tsv), each a full tools/call round trip (goal p95 ≤ 100 ms), next
  to the same core calls in process (the floor: what the tools add is protocol, JSON and budget)
  and an MCP `ping` round trip (the transport floor); CPU per call from /proc;
- from process start: spawning `whylens mcp` to the first `why` answer (initialize included), next
  to the CLI's end-to-end time for the same query in the same run (`whylens why --json`,
  `whylens search --json` as new processes) and `python -c pass`.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from bench_why import materialise, ms, pct, target_args, targets_in
from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.render.hits import to_json
from whylens.retrieval.citations import web_links_from_meta
from whylens.retrieval.search import search
from whylens.retrieval.why import why

ROOT = Path(__file__).resolve().parents[1]


def labelled_queries(repo: str) -> list[str]:
    name = Path(repo).parent.name.split("+")[-1] if Path(repo).name == "repo" else Path(repo).name
    path = ROOT / "bench" / "labels" / f"queries-{name}.tsv"
    if not path.exists():
        sys.exit(f"no labelled queries at {path}")
    return [line.split("\t")[0] for line in path.read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def server(work: Path, index_dir: Path):
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "whylens", "mcp", "--repo", str(work), "--index-dir", str(index_dir)])
    return Client(stdio_client(params, errlog=subprocess.DEVNULL), mode="legacy")


async def first_answer(work: Path, index_dir: Path, target: tuple) -> tuple[float, float]:
    """(wall, server CPU) seconds from spawning the server to its first `why` answer."""
    start = time.perf_counter()
    async with server(work, index_dir) as client:
        result = await client.call_tool("why", {"path": target[0], "line": target[1]})
        took = time.perf_counter() - start
        if result.is_error:
            sys.exit(f"why failed: {result.content[0].text}")
        return took, server_cpu()


def server_cpu() -> float:
    """CPU seconds (user + system) of this process's `whylens mcp` child so far."""
    for proc in Path("/proc").iterdir():
        try:
            if not proc.name.isdigit() or b"mcp" not in (proc / "cmdline").read_bytes():
                continue
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():  # ppid
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return float("nan")


async def warm_calls(work: Path, index_dir: Path, targets: list, queries: list[str]) -> dict:
    out: dict[str, list[float]] = {"why": [], "search": [], "ping": []}
    known = answered = 0
    async with server(work, index_dir) as client:
        await client.call_tool("why", {"path": targets[0][0], "line": targets[0][1]})  # warm up
        mark = server_cpu()
        warnings.filterwarnings("ignore", message="ping is removed")  # fine: mode="legacy"
        for _ in range(50):
            t0 = time.perf_counter()
            await client.send_ping()
            out["ping"].append(time.perf_counter() - t0)
        for path, line, _sym in targets:
            t0 = time.perf_counter()
            result = await client.call_tool("why", {"path": path, "line": line})
            out["why"].append(time.perf_counter() - t0)
            known += not result.structured_content.get("abstained", True)
        mark, out["why_cpu"] = server_cpu(), (server_cpu() - mark) / len(targets)
        for _ in range(3):
            for query in queries:
                t0 = time.perf_counter()
                result = await client.call_tool("search", {"query": query})
                out["search"].append(time.perf_counter() - t0)
                answered += not result.structured_content.get("abstained", True)
        out["search_cpu"] = (server_cpu() - mark) / (3 * len(queries))
    print(f"  ({known} of {len(targets)} symbols with a story; {answered // 3} of {len(queries)} "
          "queries answered)")
    return out


def in_process(index_dir: Path, work: Path, targets: list, queries: list[str]) -> dict:
    reader = IndexStore(index_dir).reader()
    links = web_links_from_meta(reader.meta)
    out: dict[str, list[float]] = {"why": [], "search": []}
    try:
        why(reader, targets[0][0], line=targets[0][1], repo_root=work)
        mark = time.process_time()
        for path, line, _sym in targets:
            t0 = time.perf_counter()
            why(reader, path, line=line, repo_root=work)
            out["why"].append(time.perf_counter() - t0)
        mark, out["why_cpu"] = time.process_time(), (time.process_time() - mark) / len(targets)
        for _ in range(3):
            for query in queries:
                t0 = time.perf_counter()
                to_json(search(reader, query), links)
                out["search"].append(time.perf_counter() - t0)
        out["search_cpu"] = (time.process_time() - mark) / (3 * len(queries))
    finally:
        reader.close()
    return out


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of a new process running ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, cwd=cwd)
    took = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        sys.exit(proc.stderr.decode(errors="replace"))
    return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def medians(runs: list[tuple[float, float]]) -> str:
    return (f"{ms(statistics.median(r[0] for r in runs))} wall, "
            f"{ms(statistics.median(r[1] for r in runs))} CPU")


def cpu(seconds: float, whose: str = "") -> str:
    return f"   CPU {seconds * 1000:5.1f} ms/call{' (' + whose + ')' if whose else ''}"


def line(label: str, values: list[float], extra: str = "") -> str:
    return (f"  {label:34} p50 {ms(pct(values, .5))}  p95 {ms(pct(values, .95))}  "
            f"max {ms(max(values))}{extra}")


def main() -> None:
    args = target_args(__doc__).parse_args()
    cpu0 = time.process_time()

    with tempfile.TemporaryDirectory(prefix="whylens-bench-mcp-") as tmp:
        tmp_path = Path(tmp)
        index_dir = Path(args.index_dir) if args.index_dir else tmp_path / "index"
        if not IndexStore(index_dir).exists():
            start = time.perf_counter()
            summary = run_index(args.repo, index_dir, rev=args.rev)
            took = time.perf_counter() - start
            print(f"index: {summary.commits_indexed} commits in {took:.1f} s")
        work = tmp_path / "work"
        work.mkdir()
        files = materialise(args.repo, args.rev, work)
        targets = targets_in(work, files, args.targets, args.seed)
        queries = labelled_queries(args.repo)
        print(f"{len(targets)} symbols in {len(files)} files, {len(queries)} queries × 3")

        print("\nwarm, one server, each a tools/call round trip over stdio:")
        served = anyio.run(warm_calls, work, index_dir, targets, queries)
        core = in_process(index_dir, work, targets, queries)
        print(line("why (MCP)", served["why"], cpu(served["why_cpu"], "server")))
        print(line("search (MCP)", served["search"], cpu(served["search_cpu"], "server")))
        print(line("floor: why in process", core["why"], cpu(core["why_cpu"])))
        print(line("floor: search + to_json in process", core["search"], cpu(core["search_cpu"])))
        print(line("floor: MCP ping round trip", served["ping"]))
        print("  (goal: p95 ≤ 100 ms for why and search)")

        target, query = targets[0], queries[0]
        cli = [sys.executable, "-m", "whylens"]
        common = ["--repo", str(work), "--index-dir", str(index_dir), "--json"]
        first, cli_why, cli_search, python = [], [], [], []
        for _ in range(args.cold_runs):  # interleaved, so every figure sees the same load
            first.append(anyio.run(first_answer, work, index_dir, target))
            cli_why.append(timed([*cli, "why", f"{target[0]}:{target[1]}", *common], work))
            cli_search.append(timed([*cli, "search", query, *common], work))
            python.append(timed([sys.executable, "-c", "pass"], work))
        print(f"\nfrom process start ({args.cold_runs} runs each, medians):")
        print(f"  `whylens mcp` spawn → first why answer  {medians(first)}  (initialize "
              "included; CPU of the server)")
        print(f"  CLI `whylens why --json`, same query      {medians(cli_why)}")
        print(f"  CLI `whylens search --json`               {medians(cli_search)}")
        print(f"  floor `python -c pass`                    {medians(python)}")
    print(f"\nbench process CPU {time.process_time() - cpu0:.1f} s; load average "
          f"{open('/proc/loadavg').read().split()[0]}")


if __name__ == "__main__":
    main()
