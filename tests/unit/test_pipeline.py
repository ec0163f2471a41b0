"""The pipeline end to end on real repositories: modes, counters, rebuilds, what gets indexed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from whylens.history.repo import open_repository
from whylens.history.walk import walk
from whylens.index.store import IndexStore
from whylens.pipeline import anchoring, run_index
from whylens.retrieval.search import search

from histories import SESSION_V1, build_session_history


def _reader(index_dir):
    return IndexStore(index_dir).reader()


def test_full_then_up_to_date_then_incremental(make_repo, index_dir):
    repo = make_repo()
    shas = build_session_history(repo)

    first = run_index(repo.root, index_dir)
    assert first.mode == "full"
    assert first.commits_indexed == 4
    assert first.filtered["trivial"] == 1  # "formatting" yields no knowledge
    assert first.units > 0

    again = run_index(repo.root, index_dir)
    assert again.mode == "up-to-date" and again.commits_indexed == 0

    repo.commit("Document why close must be idempotent\n\nclose() must be safe to call twice, "
                "because the pool calls it again on shutdown.", {"NOTES.md": "close twice\n"})
    repo.commit("wip", {"NOTES.md": "close twice!\n"})
    third = run_index(repo.root, index_dir)
    assert third.mode == "incremental"
    assert third.commits_total == 2 and third.commits_indexed == 2  # cost ∝ new commits

    reader = _reader(index_dir)
    try:
        assert reader.meta["last_sha"] == repo.shas[-1]
        assert reader.has_commit(shas["add"]) and reader.has_commit(repo.shas[-1])
        history = reader.symbol_history("Session.send", "src/session.py")
        commits = [entry.commit for entry in history]
        assert shas["deadlock"] in commits and shas["timeout"] in commits
        assert shas["format"] not in commits  # whitespace-only: not an event
    finally:
        reader.close()


def test_search_finds_the_unit_with_full_provenance(make_repo, index_dir):
    repo = make_repo()
    shas = build_session_history(repo)
    run_index(repo.root, index_dir)
    reader = _reader(index_dir)
    try:
        result = search(reader, "deadlock connection pool exhausted", k=5)
        assert not result.abstained
        top = result.hits[0]
        assert top.commit == shas["deadlock"] and len(top.commit) == 40
        assert top.author == "Grace Hopper"
        assert "src/session.py" in top.files
        assert "Session.send" in top.symbols
        nonsense = search(reader, "kubernetes helm chart ingress annotations", k=5)
        assert nonsense.abstained and nonsense.hits == []
    finally:
        reader.close()


def test_force_push_rebuilds_and_drops_vanished_commits(make_repo, index_dir):
    repo = make_repo()
    shas = build_session_history(repo)
    run_index(repo.root, index_dir)

    repo.git("reset", "-q", "--hard", shas["add"])  # the deadlock fix leaves the history
    repo.commit("Retry sends on connection reset\n\nA reset connection fails with "
                "ConnectionResetError when the server restarts; retry once instead of failing.",
                {"src/session.py": SESSION_V1.replace("request)", "request, retries=1)", 1)})
    summary = run_index(repo.root, index_dir)
    assert summary.mode == "full"
    reader = _reader(index_dir)
    try:
        assert not reader.has_commit(shas["deadlock"])
        units = list(reader.iter_units())
        assert all(unit.commit != shas["deadlock"] for unit in units)
        assert any("ConnectionResetError" in unit.content for unit in units)
    finally:
        reader.close()


def test_index_lives_outside_the_repository_and_changes_nothing(make_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo = make_repo()
    build_session_history(repo)
    before = repo.git("status", "--porcelain", "--ignored")
    config_before = (repo.root / ".git" / "config").read_bytes()
    summary = run_index(repo.root)
    assert str(tmp_path / "cache") in summary.index_dir
    assert not summary.index_dir.startswith(str(repo.root))
    assert repo.git("status", "--porcelain", "--ignored") == before
    assert (repo.root / ".git" / "config").read_bytes() == config_before


# -- the anchor worker process ----------------------------------------------------------------

WORKER = 1  # anchor_worker_min_commits that forces the worker for any run
IN_PROCESS = 10**9  # ... and one that keeps anchoring in this process


def _varied_history(repo) -> None:
    """Edits, renames, moves across files, deletions, a binary file and a merge."""
    build_session_history(repo)
    repo.commit("Add a binary logo", {"assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\xff" * 50})
    for i in range(12):
        body = "".join(f"def helper_{j}(raw):\n    return raw[:{j + i}]\n\n\n" for j in range(4))
        repo.commit(f"Tune helpers round {i}\n\nHelpers must cut headers at {i} bytes, because "
                    f"the proxy rejects longer ones with HTTP 431.", {f"src/util{i % 3}.py": body})
    repo.git("mv", "src/util0.py", "src/text.py")
    repo.commit("Rename util0 to text\n\nThe name said nothing about what it holds.")
    moved = (repo.root / "src/util1.py").read_text()
    repo.commit("Move the helpers of util1 into session\n\nOne module is easier to patch.",
                {"src/util1.py": None, "src/session.py":
                 (repo.root / "src/session.py").read_text() + "\n\n" + moved})
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("Fix the timeout default\n\nThe default must be finite, otherwise a dead "
                "server hangs the client forever.",
                {"src/text.py": "def helper_0(raw):\n    return raw[:1]\n"})
    repo.git("checkout", "-q", "-")
    repo.commit("Document the pool", {"README.md": "# demo\n\nThe pool is bounded.\n"})
    repo.git("merge", "-q", "--no-ff", "-m", "Merge branch side", "side",
             env={"GIT_AUTHOR_DATE": "1800000000 +0000", "GIT_COMMITTER_DATE": "1800000000 +0000",
                  "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com",
                  "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.com"})


def _contents(index_dir) -> dict:
    """Everything a reader returns about an index, in a comparable form."""
    reader = _reader(index_dir)
    try:
        paths = sorted({path for record in reader.iter_records() for path in record.files}
                       | {"src/session.py", "src/text.py", "src/util1.py", "src/util2.py"})
        return {
            "units": sorted(repr(unit) for unit in reader.iter_units()),
            "records": sorted(repr(record) for record in reader.iter_records()),
            "history": {path: [repr(entry) for entry in reader.file_history(path)]
                        for path in paths},
            "anchor_stats": reader.meta.get("anchor_stats"),
            "stats": {key: value for key, value in reader.stats().items()
                      if key not in ("index_bytes", "index_bytes_per_1k_commits", "updated")},
        }
    finally:
        reader.close()


def _comparable(summary) -> dict:
    data = summary.as_dict()
    del data["seconds"], data["index_dir"]
    return data


def test_worker_and_in_process_anchoring_index_the_same(make_repo, tmp_path, monkeypatch):
    monkeypatch.setattr(anchoring, "LOOKAHEAD_COMMITS", 3)  # many round trips on a small history
    monkeypatch.setattr(anchoring, "CHUNK_COMMITS", 2)
    repo = make_repo()
    _varied_history(repo)
    alone = run_index(repo.root, tmp_path / "alone", anchor_worker_min_commits=IN_PROCESS)
    helped = run_index(repo.root, tmp_path / "helped", anchor_worker_min_commits=WORKER)
    assert _comparable(helped) == _comparable(alone)
    assert alone.events > 5 and alone.commits_indexed == len(repo.shas) + 1  # + the merge
    assert alone.files_skipped["unsupported"] >= 2  # the worker's stats reach the summary
    assert _contents(tmp_path / "helped") == _contents(tmp_path / "alone")

    # an incremental run through the worker appends the same as one in this process
    repo.commit("Retry once on reset\n\nA reset connection must be retried once, because the "
                "server closes idle keep-alive sockets.",
                {"src/text.py": "def helper_0(raw, retries=1):\n    return raw[:1]\n"})
    more_alone = run_index(repo.root, tmp_path / "alone", anchor_worker_min_commits=IN_PROCESS)
    more_helped = run_index(repo.root, tmp_path / "helped", anchor_worker_min_commits=WORKER)
    assert more_helped.mode == more_alone.mode == "incremental"
    assert _comparable(more_helped) == _comparable(more_alone)
    assert _contents(tmp_path / "helped") == _contents(tmp_path / "alone")


def test_worker_threshold(monkeypatch):
    monkeypatch.delenv(anchoring.WORKER_MIN_COMMITS_ENV, raising=False)
    assert anchoring.wants_worker(5, min_commits=5) and not anchoring.wants_worker(4, 5)
    assert not anchoring.wants_worker(0, min_commits=0)  # nothing to anchor
    monkeypatch.setenv(anchoring.WORKER_MIN_COMMITS_ENV, "10")
    assert anchoring.wants_worker(10) and not anchoring.wants_worker(9)
    assert not anchoring.wants_worker(10, min_commits=11)  # the parameter wins
    monkeypatch.setenv(anchoring.WORKER_MIN_COMMITS_ENV, "many")  # ignored: the default
    if len(os.sched_getaffinity(0)) > 1:
        assert anchoring.wants_worker(anchoring.DEFAULT_WORKER_MIN_COMMITS)
    assert not anchoring.wants_worker(anchoring.DEFAULT_WORKER_MIN_COMMITS - 1)


def _commits(repo):
    with open_repository(repo.root) as opened:
        return list(walk(opened, "HEAD"))


def test_a_failing_worker_raises_a_clear_error(make_repo, tmp_path):
    repo = make_repo()
    build_session_history(repo)
    commits = _commits(repo)
    with anchoring.WorkerAnchoring(tmp_path / "not-a-repository", ()) as worker:
        with pytest.raises(anchoring.AnchorWorkerError, match="not inside a git repository"):
            list(worker.anchored(commits))
    assert not psutil_alive(worker.pid)


def test_a_dead_worker_raises_instead_of_hanging(make_repo):
    repo = make_repo()
    build_session_history(repo)
    commits = _commits(repo)
    with anchoring.WorkerAnchoring(repo.root, ()) as worker:
        os.kill(worker.pid, signal.SIGKILL)
        with pytest.raises(anchoring.AnchorWorkerError, match="died"):
            list(worker.anchored(commits))


def test_the_worker_answers_before_its_look_ahead_fills(make_repo):
    """The first commits' events come back while the walk is still going (a 100k-commit
    history's first hovers wait for them), not once LOOKAHEAD_COMMITS commits are shipped."""
    repo = make_repo()
    build_session_history(repo)
    commits = _commits(repo) * 4  # the same commits again are fine: only the order is checked
    assert len(commits) < anchoring.LOOKAHEAD_COMMITS
    walked = 0
    walked_at_first_answer = None

    def slow_walk():  # git produces commits at its own pace on a big history
        nonlocal walked
        for commit in commits:
            time.sleep(0.2)
            walked += 1
            yield commit

    answered = []
    with anchoring.WorkerAnchoring(repo.root, ()) as worker:
        for commit, _events, _runs in worker.anchored(slow_walk()):
            if walked_at_first_answer is None:
                walked_at_first_answer = walked
            answered.append(commit.sha)
    assert answered == [c.sha for c in commits]
    assert walked_at_first_answer is not None and walked_at_first_answer < len(commits) - 5, (
        walked_at_first_answer, len(commits))



