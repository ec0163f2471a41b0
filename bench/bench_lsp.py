"""The language server under load: hover, code lens, search, commit → hover, RSS.

    python bench/bench_lsp.py [--units 100000] [--commits 300] [--work DIR]

The index is GENERATED, then padded: a git repository is generated in a temporary folder (40
Python files, one of them 2,000 lines with 200 functions; --commits commits whose messages carry
real failure / fix / constraint prose), indexed by the real pipeline (`whylens index`), and then
padded with synthetic units (same shape as mined ones; words drawn with Zipf frequencies from a
20,000-word vocabulary; 15% anchored to the repository's 1,175 real symbols, about 13 per symbol,
the rest to 40,000 symbols of a larger code base) written through `IndexStore.writer()` until the
index holds --units units. --work DIR keeps the
repository and index between runs (the padding takes a minute or two once).

The real server (`python -m whylens serve`) is then driven over stdio by a pygls client, so every
figure includes the JSON-RPC round trip. Printed next to each figure, from the same run:
- floor: the same round trip for a request the server refuses at once (a file outside the
  workspace), i.e. the protocol + event-loop cost any answer pays;
- baseline: what a user would run without WhyLens (`git log -L`, `git log --grep`), or the
  process-start floor of the child indexer (`python -m whylens --version`).
Goals (issue 5): hover p95 ≤ 30 ms warm; code lens on a 2,000-line file ≤ 100 ms; search p95
≤ 50 ms; new commit → updated hover ≤ 1 s; server RSS ≤ 250 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

from whylens.index.store import IndexStore
from whylens.knowledge.ids import unit_id
from whylens.models import Unit
from whylens.retrieval.search import search

WORDS = ("pool connection timeout retry cache lock socket session adapter header cookie proxy "
         "stream chunk encoding redirect certificate handshake buffer queue worker thread "
         "signal parser token schema migration index cursor batch flush commit rollback").split()
FAILURES = ("TimeoutError", "ConnectionResetError", "deadlock", "memory leak", "KeyError",
            "race condition", "UnicodeDecodeError", "infinite loop")
BIG = "src/big_module.py"
FUNCS_BIG = 200
REAL_SHARE = 0.15  # of the padded units, this share is about the repository's real symbols
SYNTHETIC_SYMBOLS = 40_000  # the rest: symbols of a larger code base that is not checked out


def vocabulary(rng: random.Random, size: int = 20_000) -> tuple[list[str], list[float]]:
    """Pseudo-words with Zipf weights, so term frequencies look like prose, not a 30-word list."""
    syllables = ["ka", "lo", "mi", "ne", "ra", "to", "su", "ve", "di", "po", "gu", "re", "an",
                 "el", "is", "or", "un", "ex", "ba", "zo"]
    words = list(dict.fromkeys(WORDS + ["".join(rng.choices(syllables, k=rng.randint(2, 4)))
                                        for _ in range(size * 2)]))[:size]
    cumulative, total = [], 0.0
    for rank in range(1, len(words) + 1):
        total += 1.0 / rank
        cumulative.append(total)
    return words, cumulative


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


# ---- the generated repository ---------------------------------------------------------------

def function(name: str, variant: int) -> str:
    body = "\n".join(f"    value = value + {variant + i}  # step {i}" for i in range(6))
    return f"def {name}(value):\n    \"\"\"{name} v{variant}.\"\"\"\n{body}\n    return value\n\n"


def file_text(names: list[str], variants: dict[str, int]) -> str:
    return "".join(function(n, variants.get(n, 0)) for n in names)


def git(root: Path, *args: str, env: dict | None = None, stdin: bytes | None = None) -> str:
    out = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, check=True,
                         env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", **(env or {})})
    return out.stdout.decode().strip()


def commit(root: Path, message: str, stamp: int, author: str = "Ada Lovelace") -> str:
    git(root, "add", "-A")
    env = {"GIT_AUTHOR_NAME": author, "GIT_AUTHOR_EMAIL": "a@example.com",
           "GIT_COMMITTER_NAME": author, "GIT_COMMITTER_EMAIL": "a@example.com",
           "GIT_AUTHOR_DATE": f"{stamp} +0000", "GIT_COMMITTER_DATE": f"{stamp} +0000"}
    git(root, "commit", "-q", "--no-verify", "-F", "-", env=env, stdin=message.encode())
    return git(root, "rev-parse", "HEAD")


def message(rng: random.Random, name: str, n: int) -> str:
    failure, a, b = rng.choice(FAILURES), rng.choice(WORDS), rng.choice(WORDS)
    return (f"Fix {failure} in {name} when the {a} is exhausted (#{n})\n\n"
            f"{name} raised {failure} when the {a} {b} was reused under load. Fixed by "
            f"releasing the {a} before waiting on the {b}. The {b} must be closed by the caller.\n")


def build_repo(root: Path, commits: int, rng: random.Random) -> dict[str, list[str]]:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    files = {BIG: [f"handler_{i:03d}" for i in range(FUNCS_BIG)]}
    for f in range(39):
        files[f"src/pkg{f % 5}/mod_{f:02d}.py"] = [f"op_{f:02d}_{i:02d}" for i in range(25)]
    variants: dict[str, int] = {}
    for path, names in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(file_text(names, variants))
    stamp = 1_600_000_000
    commit(root, "Initial import of the service", stamp)
    for n in range(1, commits):
        path = BIG if rng.random() < 0.5 else rng.choice(list(files))
        name = rng.choice(files[path])
        variants[name] = variants.get(name, 0) + 1
        (root / path).write_text(file_text(files[path], variants))
        stamp += 3600
        commit(root, message(rng, name, n), stamp, rng.choice(["Ada Lovelace", "Grace Hopper"]))
    return files


def pad_units(index_dir: Path, files: dict[str, list[str]], target: int, rng: random.Random,
              real_share: float = REAL_SHARE) -> int:
    store = IndexStore(index_dir)
    reader = store.reader()
    try:
        have = int(reader.stats().get("units_total", 0))
        last = reader.meta.get("last_sha") or "0" * 40
    finally:
        reader.close()
    missing = target - have
    if missing <= 0:
        return have
    real = [(path, name) for path, names in files.items() for name in names]
    vocab, weights = vocabulary(rng)

    def words(k: int) -> list[str]:
        return rng.choices(vocab, cum_weights=weights, k=k)

    batch: list[Unit] = []
    writer = store.writer()
    try:
        for i in range(missing):
            if rng.random() < real_share:
                path, name = rng.choice(real)
            else:
                n = rng.randrange(SYNTHETIC_SYMBOLS)
                path, name = f"lib/gen{n % 97}/module_{n % 1013}.py", f"generated_{n}"
            kind = rng.choice(("pattern", "skill", "fact"))
            a, b, c = words(3)
            failure = rng.choice(FAILURES)
            title = {"pattern": f"{name} hits {failure} when the {a} {b} is reused",
                     "skill": f"Fixed by releasing the {a} before the {b} in {name}",
                     "fact": f"The {a} must be closed before the {b} in {name}"}[kind]
            title += f" ({c})"
            content = f"{title} (generated unit {i})."
            batch.append(Unit(id=unit_id(kind, content), type=kind, title=title, content=content,
                              weight=0.6, context=content, commit=last, author="Generated",
                              date="2020-09-13T12:26:40+00:00", files=(path,), symbols=(name,),
                              heuristic="bench.generated"))
            if len(batch) >= 5000:
                writer.add_units(batch)
                writer.flush()
                batch = []
                print(f"  padded {i + 1}/{missing} units", file=sys.stderr, flush=True)
        writer.add_units(batch)
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    return target


# ---- driving the server ---------------------------------------------------------------------

class Session:
    def __init__(self, client, root: Path):
        self.client, self.root = client, root
        self.statuses: list[dict] = []

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def on_register(params):
            return None  # the watchers VS Code would install; the bench sends their events

        @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def on_lens_refresh(params):
            return None  # VS Code would ask for lenses again

        @client.feature("whylens/indexStatus")
        def on_status(params):
            status = params._asdict() if hasattr(params, "_asdict") else dict(params)
            status["at"] = time.perf_counter()
            self.statuses.append(status)

    async def wait_idle(self, after: int, timeout: float = 600) -> None:
        async def loop():
            while not any(s["state"] in ("idle", "error") for s in self.statuses[after:]):
                await self.client.wait_for_notification("whylens/indexStatus")
        await asyncio.wait_for(loop(), timeout)

    async def hover(self, uri: str, line: int, col: int):
        return await self.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=col)))


async def timed(coro) -> tuple[float, object]:
    start = time.perf_counter()
    result = await coro
    return time.perf_counter() - start, result


def rss_mb(pid: int) -> tuple[float, float]:
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


def baseline_git_log_l(root: Path, name: str) -> float:
    start = time.perf_counter()
    subprocess.run(["git", "log", "-L", f":{name}:{BIG}", "--oneline"], cwd=root,
                   capture_output=True, check=True)
    return time.perf_counter() - start


def process_floor() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "whylens", "--version"], capture_output=True, check=True)
    return time.perf_counter() - start


def import_floor_rss() -> float:
    code = ("import whylens.lsp.server, whylens.lsp.features.hover, whylens.index.reader; "
            "print(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024


async def drive(root: Path, index_dir: Path, rng: random.Random, watcher: bool) -> None:
    client = await ClientServerConfig(
        server_command=[sys.executable, "-m", "whylens", "serve"]).start()
    session = Session(client, root)
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri(),
        initialization_options={"indexDirectory": str(index_dir)}))
    await session.wait_idle(0)
    pid = client._server.pid
    big_uri = (root / BIG).as_uri()
    text = (root / BIG).read_text()
    lines = text.splitlines()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=big_uri, language_id="python", version=1, text=text)))
    targets = [(i, lines[i].index("handler_")) for i, text in enumerate(lines) if text.startswith("def ")]
    outside = root.parent / "outside.py"
    outside.write_text("def f():\n    pass\n")

    floors = [(await timed(session.hover(outside.as_uri(), 0, 5)))[0] for _ in range(100)]
    floor = statistics.median(floors)
    print(f"lines in {BIG}: {len(lines)}; functions: {len(targets)}")
    print(f"floor: refused request round trip p50 {ms(floor)}, p95 {ms(pct(floors, .95))}")

    # code lens: the first request parses the outline; the second uses the cached outline
    cold, lenses = await timed(client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=big_uri))))
    warm, _ = await timed(client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=big_uri))))
    resolve = [(await timed(client.code_lens_resolve_async(lens)))[0] for lens in lenses[:30]]
    print(f"code lens, {len(lines)}-line file: first {ms(cold)}, again {ms(warm)} "
          f"({len(lenses)} lenses; goal ≤ 100 ms); resolve p50 {ms(statistics.median(resolve))}")

    for line, col in targets:  # warm-up pass
        await session.hover(big_uri, line, col + 1)
    hovers, answered = [], 0
    for line, col in targets:
        elapsed, result = await timed(session.hover(big_uri, line, col + 1))
        hovers.append(elapsed)
        answered += result is not None
    base = statistics.median(baseline_git_log_l(root, f"handler_{i:03d}") for i in range(3))
    print(f"hover warm ({len(hovers)} symbols, {answered} cards): p50 {ms(statistics.median(hovers))}, "
          f"p95 {ms(pct(hovers, .95))} (goal p95 ≤ 30 ms) | floor p50 {ms(floor)} | "
          f"baseline `git log -L :fn:file` {ms(base)}")

    vocab, weights = vocabulary(random.Random(7))
    queries = [" ".join(rng.choices(vocab, cum_weights=weights, k=2)) + " " + rng.choice(FAILURES)
               for _ in range(60)]
    searches = []
    for q in queries:
        elapsed, _ = await timed(client.protocol.send_request_async("whylens/search", {"query": q, "k": 10}))
        searches.append(elapsed)
    reader = IndexStore(index_dir).reader()
    in_process = []
    try:
        for q in queries:
            start = time.perf_counter()
            search(reader, q, k=10)
            in_process.append(time.perf_counter() - start)
    finally:
        reader.close()
    grep = []
    for q in queries[:5]:
        start = time.perf_counter()
        subprocess.run(["git", "log", "--oneline", "-i", f"--grep={q.split()[0]}"], cwd=root,
                       capture_output=True, check=True)
        grep.append(time.perf_counter() - start)
    print(f"search ({len(searches)} queries): p50 {ms(statistics.median(searches))}, "
          f"p95 {ms(pct(searches, .95))} (goal p95 ≤ 50 ms) | floor: round trip p50 {ms(floor)}, "
          f"the same retrieval.search in process p50 {ms(statistics.median(in_process))} p95 "
          f"{ms(pct(in_process, .95))} | baseline `git log --grep` {ms(statistics.median(grep))}")

    rss, hwm = rss_mb(pid)
    print(f"server RSS {rss:.0f} MB, peak {hwm:.0f} MB (goal ≤ 250 MB) | floor: the server's "
          f"imports alone {import_floor_rss():.0f} MB")

    # a new commit → the hover shows it
    name = "handler_007"
    line = next(i for i, text in enumerate(lines) if text.startswith(f"def {name}("))
    subject = "Make handler_007 reject negative values (#9999)"
    (root / BIG).write_text(text.replace(f"def {name}(value):\n",
                                         f"def {name}(value):\n    assert value >= 0\n"))
    seen = len(session.statuses)
    t0 = time.perf_counter()
    commit(root, f"{subject}\n\nhandler_007 raised OverflowError when the value was negative. "
                 "Fixed by rejecting negative values early.\n", 1_700_000_000)
    if watcher:  # what VS Code sends for the watchers the server registered
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=(root / ".git" / "refs" / "heads" / "main").as_uri(),
                            type=types.FileChangeType.Changed)]))
    while True:
        await session.wait_idle(seen)
        result = await session.hover(big_uri, line, 6)
        if result is not None and "#9999" in result.contents.value:
            break
        seen = len(session.statuses)
    took = time.perf_counter() - t0
    after = [s for s in session.statuses if s["at"] >= t0]
    began = next((s["at"] for s in after if s["state"] == "indexing"), t0) - t0
    ended = next((s["at"] for s in after if s["state"] == "idle"), t0) - t0
    how = "file watcher event" if watcher else "HEAD poll (every 0.5 s)"
    print(f"new commit → updated hover ({how}): {ms(took)} (goal ≤ 1 s): run started at "
          f"+{ms(began).strip()}, child done and reader reopened at +{ms(ended).strip()} | floor: "
          f"child process start `python -m whylens --version` {ms(process_floor())}")
    rss, hwm = rss_mb(pid)
    print(f"server RSS after the update {rss:.0f} MB, peak {hwm:.0f} MB")
    await client.shutdown_session()
    await client.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--units", type=int, default=100_000)
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--work", help="keep the generated repository and index here")
    parser.add_argument("--real-share", type=float, default=REAL_SHARE,
                        help="share of padded units anchored to the real symbols (1.0: all of "
                             "them, about 85 units per symbol: the worst case)")
    parser.add_argument("--poll", action="store_true",
                        help="let the server notice the new commit by polling HEAD (as for a "
                             "client without file watchers) instead of a watcher event")
    args = parser.parse_args()
    rng = random.Random(7)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="whylens-bench-lsp-"))
    root, index_dir = work / "repo", work / "index"
    fresh = not root.exists()
    start = time.perf_counter()
    if fresh:
        files = build_repo(root, args.commits, rng)
        print(f"generated {args.commits} commits in {time.perf_counter() - start:.1f}s")
    else:  # reuse: the file layout is deterministic
        files = {BIG: [f"handler_{i:03d}" for i in range(FUNCS_BIG)]}
        for f in range(39):
            files[f"src/pkg{f % 5}/mod_{f:02d}.py"] = [f"op_{f:02d}_{i:02d}" for i in range(25)]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "whylens", "index", "--repo", str(root),
                    "--index-dir", str(index_dir), "--progress", "none"], check=True)
    print(f"pipeline index: {time.perf_counter() - start:.1f}s")
    start = time.perf_counter()
    units = pad_units(index_dir, files, args.units, rng, args.real_share)
    print(f"index holds {units} units (padding took {time.perf_counter() - start:.1f}s)")
    asyncio.run(drive(root, index_dir, rng, watcher=not args.poll))
    print(f"work folder: {work}")


if __name__ == "__main__":
    main()
