"""Big histories: full and incremental index, memory, size, first hovers, a killed backfill.

    python bench/bench_scale.py REPO [REPO ...] [--big BIG_REPO] [--server DIR] [--skip-full]

For each REPO (e.g. /work/.mirror/psf+requests/repo, /work/.mirror/redis+redis/repo), from the
same run: the floor ``git log -p -U0 -M`` (wall and CPU), then a full ``whylens index``: wall
time and ratio to the floor, CPU time (the indexer and every process it waited for), peak RSS of
the indexer's process tree (summed over the processes alive at once, git included), index size
and size per 1,000 commits; then incremental runs after 1, 10 and 100 new commits (made in a
scratch clone, edits of real functions with reasons in their messages).

``--big BIG_REPO`` (a >= 100k-commit repository, see ``make_big_history.py``; it must be a
scratch clone: commits are added to it) also measures, with the real language server (``python
-m whylens serve`` driven over stdio by a pygls client): the time from the server's
``initialized`` to the first hover card with history for a function the newest commit changed,
while the backfill runs (with the progress and time left it reports); then the server (and its
indexer child) is killed mid-backfill, ``whylens index`` resumes the backfill to the end (wall,
CPU, peak RSS), and, on the complete index, one new commit → the hover shows it.

``--server DIR`` runs another checkout's ``server/`` folder (a baseline from the same run).
The machine may be shared: load averages are printed, compare CPU times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_index import Run, folder_size, git_floor, loadavg  # noqa: E402


def env_for(server: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if server:
        env["PYTHONPATH"] = server
    return env


def index(repo: str, target: Path, env: dict[str, str]) -> tuple[Run, dict]:
    run = Run([sys.executable, "-m", "whylens", "index", "--repo", repo, "--index-dir",
               str(target), "--json", "--progress", "none"], env=env)
    return run, json.loads(run.stdout)


def stats(repo: str, target: Path, env: dict[str, str]) -> dict:
    out = subprocess.run([sys.executable, "-m", "whylens", "stats", "--repo", repo,
                          "--index-dir", str(target), "--json"], capture_output=True,
                         text=True, check=True, env=env).stdout
    return json.loads(out)


def add_commits(clone: Path, count: int, rng: random.Random, tag: str = "") -> None:
    """``count`` commits, each an edit inside a function of a tracked source file (``tag``:
    a word their subjects start with, so a card can be told from an earlier run's)."""
    files = [f for f in subprocess.run(["git", "-C", str(clone), "ls-files"],
                                       capture_output=True, text=True, check=True
                                       ).stdout.split() if f.endswith((".py", ".c"))]
    who = {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    for n in range(count):
        path = clone / rng.choice(files)
        lines = path.read_bytes().splitlines(keepends=True)
        inside = [i for i, line in enumerate(lines)
                  if line.startswith((b"    ", b"\t")) and line.rstrip().endswith((b";", b")"))]
        i = rng.choice(inside) if inside else len(lines) - 1
        indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())] if lines else b""
        comment = b"#" if path.suffix == ".py" else b"//"
        lines.insert(i + 1, indent + comment + b" bench change %d\n" % n)
        lines.insert(i + 2, indent + (b"pass\n" if path.suffix == ".py" else b";\n"))
        path.write_bytes(b"".join(lines))
        subprocess.run(["git", "-C", str(clone), "commit", "-qam",
                        f"Guard {tag}the bench path {n}\n\nThe value can be empty here, because the "
                        "caller skips validation; check it first."],
                       check=True, env={**os.environ, **who})


def heading(repo: str) -> tuple[int, float, float]:
    """Print the repository's size, the load and the floor; returns (commits, wall, CPU)."""
    commits = int(subprocess.run(["git", "-C", repo, "rev-list", "--count", "HEAD"],
                                 capture_output=True, text=True, check=True).stdout)
    print(f"\n== {repo} ({commits} commits); load average {loadavg()}")
    floor_wall, floor_cpu = git_floor(repo, "-p", "-U0", "-M")
    print(f"floor  git log -p -U0 -M             {floor_wall:8.2f} s wall {floor_cpu:7.2f} s CPU")
    return commits, floor_wall, floor_cpu


