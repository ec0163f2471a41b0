"""Small histories with known answers, shared by pipeline and CLI tests."""

from __future__ import annotations

SESSION_V1 = '''\
class Session:
    def send(self, request):
        return self.adapter.send(request)

    def close(self):
        self.adapter.close()
'''

SESSION_V2 = '''\
class Session:
    def send(self, request):
        with self.lock:
            conn = self.pool.get()
        return conn.send(request)

    def close(self):
        self.adapter.close()
'''

SESSION_V3 = SESSION_V2.replace("    def close(self):", "\n    def close(self):")  # blank line only

SESSION_V4 = SESSION_V3.replace(
    "        return conn.send(request)",
    "        return conn.send(request, timeout=request.timeout or DEFAULT_TIMEOUT)",
)


def build_session_history(repo) -> dict[str, str]:
    """Four commits on src/session.py; returns a name → sha map."""
    shas = {}
    shas["add"] = repo.commit(
        "Add a Session that sends requests through its adapter",
        {"src/session.py": SESSION_V1, "README.md": "# demo\n"},
    )
    shas["deadlock"] = repo.commit(
        "Fix deadlock when the connection pool is exhausted\n\n"
        "Session.send blocked forever when every pooled connection was checked out, because the "
        "lock was held while waiting for a connection. Fixed by releasing the lock before "
        "waiting on the pool.\n\nFixes #12\n",
        {"src/session.py": SESSION_V2},
        author="Grace Hopper <grace@example.com>",
    )
    shas["format"] = repo.commit("formatting", {"src/session.py": SESSION_V3})
    shas["timeout"] = repo.commit(
        "Always pass a timeout to the connection (#15)\n\n"
        "A request without a timeout can hang forever on a dead server. Every call to send must "
        "carry a timeout; we now fall back to DEFAULT_TIMEOUT instead of blocking.\n",
        {"src/session.py": SESSION_V4},
    )
    return shas


def indexed_branch(make_repo, index_dir, name: str, build) -> tuple:
    """A repository named ``name`` filled by ``build(repo) -> shas``, indexed, with a ``feature``
    branch checked out for the change under review: (repo, shas)."""
    from whylens.pipeline import run_index

    repo = make_repo(name)
    shas = build(repo)
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature")
    return repo, shas


def age_index(index_dir) -> None:
    """Make the index at ``index_dir`` look written by the previous WhyLens (schema 1)."""
    import sqlite3

    from whylens.index.store import IndexStore

    folder = IndexStore(index_dir).current_generation()
    conn = sqlite3.connect(folder / "sidecar.sqlite")
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    conn.execute("UPDATE meta SET value = '\"1.1\"' WHERE key = 'pipeline_version'")
    conn.commit()
    conn.close()


RETRY_V1 = '''\
def backoff(attempt):
    return 2 ** attempt


def retry(call, attempts=3):
    for attempt in range(attempts):
        try:
            return call()
        except TimeoutError:
            sleep(backoff(attempt))
    return call()
'''

RETRY_V2 = RETRY_V1.replace("    return 2 ** attempt", "    return min(2 ** attempt, 30)")
RETRY_V3 = RETRY_V2.replace("def retry(call, attempts=3):", "def retry(call, attempts=5):")
RETRY_V4 = RETRY_V3.replace("except TimeoutError:", "except (TimeoutError, ConnectionResetError):")


def _table(rows: int, edit: bool = False) -> str:
    lines = [f"{n},{(n * 7919) % 10007},{'x' * (n % 13)}" for n in range(rows)]
    return "\n".join(lines + (["edited"] if edit else [])) + "\n"


def build_missing_blob_history(repo) -> tuple[dict[str, str], str]:
    """Four commits on src/retry.py, two of which also touch a data table whose first version
    is then deleted from the object store: "add" (its patch needs the lost blob), "cap", "move"
    (an edited rename: rename detection needs the lost blob before git prints the commit) and
    "reset". Returns (name → sha, the lost blob)."""
    shas = {
        "add": repo.commit("Add a retry helper with exponential backoff",
                           {"src/retry.py": RETRY_V1, "assets/table.dat": _table(400)}),
        "cap": repo.commit("Cap the backoff at thirty seconds\n\nA long outage made the wait "
                           "grow past an hour between attempts.", {"src/retry.py": RETRY_V2}),
    }
    lost = repo.git("rev-parse", "HEAD:assets/table.dat")
    repo.git("mv", "assets/table.dat", "assets/table.csv")
    shas["move"] = repo.commit("Read the lookup table as CSV and retry five times",
                               {"assets/table.csv": _table(400, edit=True),
                                "src/retry.py": RETRY_V3})
    shas["reset"] = repo.commit(
        "Retry when the server resets the connection\n\nA restarting server drops pooled "
        "connections with ConnectionResetError; retrying once more is enough.",
        {"src/retry.py": RETRY_V4})
    (repo.root / ".git" / "objects" / lost[:2] / lost[2:]).unlink()
    return shas, lost


def promisor_clone(source, tmp_path, *filter_options: str):
    """A partial clone (``git clone --filter=...``, default blob:none) of repository ``source``,
    made from a bare copy that serves filters: (the clone's path, the bare promisor's path)."""
    import os
    import subprocess

    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    bare = tmp_path / "promisor.git"

    def git(*args: str) -> None:
        subprocess.run(["git", *args], check=True, capture_output=True, env=env)

    git("clone", "-q", "--bare", "--no-local", f"file://{source}", str(bare))
    git("-C", str(bare), "config", "uploadpack.allowFilter", "true")
    git("-C", str(bare), "config", "uploadpack.allowAnySHA1InWant", "true")
    clone = tmp_path / "partial"
    git("clone", "-q", *(filter_options or ("--filter=blob:none",)), f"file://{bare}", str(clone))
    return clone, bare