def test_a_first_backfill_flushes_early_and_often_until_it_passes_its_newest_commits(
        make_repo, tmp_path, monkeypatch):
    """Flushes stay FIRST_FLUSH_SECONDS apart until EARLY_FLUSH_COMMITS commits are walked,
    then wait MAX_FLUSH_SECONDS: the first flush often holds one commit (the anchor worker is
    still starting), and with the next one a minute later the commits just below the newest
    were unreadable that long (a 100k-commit history: first hover 45 s after opening)."""
    import whylens.pipeline as pipeline

    repo = make_repo()
    for n in range(30):
        repo.commit(f"Step {n}: keep the value\n\nBecause step {n} needs it.",
                    {f"m{n % 3}.py": f"def f{n % 3}():\n    return {n}\n"})
    monkeypatch.setattr(pipeline, "FIRST_FLUSH_SECONDS", 0.05)
    monkeypatch.setattr(pipeline, "MAX_FLUSH_SECONDS", 3_600.0)
    monkeypatch.setattr(pipeline, "EARLY_FLUSH_COMMITS", 12, raising=False)
    monkeypatch.setattr(pipeline, "BATCH_COMMITS", 1)
    index_dir = tmp_path / "index"
    readable: list[tuple[int, int]] = []  # (commits walked, commits a reader sees) while mining

    def progress(phase, done, total):
        if phase != "mine" or done == 0:
            return
        time.sleep(0.03)  # a big history's commits take time
        if IndexStore(index_dir).current_generation() is None:
            readable.append((done, 0))
            return
        with IndexStore(index_dir).reader() as reader:
            readable.append((done, reader.stats()["commits"]))

    run_index(repo.root, index_dir, progress=progress)
    seen = sorted({n for _, n in readable if n})
    assert len(seen) >= 3, readable  # more than the first flush became readable while mining
    assert max(seen) >= 12, readable  # up to the early commits' end...
    assert max(seen) <= 16, readable  # ...and no timed flush after them (the cap is an hour)


