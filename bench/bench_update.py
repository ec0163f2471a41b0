"""One new commit → updated hover, with the real language server, p50/p95 over many commits.

    python bench/bench_update.py REPO [REPO ...] [--commits 5] [--rounds 2] [--work DIR]
        [--config NAME=SERVER_DIR[:ENV=VALUE,...]] ... [--bytecode]

For each REPO (a scratch clone is made and indexed once; commits are added to the clone), each
configuration starts the real server (``python -m whylens serve`` over stdio, pytest-lsp client
with VS Code's capabilities) on that clone and index, then, ``--commits`` times per delivery:
edits a function of a tracked ``.py``/``.c`` file (an added statement, a reason in the message),
sends the editor's ``didChange``, runs ``git commit``, and from the moment the commit lands
(the branch ref's mtime; ``git commit`` returns later, after its summary) hovers on the added
line every 20 ms until the card cites the new commit. Two deliveries: ``watched`` (the client
sends ``workspace/didChangeWatchedFiles`` for the ref as soon as it changes, as VS Code's
watcher would, polling it every 2 ms) and ``polled`` (it does not: the server notices by
polling HEAD). The server's
own log gives the index run's time (spawn or warm child to summary) and which child ran it.
Each session's first commit is a warm-up, not counted; sessions of the configurations are
interleaved (``--rounds``), since the load of a shared machine drifts.

Default configurations: ``warm`` (this checkout), ``cold`` (this checkout with
``WHYLENS_WARM_INDEXER=0``); add ``--config main=/work/main/server`` for another checkout.
``--seed-index INDEX`` (one REPO): REPO is used in place as the clone (commits are added to it:
a scratch clone) and INDEX, a complete index of REPO made beforehand, is copied instead of
indexing it here (a 100k-commit history takes ~15 min of CPU to index; index it once).
``--bytecode`` runs everything with a bytecode cache (``PYTHONPYCACHEPREFIX`` in the work
folder, written by an unmeasured first commit); without it, the environment decides (this
machine sets ``PYTHONDONTWRITEBYTECODE``: WhyLens is compiled in every process).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "server"))
sys.path.insert(0, str(HERE))

from bench_index import loadavg  # noqa: E402
from bench_scale import branch_ref, start_lsp_client  # noqa: E402

WHO = {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
       "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
RUN = f"{int(time.time()) % 1_000_000:06d}"
# "by the ..." since the warm child; main before it logs "index updated in 0.4s (...)"
RUN_LOG = re.compile(r"index updated in ([\d.]+)s(?: by the (warm child|new process))?")


class Edit:
    """One edit: a statement added at the end of a function (before a Python function's last
    ``return``/``raise``/``pass``, before a C function's closing brace); the hover position."""

    def __init__(self, clone: Path, n: int, files: list[str]) -> None:
        from whylens.symbols.languages import language_for_path
        from whylens.symbols.outline import outline

        for attempt in range(400):
            rel = files[(n * 7919 + attempt * 104729) % len(files)]
            data = (clone / rel).read_bytes()
            if len(data) > 400_000 or b"\x00" in data[:8192]:
                continue
            language = language_for_path(rel)
            lines = data.splitlines(keepends=True)
            python = rel.endswith(".py")
            fits = [s for s in outline(data, language) if s.kind in ("function", "method")
                    and s.end_line - s.start_line >= 2 and s.end_line <= len(lines)
                    and (re.match(rb"[ \t]+(return\b|raise\b|pass$)",
                                  lines[s.end_line - 1].rstrip()) if python
                         else lines[s.end_line - 1].rstrip() == b"}")]
            if not fits:
                continue
            symbol = fits[(n * 31 + attempt) % len(fits)]
            last = symbol.end_line - 1  # 0-based: the line the new one goes before
            indent = re.match(rb"[ \t]*", lines[last]).group()
            tag = f"{RUN}_{n}".encode()  # never the same line as an earlier run's
            added = (indent + b"_bench_guard_%s = None\n" % tag) if python else \
                (indent + b"    (void)0; /* bench %s */\n" % tag)
            lines.insert(last, added)
            self.path, self.line, self.language = clone / rel, last, language
            self.text = b"".join(lines).decode("utf-8", "replace")
            self.subject = f"Guard the bench path {RUN}-{n} against empty values"
            self.needle = f"bench path {RUN}-{n} against"  # never in an earlier run's history
            return
        raise SystemExit(f"no editable function found in {clone}")

    async def commit(self, clone: Path) -> None:
        self.path.write_text(self.text, encoding="utf-8")
        proc = await asyncio.create_subprocess_exec(
            "git", "-C", str(clone), "commit", "-qam",
            f"{self.subject}\n\nThe value can be empty here, because the caller skips "
            "validation; check it first.", env={**os.environ, **WHO})
        if await proc.wait() != 0:
            raise SystemExit("git commit failed")


async def landed(ref: Path, before: tuple[int, str], commit: asyncio.Task) -> float:
    """The ``perf_counter`` time at which the branch ref was rewritten (its mtime: the commit
    lands then, before ``git commit`` returns), found by polling it every 2 ms."""
    while True:
        try:
            stat = ref.stat()
            now = (stat.st_mtime_ns, ref.read_text())
        except OSError:
            now = before
        if now != before:
            return time.perf_counter() - (time.time() - stat.st_mtime_ns / 1e9)
        if commit.done():
            commit.result()
            raise SystemExit("the commit did not move the branch")
        await asyncio.sleep(0.002)


def source_files(clone: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(clone), "ls-files", "*.py", "*.c"],
                         capture_output=True, text=True, check=True).stdout.split()
    return [f for f in out if "test" not in f and "vendor" not in f and "deps/" not in f] or out


