"""Hardening drills (issue 11), rerunnable: `python bench/drills.py [--kills 20] [--fuzz 1000]`.

1. kill/resume: SIGKILL a real `whylens index` at N points (after its first flush, plus a
   random delay), resume, compare `export` and the commit count with a clean index byte for byte;
   plus killed first indexes followed by a history rewrite.
2. bad-input repositories: each runs index, why, search, explain-error, pr-comments; every
   command ends with 0, or 1/2 and a one-line message, never a traceback or a hang.
3. language-server fuzz: N random requests (valid, out-of-spec, garbage) to the real server;
   0 crashes, every request answered within 1 s, no pop-up for malformed ones.
4. hover latency: p50/p95 of hovers alone (the baseline, same run) and during a burst of
   `whylens/errorsChanged` (20 reports of 500 errors).
5. hostile history: every markdown surface rendered with markdown-it-py: no image, no raw HTML,
   no link but the pages WhyLens builds.

Prints one line per figure. Guarded by `if __name__ == "__main__"` (the indexer may spawn).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for extra in (ROOT, ROOT / "tests" / "unit", ROOT / "tests" / "e2e"):
    sys.path.insert(0, str(extra))

from tests.conftest import init_repo  # noqa: E402

FAST = ("import sys, whylens.pipeline as p; p.FIRST_FLUSH_SECONDS = 0.005; "
        "p.MAX_FLUSH_SECONDS = 0.02; from whylens.cli import main; sys.exit(main(sys.argv[1:]))")
WHYLENS = [sys.executable, "-m", "whylens"]
AUTHOR = {"GIT_AUTHOR_NAME": "Drill", "GIT_AUTHOR_EMAIL": "drill@example.com",
          "GIT_COMMITTER_NAME": "Drill", "GIT_COMMITTER_EMAIL": "drill@example.com"}


def run(args, cwd=None, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, input=stdin if stdin is not None else "",
                          capture_output=True, text=True, timeout=timeout)


# ---- 1. kill / resume -------------------------------------------------------------------------

def kill_drills(work: Path, points: int, seed: int = 7) -> None:
    from cli.test_kill_resume import build_twin_history, index, snapshot

    repo = init_repo(work / "twins")
    build_twin_history(repo, commits=120)
    index(repo, work / "clean")
    expected = snapshot(repo, work / "clean")
    rng = random.Random(seed)
    same = resumed = 0
    for point in range(points):
        target = work / f"killed{point}"
        index(repo, target, kill_at_random=rng)
        mode = index(repo, target).split(":")[0]
        resumed += mode == "resumed"
        same += snapshot(repo, target) == expected
        shutil.rmtree(target)
    print(f"kill/resume: {same}/{points} exports identical to the clean index "
          f"({resumed} kills landed mid-run; the others before the first flush or after the end)")
    rewrites = 0
    for point in range(3):
        repo = init_repo(work / f"rewrite{point}")
        build_twin_history(repo, commits=80)
        target = work / f"rw{point}"
        index(repo, target, kill_at_random=rng)
        repo.git("reset", "-q", "--hard", f"HEAD~{5 + 5 * point}")
        repo.commit("A new tip", {"src/new.py": f"def fresh():\n    return {point}\n"})
        index(repo, target)
        index(repo, work / f"rwclean{point}")
        rewrites += snapshot(repo, target) == snapshot(repo, work / f"rwclean{point}")
    print(f"killed first index + history rewrite: {rewrites}/3 identical to a clean index")


# ---- 2. bad-input repositories ----------------------------------------------------------------

def _bad_repositories(work: Path) -> dict[str, Path]:
    from hostile import arm_repository_programs, build_hostile_history, write_attributes
    from histories import build_missing_blob_history, build_session_history, promisor_clone

    made: dict[str, Path] = {}

    def fresh(name: str):
        repo = init_repo(work / name)
        made[name] = repo.root
        return repo

    fresh("empty")
    repo = fresh("orphan-branch")
    repo.commit("first", {"a.py": "x = 1\n"})
    repo.git("checkout", "-q", "--orphan", "lonely")
    repo = fresh("one-commit")
    repo.commit("init", {"README.md": "hi\n"})
    repo = fresh("binary-and-huge")
    repo.commit("blobs", {"blob.bin": bytes(range(256)) * 400, "big.py": "x = 1\n" * 400_000})
    repo = fresh("non-utf8-message")
    repo.commit(b"Fix caf\xe9 parser\n\n\xff\xfe broken bytes", {"a.py": "def f():\n    pass\n"})
    repo = fresh("latin1-and-newline-names")
    repo.commit("odd names", {"a\nb.py": "def g():\n    return 1\n"})
    with open(os.path.join(os.fsencode(repo.root), b"caf\xe9.py"), "w") as handle:
        handle.write("def h():\n    return 2\n")
    repo.commit("latin-1 name")
    repo = fresh("symlink-loop")
    os.symlink("loop", repo.root / "loop")
    repo.commit("a symlink to itself", {"a.py": "x = 1\n"})
    repo = fresh("detached-head")
    build_session_history(repo)
    repo.git("checkout", "-q", "--detach", "HEAD~1")
    repo = fresh("programs-in-config")
    write_attributes(repo)
    build_session_history(repo)
    arm_repository_programs(repo, work / "marker")
    repo.write("src/session.py", "def changed():\n    pass\n")
    repo = fresh("hostile-history")
    build_hostile_history(repo)
    repo = fresh("submodule-gitlink")
    repo.commit("base", {"a.py": "x = 1\n"})
    repo.git("update-index", "--add", "--cacheinfo", "160000",
             "1111111111111111111111111111111111111111", "vendor/lib")
    repo.git("commit", "-q", "--no-verify", "-m", "add a gitlink", env=AUTHOR)
    repo = fresh("merge-and-revert")
    build_session_history(repo)
    repo.git("checkout", "-q", "-b", "side", "HEAD~2")
    repo.commit("side work", {"side.py": "y = 2\n"})
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-edit", "side", env=AUTHOR)
    repo.git("revert", "--no-edit", "HEAD^2", env=AUTHOR)
    source = fresh("shallow-source")
    build_session_history(source)
    shallow = work / "shallow-clone"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{source.root}", str(shallow)],
                   check=True)
    made["shallow-clone"] = shallow
    bare = work / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(source.root), str(bare)], check=True)
    made["bare"] = bare
    plain = work / "not-a-repository"
    plain.mkdir()
    made["not-a-repository"] = plain
    corrupt = fresh("corrupt-index-pointer")
    build_session_history(corrupt)
    made["garbage-index-dir"] = corrupt.root
    build_missing_blob_history(fresh("missing-blob"))  # a blob deleted from the object store
    promisor = work / "partial"
    promisor.mkdir()
    made["partial-clone"], _ = promisor_clone(source.root, promisor)  # --filter=blob:none
    return made


def bad_input_drills(work: Path) -> None:
    repos = _bad_repositories(work)
    bad = []
    commands = 0
    for name, root in repos.items():
        index_dir = work / "ix" / name
        if name == "garbage-index-dir":
            index_dir.mkdir(parents=True)
            (index_dir / "CURRENT").write_text("../../etc\n")
        common = ["--repo", str(root), "--index-dir", str(index_dir)]
        steps = [(["index", *common], None), (["why", "src/session.py", *common], None),
                 (["search", "deadlock timeout", *common], None),
                 (["explain-error", *common], "TimeoutError: pool exhausted\n"),
                 (["pr-comments", *common, "--format", "json"], None)]
        for args, stdin in steps:
            commands += 1
            try:
                done = run([*WHYLENS, *args], stdin=stdin, timeout=120)
            except subprocess.TimeoutExpired:
                bad.append(f"{name}: {args[0]} hung")
                continue
            if "Traceback" in done.stderr or done.returncode not in (0, 1, 2):
                bad.append(f"{name}: {args[0]} exit {done.returncode}: {done.stderr[-300:]}")
    marker = work / "marker"
    if marker.exists():
        bad.append(f"a repository program ran: {marker.read_text()[:200]}")
    print(f"bad-input repositories: {len(repos)} repositories, {commands} commands, "
          f"{len(bad)} tracebacks/hangs/programs run")
    for line in bad:
        print("  ", line)


# ---- 3 + 4. language server: fuzz and hover latency -------------------------------------------

def _fuzz_case(rng: random.Random, uri: str, lines: list[str]) -> tuple[str, object]:
    def position():
        return rng.choice([
            {"line": rng.randrange(len(lines)), "character": rng.randrange(40)},
            {"line": rng.choice([-1, 2 ** 31, 2 ** 32, 10 ** 12]), "character": 0},
            {"line": None, "character": 0}, {"line": 1.5, "character": "x"}, {}, None, [],
        ])

    text_document = rng.choice([{"uri": uri}, {"uri": uri}, {"uri": 5}, {"uri": "file:///etc/passwd"},
                                {"uri": "untitled:x"}, None, {}])
    choices = [
        ("textDocument/hover", {"textDocument": text_document, "position": position()}),
        ("textDocument/hover", {"position": position()}),
        ("textDocument/codeLens", {"textDocument": text_document}),
        ("codeLens/resolve", rng.choice([{"range": {"start": {"line": 0, "character": 0},
                                                    "end": {"line": 0, "character": 1}},
                                          "data": {"uri": uri, "symbol": "Session.send"}},
                                         {"range": None}, {"data": [1, 2]}])),
        ("whylens/search", rng.choice([{"query": "deadlock pool"}, {"query": 42},
                                       {"query": "x" * 5000}, {"query": "timeout", "k": 0},
                                       {"query": "a", "types": ["nope"]}, None, "str"])),
        ("whylens/why", {"uri": rng.choice([uri, 3, None]), "position": position()}),
        ("whylens/explainError", rng.choice([{"text": "TimeoutError: pool"}, {"text": None},
                                             {"text": "y" * 300_000}, []])),
        ("workspace/executeCommand", {"command": "whylens.server.explainSymbol",
                                      "arguments": rng.choice([[uri, "Session.send"],
                                                               [{"nonsense": 1}], None, "x"])}),
        ("textDocument/completion", {"textDocument": text_document, "position": position()}),
        ("whylens/noSuchMethod", {}),
    ]
    return rng.choice(choices)


async def _server_drills(work: Path, requests: int, seed: int = 3) -> None:
    from e2e_history import V3, build
    from raw_client import RawClient

    repo = init_repo(work / "served")
    build(repo)
    client = await RawClient.start()
    await client.initialize(repo.root, work / "served-index")
    deadline = time.monotonic() + 120
    while not any(n.get("method") == "whylens/indexStatus" and n["params"]["state"] == "idle"
                  for n in client.notifications) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    uri = (repo.root / "src" / "session.py").as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                            "version": 1, "text": V3}})
    lines = V3.splitlines()
    rng = random.Random(seed)
    unanswered, slow, errors, latencies = 0, 0, 0, []
    for _ in range(requests):
        method, params = _fuzz_case(rng, uri, lines)
        answer = await client.request(method, params, timeout=1.0)
        if answer is None:
            unanswered += 1
            continue
        latencies.append(answer.seconds)
        errors += answer.error is not None
        slow += answer.seconds > 1.0
        if rng.random() < 0.05:  # notifications in between, malformed ones too
            client.notify("whylens/errorsChanged", rng.choice([
                {"uri": uri, "errors": "x"}, {"uri": uri, "errors": []}, None]))
    alive = client.proc.returncode is None
    print(f"fuzz: {requests} requests, {unanswered} unanswered within 1 s, {errors} error "
          f"answers (InvalidParams / MethodNotFound), max {max(latencies):.3f} s, server "
          f"{'alive' if alive else 'DEAD'}, pop-ups {len(client.shown())}")

    send = next(i for i, text in enumerate(lines) if "def send(" in text)
    hover = {"textDocument": {"uri": uri},
             "position": {"line": send, "character": lines[send].index("send") + 1}}
    error_line = next(i for i, text in enumerate(lines) if "except TimeoutError" in text)

    async def hovers(n: int) -> list[float]:
        out = []
        for _ in range(n):
            answer = await client.request("textDocument/hover", hover, timeout=60)
            out.append(answer.seconds if answer else 60.0)
            await asyncio.sleep(0.01)
        return out

    def pct(values: list[float], q: float) -> float:
        return sorted(values)[min(len(values) - 1, int(q * len(values)))] * 1000

    alone = await hovers(60)
    started = time.process_time()
    for n in range(20):
        client.notify("whylens/errorsChanged", {"uri": uri, "errors": [{
            "range": {"start": {"line": error_line, "character": 0},
                      "end": {"line": error_line, "character": 4}},
            "message": f"TimeoutError: the server did not answer in time ({n}.{i})",
            "source": "pytest"} for i in range(500)]})
    during = await hovers(60)
    print(f"hover latency: alone p50 {statistics.median(alone) * 1000:.1f} ms, p95 "
          f"{pct(alone, 0.95):.1f} ms; during a burst of 20 errorsChanged × 500 errors p50 "
          f"{statistics.median(during) * 1000:.1f} ms, p95 {pct(during, 0.95):.1f} ms, "
          f"max {max(during) * 1000:.0f} ms "
          f"(client CPU {time.process_time() - started:.2f} s)")
    await client.stop()


# ---- 5. hostile history -----------------------------------------------------------------------

def hostile_drill(work: Path) -> None:
    from hostile import POOL_V2, build_hostile_history, inert_problems

    repo = init_repo(work / "hostile")
    repo.git("remote", "add", "origin", "git@github.com:acme/shop.git")
    build_hostile_history(repo)
    common = ["--repo", str(repo.root), "--index-dir", str(work / "hostile-index")]
    run([*WHYLENS, "index", *common])
    surfaces = {
        "why (rationale)": run([*WHYLENS, "why", "src/pool.py", "--symbol", "pool_timeout",
                                *common]).stdout,
    }
    repo.write("src/pool.py", POOL_V2)
    surfaces["pr-comments markdown"] = run([*WHYLENS, "pr-comments", *common, "--base",
                                            "HEAD"]).stdout
    github = json.loads(run([*WHYLENS, "pr-comments", *common, "--base", "HEAD", "--format",
                             "github"]).stdout)
    surfaces["pr-comments github"] = "\n\n".join(c["body"] for c in github["comments"])
    sarif = json.loads(run([*WHYLENS, "pr-comments", *common, "--base", "HEAD", "--format",
                            "sarif"]).stdout)
    surfaces["pr-comments sarif"] = "\n\n".join(r["message"]["markdown"]
                                                for r in sarif["runs"][0]["results"])
    allowed = ("https://github.com/acme/shop/",)
    problems = {name: inert_problems(text, allowed) for name, text in surfaces.items()}
    print("hostile history: " + ", ".join(
        f"{name} {'inert' if not found else f'{len(found)} problems'} ({len(text)} chars)"
        for (name, found), text in zip(problems.items(), surfaces.values())))
    print("  (hover, MCP and explain-error surfaces: tests/unit/render/test_hostile_history.py)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--fuzz", type=int, default=1000)
    parser.add_argument("--only", choices=("kills", "bad", "lsp", "hostile"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="whylens-drills-"))
    os.environ.setdefault("XDG_CACHE_HOME", str(work / "cache"))
    try:
        started = time.monotonic()
        if args.only in (None, "hostile"):
            hostile_drill(work)
        if args.only in (None, "bad"):
            bad_input_drills(work)
        if args.only in (None, "lsp"):
            asyncio.run(_server_drills(work, args.fuzz))
        if args.only in (None, "kills"):
            kill_drills(work, args.kills)
        print(f"drills took {time.monotonic() - started:.0f} s (wall) on "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