def test_an_update_flushes_early_once_as_before(make_repo, tmp_path, monkeypatch):
    """An update has a readable index: it flushes once after FIRST_FLUSH_SECONDS, then at the
    cap, as before the early flushes of a first index (each flush is a segment to merge)."""
    import whylens.pipeline as pipeline
    from whylens.index.writer import IndexWriter

    repo = make_repo()
    for n in range(30):
        repo.commit(f"Step {n}: keep the value", {f"m{n % 3}.py": f"def f():\n    return {n}\n"})
    index_dir = tmp_path / "index"
    run_index(repo.root, index_dir, rev="HEAD~25")
    monkeypatch.setattr(pipeline, "FIRST_FLUSH_SECONDS", 0.05)
    monkeypatch.setattr(pipeline, "MAX_FLUSH_SECONDS", 3_600.0)
    monkeypatch.setattr(pipeline, "BATCH_COMMITS", 1)
    flushes = []
    stock = IndexWriter.flush
    monkeypatch.setattr(IndexWriter, "flush", lambda self: flushes.append(1) or stock(self))
    summary = run_index(repo.root, index_dir, progress=lambda p, d, t: time.sleep(0.03))
    assert summary.mode == "incremental" and summary.commits_indexed == 25
    assert len(flushes) <= 1, len(flushes)