def measure_repo(repo: str, env: dict[str, str], work: Path, skip_full: bool,
                 keep_full: bool = False) -> None:
    commits, floor_wall, floor_cpu = heading(repo)
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", "--no-local", repo, str(clone)], check=True)
    target = work / "index"
    if not skip_full:
        run, summary = index(str(clone), target, env)
        size = folder_size(target)
        if keep_full:  # for bench/index_digest.py (the incremental runs below change it)
            shutil.copytree(target, work / "index-full")
        per_commit = size / max(commits, 1)
        print(f"full index   {run.wall:8.2f} s wall = {run.wall / floor_wall:5.1f}x the floor; "
              f"{run.cpu:8.2f} s CPU = {run.cpu / floor_cpu:5.1f}x; peak RSS (tree) "
              f"{run.peak_kb / 1024:6.0f} MB; CPU by process "
              + ", ".join(f"{k} {v:.1f} s" for k, v in sorted(run.cpu_by_kind.items())))
        facts = stats(str(clone), target, env)
        print(f"index size {size / 1e6:7.1f} MB = {per_commit / 1e3:.1f} KB per commit "
              f"({per_commit / 1e3:.2f} MB per 1,000 commits); events {summary.get('events')}, "
              f"formatting events {facts.get('formatting_events')}, blame runs "
              f"{facts.get('blame_runs')}, file-level commits "
              f"{summary.get('commits_file_level')}; load average {loadavg()}")
    rng = random.Random(14)
    for count in (1, 10, 100):
        add_commits(clone, count, rng)
        run, summary = index(str(clone), target, env)
        print(f"incremental after {count:3} new commit(s): {run.wall:6.2f} s wall, "
              f"{run.cpu:6.2f} s CPU, peak RSS {run.peak_kb / 1024:5.0f} MB "
              f"(mode {summary.get('mode')})")


# ---- the >= 100k-commit repository with the real server ------------------------------------

def newest_function(repo: Path) -> tuple[str, int, int, str]:
    """(path, 0-based line, column) of the name of a function the newest commit that changed
    one substantively changed (a comment-only edit has no history), and that commit's subject."""
    sys.path.insert(0, str(HERE.parent / "server"))
    from whylens.symbols.formatting import tokens
    from whylens.symbols.languages import language_for_path
    from whylens.symbols.outline import outline

    shas = subprocess.run(["git", "-C", str(repo), "log", "-n", "200", "--no-merges",
                           "--format=%H"], capture_output=True, text=True, check=True).stdout.split()
    for sha in shas:
        diff = subprocess.run(["git", "-C", str(repo), "show", "-U0", "--format=", sha],
                              capture_output=True, text=True, check=True).stdout
        paths = [line[6:] for line in diff.splitlines() if line.startswith("+++ b/")]
        if len(paths) != 1 or not language_for_path(paths[0]):
            continue
        path, language = paths[0], language_for_path(paths[0])
        lines = diff.splitlines()
        removed = "".join(x[1:] + "\n" for x in lines if x[:1] == "-" and x[:3] != "---")
        added = "".join(x[1:] + "\n" for x in lines if x[:1] == "+" and x[:3] != "+++")
        if tokens(language, removed.encode()) == tokens(language, added.encode()):
            continue  # a comment or layout only
        changed = int(next(line.split("+")[1].split(",")[0].split()[0]
                           for line in diff.splitlines() if line.startswith("@@")))
        source = subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"],
                                capture_output=True, check=True).stdout
        around = [s for s in outline(source, language) if s.start_line <= changed <= s.end_line]
        if not around:
            continue
        symbol = min(around, key=lambda s: s.end_line - s.start_line)
        subject = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%s", sha],
                                 capture_output=True, text=True, check=True).stdout.strip()
        return path, symbol.name_line - 1, symbol.name_col, subject
    raise SystemExit("no recent commit changed a function substantively")


async def card_after(client, uri: str, line: int, col: int, subject: str, t0: float,
                     limit: float, pause: float) -> float | None:
    """Seconds from ``t0`` until a hover on the name shows a card citing ``subject``."""
    from lsprotocol import types

    while time.perf_counter() - t0 < limit:
        result = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=col + 1)))
        if result is not None and subject[:30] in result.contents.value:
            return time.perf_counter() - t0
        await asyncio.sleep(pause)
    return None


async def start_lsp_client(env: dict[str, str], on_status=None):
    """A pytest-lsp client on a real ``whylens serve`` (``env``: its environment), answering the
    server's registrations and lens refreshes as VS Code would; ``on_status(params)`` gets the
    ``whylens/indexStatus`` notifications."""
    from lsprotocol import types
    from pytest_lsp import ClientServerConfig

    client = await ClientServerConfig(
        server_command=[sys.executable, "-m", "whylens", "serve"], server_env=env).start()

    @client.feature("whylens/indexStatus")
    def status(params):
        if on_status is not None:
            on_status(params)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def on_register(params):
        return None

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def on_lens_refresh(params):
        return None  # VS Code would ask for lenses again

    return client


async def first_hover(repo: Path, index_dir: Path, env: dict[str, str]) -> None:
    from lsprotocol import types
    from pytest_lsp import client_capabilities

    path, line, col, subject = newest_function(repo)
    statuses: list[tuple[float, str]] = []

    def on_status(params):
        data = params._asdict() if hasattr(params, "_asdict") else dict(params)
        statuses.append((time.perf_counter(), str(data.get("message", ""))))

    client = await start_lsp_client(env, on_status)
    t0 = time.perf_counter()
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=repo.as_uri(),
        initialization_options={"indexDirectory": str(index_dir)}))
    uri = (repo / path).as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="c", version=1,
                                             text=(repo / path).read_text(errors="replace"))))
    card = await card_after(client, uri, line, col, subject, t0, 300, 0.25)
    await asyncio.sleep(12)  # let the backfill report its pace
    shown = [m for _, m in statuses if "left" in m]
    print(f"first hover with history (function changed by the newest commit): "
          f"{card if card is not None else float('nan'):.2f} s after initialize (goal <= 10 s); "
          f"progress while the backfill runs: {shown[-1] if shown else statuses[-1:]}")
    server = client._server
    children = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True,
                              text=True).stdout.split()
    await kill_and_stop(client, [server.pid, *map(int, children)])  # child indexer too


