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