def test_the_anchor_worker_process_imports_neither_the_pipeline_nor_whoosh_nor_numpy():
    """The worker is spawned from ``whylens.anchor_worker``: its child imports history and
    symbols only (importing the whole pipeline cost 0.41 s of CPU before a 100k-commit
    history's first commit could be anchored; now 0.14-0.17 s)."""
    assert anchoring.WorkerAnchoring(".", ())._process._target.__module__ == "whylens.anchor_worker"
    script = ("import sys, whylens.anchor_worker; print(' '.join(sorted(m for m in sys.modules "
              "if m.split('.')[0] in ('whoosh', 'numpy') or m.startswith('whylens.pipeline'))))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.stdout.split() == [], out.stdout

ORPHAN_SCRIPT = """
import sys, time
from whylens.pipeline.anchoring import WorkerAnchoring
if __name__ == "__main__":
    with WorkerAnchoring(sys.argv[1], ()) as worker:
        print(worker.pid, flush=True)
        time.sleep(60)
"""


def test_the_worker_dies_with_its_parent(make_repo, tmp_path):
    repo = make_repo()
    build_session_history(repo)
    script = tmp_path / "parent.py"
    script.write_text(ORPHAN_SCRIPT)
    parent = subprocess.Popen([sys.executable, str(script), str(repo.root)],
                              stdout=subprocess.PIPE, text=True)
    worker_pid = int(parent.stdout.readline())
    assert psutil_alive(worker_pid)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while psutil_alive(worker_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not psutil_alive(worker_pid)


def psutil_alive(pid: int | None) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, TypeError):
        return False


def test_a_run_interrupted_after_flushing_resumes_with_identical_records(make_repo, tmp_path,
                                                                           monkeypatch):
    """Records and reverts are built at the end of a run: a resumed run must still build them
    for the commits the interrupted run already wrote (with their stored events)."""
    import json

    import whylens.pipeline as pipeline
    from whylens.cli import main

    repo = make_repo()
    build_session_history(repo)
    for i in range(6):
        repo.commit(f"Merge pull request #{40 + i} from dev/fix-{i}\n\nFix header parsing {i}",
                    allow_empty=True)
        repo.commit(f"Reject headers over {i} KB (#{50 + i})\n\nA header longer than {i} KB "
                    f"must be rejected, because the parser fails with OverflowError otherwise.",
                    {f"src/h{i}.py": f"def parse_{i}(raw):\n    return raw[:{i}]\n"})
    clean, resumed = tmp_path / "clean", tmp_path / "resumed"
    run_index(repo.root, clean)

    class Interrupted(Exception):
        pass

    monkeypatch.setattr(pipeline, "FIRST_FLUSH_SECONDS", 0.0)  # flush after every commit
    monkeypatch.setattr(pipeline, "MAX_FLUSH_SECONDS", 0.0)
    monkeypatch.setattr(pipeline, "BATCH_COMMITS", 1)
    calls = []

    def interrupt(phase, done, total):
        calls.append(phase)
        if phase == "mine" and len(calls) > 6:
            raise Interrupted  # like a kill: what was flushed stays, the records phase never runs

    with pytest.raises(Interrupted):
        run_index(repo.root, resumed, progress=interrupt)
    monkeypatch.undo()
    reader = IndexStore(resumed).reader()
    try:
        partial = reader.stats()
        assert 0 < partial["commits"] < len(repo.shas) and partial["records"] == 0
    finally:
        reader.close()
    summary = run_index(repo.root, resumed)
    assert summary.mode == "resumed"
    assert 0 < summary.commits_indexed < len(repo.shas)  # only what the first run had not written

    def export(folder):
        capture = tmp_path / f"{folder.name}.jsonl"
        with open(capture, "w") as out, contextlib.redirect_stdout(out):
            assert main(["export", "--repo", str(repo.root), "--index-dir", str(folder)]) == 0
        return [json.loads(line) for line in capture.read_text().splitlines()]

    assert export(resumed) == export(clean)


def _live_children() -> list[str]:
    """The command lines of this process's children that still run (zombies left out)."""
    found = []
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        with open(f"/proc/{os.getpid()}/task/{task}/children") as listed:
            for pid in map(int, listed.read().split()):
                if psutil_alive(pid):
                    with open(f"/proc/{pid}/cmdline", "rb") as cmd:
                        found.append(cmd.read().replace(b"\0", b" ").decode(errors="replace"))
    # multiprocessing's resource tracker stays for the interpreter's life (a few MB)
    return [command for command in found if "resource_tracker" not in command]


def test_the_walk_and_the_worker_are_gone_before_the_final_merge(make_repo, tmp_path, monkeypatch):
    """The final merge is the indexer's largest moment: git's processes and the anchor worker,
    done by then, must not hold their memory beside it (a 100k-commit history: 340 MB)."""
    from whylens.index.writer import IndexWriter

    repo = make_repo()
    build_session_history(repo)
    monkeypatch.setenv(anchoring.WORKER_MIN_COMMITS_ENV, "1")
    at_commit: list[list[str]] = []
    original = IndexWriter.commit

    def commit(self):
        at_commit.append(_live_children())
        return original(self)

    monkeypatch.setattr(IndexWriter, "commit", commit)
    assert run_index(repo.root, tmp_path / "index").commits_indexed == 4
    assert at_commit == [[]]
