"""Time from opening a folder to the first hover that cites history, through the real server.

    python bench/bench_first_hover.py REPO [--config NAME=SERVER_DIR ...] [--rounds N]

For each round and each configuration (alternated: the order flips every round), a fresh index
folder, the real ``whylens serve`` (pytest-lsp client, VS Code's capabilities), ``initialize``
with ``REPO`` as the root, ``didOpen`` of the file the newest substantive commit changed, then a
hover on that function's name every 0.25 s until the card cites that commit's subject (as
``bench_scale.first_hover``). Printed per run: seconds from ``initialize`` to the first
``mine`` status and to that card, the server tree's CPU at the card (user+sys of the server and
every descendant alive or reaped, from /proc), the commit count the progress showed then, the
load average. The server and its whole process tree are then SIGKILLed (mid-backfill).
``--config`` defaults to this checkout's server (``this``); give ``main=/work/main/server`` for
a baseline from the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_index import loadavg  # noqa: E402
from bench_scale import (card_after, env_for, kill_and_stop, newest_function,  # noqa: E402
                         start_lsp_client)

TICKS = os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (from /proc's parent links)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(parents.get(p, []))
    return found


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid``'s tree: each live process's user+sys and its reaped children's."""
    total = 0
    for p in descendants(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return total / TICKS


async def one_run(repo: Path, env: dict[str, str], index_base: Path, target: tuple,
                  limit: float) -> dict:
    from lsprotocol import types
    from pytest_lsp import client_capabilities

    path, line, col, subject = target
    statuses: list[tuple[float, str]] = []

    def on_status(params):
        data = params._asdict() if hasattr(params, "_asdict") else dict(params)
        statuses.append((time.perf_counter(), str(data.get("message", ""))))

    load_before = loadavg()
    client = await start_lsp_client(env, on_status)
    server_pid = client._server.pid
    t0 = time.perf_counter()
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=repo.as_uri(),
        initialization_options={"indexDirectory": str(index_base)}))
    statuses.append((time.perf_counter(), "(initialize answered)"))
    uri = (repo / path).as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="c", version=1,
                                             text=(repo / path).read_text(errors="replace"))))
    card = await card_after(client, uri, line, col, subject, t0, limit, 0.25)
    cpu = tree_cpu(server_pid)
    first_mine = next((t - t0 for t, m in statuses if m.startswith("min")), None)
    shown = [m for t, m in statuses if "min" in m]
    await kill_and_stop(client, reversed(descendants(server_pid)))  # mid-backfill: the tree
    return {"card": card, "cpu": cpu, "first_mine": first_mine,
            "timeline": [(round(t - t0, 2), m) for t, m in statuses],
            "progress": shown[-1] if shown else (statuses[-1][1] if statuses else ""),
            "load": f"{load_before} -> {loadavg()}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--config", action="append", default=[],
                        help="NAME=SERVER_DIR (repeatable; default: this checkout)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--limit", type=float, default=120.0, help="give up after (s)")
    parser.add_argument("--timeline", action="store_true",
                        help="print every status with its time after initialize")
    parser.add_argument("--work", help="index folders here (default: a temporary folder)")
    args = parser.parse_args()
    configs = [tuple(c.split("=", 1)) for c in args.config] or [("this", str(HERE.parent / "server"))]
    repo = Path(args.repo).resolve()
    target = newest_function(repo)
    print(f"{repo}: hover on {target[0]}:{target[1] + 1} ({target[3][:60]!r})", flush=True)
    work = Path(args.work or tempfile.mkdtemp(prefix="whylens-first-hover-"))
    results: dict[str, list[float]] = {}
    try:
        for n in range(args.rounds):
            order = configs if n % 2 == 0 else list(reversed(configs))
            for name, server in order:
                base = work / f"{name}-{n}"
                shutil.rmtree(base, ignore_errors=True)
                got = asyncio.run(one_run(repo, env_for(server), base, target, args.limit))
                card = got["card"] if got["card"] is not None else float("nan")
                results.setdefault(name, []).append(card)
                mine = got["first_mine"]
                print(f"round {n + 1} {name}: first card {card:.2f} s after initialize "
                      f"(first 'mine' status {mine if mine is not None else float('nan'):.2f} s), "
                      f"server tree CPU {got['cpu']:.1f} s; progress then {got['progress']!r}; "
                      f"load {got['load']}", flush=True)
                if args.timeline:
                    print(f"  statuses: {got['timeline']}", flush=True)
                shutil.rmtree(base, ignore_errors=True)
        for name, cards in results.items():
            print(f"{name}: " + " / ".join(f"{c:.2f}" for c in cards) + " s")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
        subprocess.run(["sync"], check=False)


if __name__ == "__main__":
    main()