async def session(clone: Path, index_dir: Path, env: dict[str, str], numbers: range,
                  files: list[str], delivery: str, pause: float
                  ) -> list[tuple[float, float | None, str]]:
    """(commit → card seconds, server's index run seconds, which child) per edit."""
    from lsprotocol import types
    from pytest_lsp import client_capabilities

    client = await start_lsp_client(env)

    class Logs:  # pytest-lsp keeps the window/logMessage params
        def __getitem__(self, index):
            return [m.message for m in client.log_messages][index]

        def __len__(self):
            return len(client.log_messages)

        def __iter__(self):
            return iter([m.message for m in client.log_messages])

    logs = Logs()
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=clone.as_uri(),
        initialization_options={"indexDirectory": str(index_dir)}))
    try:
        await until(lambda: any(RUN_LOG.search(m) for m in logs), 300)
    except SystemExit:
        print("\n".join(logs[-20:]), file=sys.stderr)
        raise
    await asyncio.sleep(pause)  # the next warm child has imported
    results = []
    opened: set[str] = set()
    ref = branch_ref(clone)
    for version, n in enumerate(numbers, start=2):
        edit = Edit(clone, n, files)  # on the tree as the previous commits left it
        uri = edit.path.as_uri()
        if uri not in opened:
            opened.add(uri)
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id=edit.language or "c",
                                                     version=1, text=edit.path.read_text(
                                                         errors="replace"))))
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=edit.text)]))
        seen = len(logs)
        before = (ref.stat().st_mtime_ns, ref.read_text())
        committing = asyncio.ensure_future(edit.commit(clone))
        t0 = await landed(ref, before, committing)  # as an editor's file watcher would see it
        if delivery == "watched":
            client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=ref.as_uri(), type=types.FileChangeType.Changed)]))
        took = await card_after(client, uri, edit.line, edit.needle, t0, 60)
        await committing
        await until(lambda seen=seen: any(RUN_LOG.search(m) for m in logs[seen:]), 60)
        run = next((RUN_LOG.search(m) for m in logs[seen:] if RUN_LOG.search(m)), None)
        results.append((took if took is not None else float("nan"),
                        float(run.group(1)) if run else None,
                        (run.group(2) or "new process") if run else "?"))
        await asyncio.sleep(pause)  # the next warm child has imported (commits minutes apart)
    if os.environ.get("BENCH_UPDATE_LOGS"):
        print("\n".join(logs))
    await client.shutdown_session()
    await client.stop()
    return results


async def until(condition, limit: float) -> None:
    start = time.perf_counter()
    while not condition():
        if time.perf_counter() - start > limit:
            raise SystemExit("the server did not finish an index run in time")
        await asyncio.sleep(0.05)