async def kill_and_stop(client, pids) -> None:
    """SIGKILL ``pids`` (a server killed mid-backfill) and let the client go."""
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        await asyncio.wait_for(client.stop(), 5)
    except Exception:  # noqa: BLE001 - the server is gone on purpose
        pass


async def new_commit_hover(repo: Path, index_dir: Path, env: dict[str, str]) -> None:
    from lsprotocol import types
    from pytest_lsp import client_capabilities

    client = await start_lsp_client(env)
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=repo.as_uri(),
        initialization_options={"indexDirectory": str(index_dir)}))
    await asyncio.sleep(3)
    # the same seed edits the same function each run: the subject says which run made it
    add_commits(repo, 1, random.Random(99), tag=f"{os.urandom(4).hex()} ")
    t0 = ref_written(repo)  # the clock starts when the commit lands, not when `git commit` returns
    path, line, col, subject = newest_function(repo)
    uri = (repo / path).as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="c", version=1,
                                             text=(repo / path).read_text(errors="replace"))))
    took = await card_after(client, uri, line, col, subject, t0, 60, 0.05)
    print(f"one new commit → updated hover: {took if took is not None else float('nan'):.2f} s "
          "from the commit landing (HEAD polled every 0.1 s, warm indexer child, reader reopened; goal <= 0.5 s)")
    await client.shutdown_session()
    await client.stop()


def branch_ref(clone: Path) -> Path:
    """The file of the branch a work tree's HEAD names."""
    head = (clone / ".git" / "HEAD").read_text().strip()
    return clone / ".git" / head.removeprefix("ref: ")


def ref_written(repo: Path) -> float:
    """The ``perf_counter`` time at which HEAD's branch ref was last rewritten (its mtime)."""
    return time.perf_counter() - (time.time() - branch_ref(repo).stat().st_mtime_ns / 1e9)


def hashed_folder_name(repo: Path, env: dict[str, str]) -> str:
    """The subfolder the server gives a repository in the editor's index folder (its name,
    <name>-<sha1(real path)[:12]>, asked of the checkout under test: this script may run
    without WhyLens on its own path)."""
    script = "import sys; from whylens.locate import default_index_dir; " \
             "print(default_index_dir(sys.argv[1]).name)"
    return subprocess.run([sys.executable, "-c", script, str(repo)], env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def measure_big(repo: str, env: dict[str, str], work: Path) -> None:
    big = Path(repo)
    commits, floor_wall, floor_cpu = heading(repo)
    base = work / "big-index"  # the editor's indexDirectory: a base folder, one subfolder each
    target = base / hashed_folder_name(big, env)
    asyncio.run(first_hover(big, base, env))
    run, summary = index(repo, target, env)  # the folder the killed server was writing
    size = folder_size(target)
    print(f"killed backfill resumed by `whylens index` (mode {summary.get('mode')}): "
          f"{run.wall:.1f} s wall, {run.cpu:.1f} s CPU, peak RSS (tree) "
          f"{run.peak_kb / 1024:.0f} MB; CPU by process "
          + ", ".join(f"{k} {v:.1f} s" for k, v in sorted(run.cpu_by_kind.items())))
    print(f"index size {size / 1e6:.1f} MB = {size / max(commits, 1) / 1e3:.1f} KB per commit; "
          f"load average {loadavg()}")
    rng = random.Random(15)
    for count in (1, 10, 100):
        add_commits(big, count, rng)
        run, summary = index(repo, target, env)
        print(f"incremental after {count:3} new commit(s): {run.wall:6.2f} s wall, "
              f"{run.cpu:6.2f} s CPU, peak RSS {run.peak_kb / 1024:5.0f} MB "
              f"(mode {summary.get('mode')})")
    asyncio.run(new_commit_hover(big, base, env))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="*")
    parser.add_argument("--big", help="a >= 100k-commit scratch clone (commits are added)")
    parser.add_argument("--server", help="another checkout's server/ folder (baseline)")
    parser.add_argument("--skip-full", action="store_true", help="only incremental runs")
    parser.add_argument("--work", help="keep clones and indexes here (and a copy of each full "
                        "index, before the incremental runs: index-full)")
    args = parser.parse_args()
    env = env_for(args.server)
    work = Path(args.work or tempfile.mkdtemp(prefix="whylens-scale-"))
    try:
        print(f"server: {args.server or HERE.parent / 'server'}; {os.cpu_count()} CPUs")
        for n, repo in enumerate(args.repos):
            folder = work / f"repo{n}"
            folder.mkdir(parents=True, exist_ok=True)
            measure_repo(repo, env, folder, args.skip_full, bool(args.work))
        if args.big:
            measure_big(args.big, env, work)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
