"""The e2e workspace: a small repository whose history has known answers.

``Session.send`` has two substantive fixes (a deadlock, #12 → #15, and a TimeoutError retry in
#21); ``Session.close`` and ``untouched`` were only added. A comment with an emoji sits above the
class so every position on the lines below passes through the UTF-16 conversion.
"""

from __future__ import annotations

V1 = '''\
"""HTTP session helpers. 😋"""

DEFAULT_TIMEOUT = 10


class Session:
    def send(self, request):
        return self.adapter.send(request)

    def close(self):
        self.adapter.close()


def untouched(value):
    return value
'''

V2 = V1.replace(
    "        return self.adapter.send(request)",
    "        with self.lock:\n"
    "            conn = self.pool.get()\n"
    "        return conn.send(request)",
)

V3 = V2.replace(
    "        return conn.send(request)",
    "        try:\n"
    "            return conn.send(request, timeout=DEFAULT_TIMEOUT)\n"
    "        except TimeoutError:\n"
    "            return self.pool.fresh().send(request, timeout=DEFAULT_TIMEOUT)",
)

# Committed during the session: a fix to close() the server must pick up incrementally.
V4 = V3.replace(
    "    def close(self):\n        self.adapter.close()",
    "    def close(self):\n        if self.adapter is not None:\n            self.adapter.close()\n"
    "            self.adapter = None",
)
NEW_COMMIT_SUBJECT = "Make Session.close idempotent (#30)"
NEW_COMMIT_BODY = (
    "Closing a session twice raised AttributeError because the adapter was already gone. "
    "Fixed by clearing the adapter after the first close."
)


def build(repo) -> dict[str, str]:
    shas = {}
    shas["add"] = repo.commit("Add a Session that sends requests through its adapter",
                              {"src/session.py": V1, "README.md": "# demo\n"})
    shas["deadlock"] = repo.commit(
        "Fix deadlock when the connection pool is exhausted (#15)\n\n"
        "Session.send blocked forever when every pooled connection was checked out, because the "
        "lock was held while waiting for a connection. Fixed by releasing the lock before "
        "waiting on the pool.\n\nFixes #12\n",
        {"src/session.py": V2}, author="Grace Hopper <grace@example.com>")
    shas["timeout"] = repo.commit(
        "Retry send once when the server times out (#21)\n\n"
        "Session.send raised TimeoutError when the server was slow to answer under load. "
        "Fixed by retrying once on a fresh connection from the pool.\n",
        {"src/session.py": V3})
    return shas


def commit_new(repo) -> str:
    return repo.commit(f"{NEW_COMMIT_SUBJECT}\n\n{NEW_COMMIT_BODY}\n", {"src/session.py": V4},
                       author="Alan Turing <alan@example.com>")