async def card_after(client, uri: str, line: int, needle: str, t0: float,
                     limit: float) -> float | None:
    from lsprotocol import types

    while time.perf_counter() - t0 < limit:
        result = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=4)))
        if result is not None and needle in result.contents.value:
            return time.perf_counter() - t0
        await asyncio.sleep(0.02)
    return None


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(label: str, rows: list[tuple[float, float | None, str]]) -> str:
    totals = [r[0] for r in rows if r[0] == r[0]]  # NaN: no card within the limit
    missed = len(rows) - len(totals)
    runs = [r[1] for r in rows if r[1] is not None]
    kinds = sorted({r[2] for r in rows})
    return (f"{label:28} commit → card p50 {statistics.median(totals):.3f} s, p95 "
            f"{pct(totals, 0.95):.3f} s, max {max(totals):.3f} s; index run p50 "
            f"{statistics.median(runs) if runs else float('nan'):.3f} s ({', '.join(kinds)}); "
            f"n={len(totals)}" + (f", {missed} without a card in 60 s" if missed else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+")
    parser.add_argument("--commits", type=int, default=5, help="measured commits per session")
    parser.add_argument("--rounds", type=int, default=2, help="sessions per configuration "
                        "and delivery, interleaved")
    parser.add_argument("--config", action="append", default=[],
                        help="NAME=SERVER_DIR[:VAR=VALUE,...] (SERVER_DIR '.' = this checkout)")
    parser.add_argument("--delivery", action="append", choices=("watched", "polled"))
    parser.add_argument("--bytecode", action="store_true")
    parser.add_argument("--pause", type=float, default=4.0,
                        help="seconds between a card and the next commit (for every config)")
    parser.add_argument("--seed-index", help="copy this complete index of REPO (used in place)")
    parser.add_argument("--work")
    args = parser.parse_args()
    if args.seed_index and len(args.repos) != 1:
        parser.error("--seed-index takes one REPO")
    configs = args.config or ["warm=.", "cold=.:WHYLENS_WARM_INDEXER=0"]
    work = Path(args.work or tempfile.mkdtemp(prefix="whylens-update-"))
    base = dict(os.environ)
    if args.bytecode:
        base.pop("PYTHONDONTWRITEBYTECODE", None)
        base["PYTHONPYCACHEPREFIX"] = str(work / "pyc")
    flag = os.environ.get("PYTHONDONTWRITEBYTECODE", "")
    print(f"{os.cpu_count()} CPUs; bytecode cache: "
          f"{'yes' if args.bytecode else f'no (PYTHONDONTWRITEBYTECODE={flag!r})'}")
    try:
        for r, repo in enumerate(args.repos):
            clone, index_dir = work / f"clone{r}", work / f"index{r}"
            if args.seed_index:
                clone = Path(repo).resolve()
            elif not clone.exists():
                subprocess.run(["git", "clone", "-q", "--no-local", repo, str(clone)], check=True)
            started = time.perf_counter()
            from whylens.locate import locate

            target = index_dir / locate(clone).index_dir.name  # the server's subfolder
            if args.seed_index:
                if not target.exists():
                    shutil.copytree(args.seed_index, target)
            else:
                subprocess.run([sys.executable, "-m", "whylens", "index", "--repo", str(clone),
                                "--index-dir", str(target), "--progress", "none"], check=True,
                               env=base, stdout=subprocess.DEVNULL)
            commits = subprocess.run(["git", "-C", str(clone), "rev-list", "--count", "HEAD"],
                                     capture_output=True, text=True).stdout.strip()
            print(f"\n== {repo}: {commits} commits, "
                  f"{'index copied' if args.seed_index else 'indexed'} in "
                  f"{time.perf_counter() - started:.0f} s; load average {loadavg()}")
            files = source_files(clone)
            n, rows = 0, {}
            loads = []
            for _round in range(args.rounds):  # configurations interleaved: load drifts
                for delivery in args.delivery or ["watched", "polled"]:
                    for config in configs:
                        name, _, spec = config.partition("=")
                        folder, _, extra = spec.partition(":")
                        env = dict(base)
                        if folder != ".":
                            env["PYTHONPATH"] = folder
                        env.update(dict(kv.split("=", 1) for kv in extra.split(",") if kv))
                        numbers = range(n, n + args.commits + 1)
                        n = numbers.stop
                        got = asyncio.run(session(clone, index_dir, env, numbers, files,
                                                  delivery, args.pause))
                        # the first commit of a session is a warm-up (bytecode written, the
                        # server's hover path imported)
                        rows.setdefault((name, delivery), []).extend(got[1:])
                        loads.append(os.getloadavg()[0])
            for (name, delivery), measured in rows.items():
                print(summary(f"{name} / {delivery}", measured))
            print(f"load average (1 min) over the sessions: {min(loads):.1f}-{max(loads):.1f}; "
                  f"now {loadavg()}")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
