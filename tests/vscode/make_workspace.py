"""Build the git repository the real-VS-Code test opens: a known history, fixed authors and dates.

    python tests/vscode/make_workspace.py DEST

`pool.py`'s `Pool.acquire` was fixed for a deadlock, given a timeout, changed and reverted; the
branch `feature/faster-acquire` (checked out) changes `acquire` again and leaves an uncommitted
edit, so a review against `main` has something to say. Prints the line numbers the test needs as
JSON. Stdlib only (the test harness runs before anything else is importable).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

BASE_TIME = 1_700_000_000
ADA = ("Ada Lovelace", "ada@example.com")
GRACE = ("Grace Hopper", "grace@example.com")

POOL_V1 = '''"""A tiny connection pool."""
import threading
import time


class PoolTimeout(Exception):
    """No connection became free in time."""


class Pool:
    def __init__(self, size):
        self.lock = threading.Lock()
        self.free = list(range(size))

    def acquire(self):
        with self.lock:
            while not self.free:
                time.sleep(0.01)
            return self.free.pop()

    def release(self, conn):
        with self.lock:
            self.free.append(conn)
'''

POOL_V2 = POOL_V1.replace('''    def acquire(self):
        with self.lock:
            while not self.free:
                time.sleep(0.01)
            return self.free.pop()
''', '''    def acquire(self):
        while True:
            with self.lock:
                if self.free:
                    return self.free.pop()
            time.sleep(0.01)
''')

POOL_V3 = POOL_V2.replace('''    def acquire(self):
        while True:
            with self.lock:
                if self.free:
                    return self.free.pop()
            time.sleep(0.01)
''', '''    def acquire(self, timeout=5.0):
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                if self.free:
                    return self.free.pop()
            if time.monotonic() > deadline:
                raise PoolTimeout("no free connection")
            time.sleep(0.01)
''')

POOL_CACHED = POOL_V3.replace('''        deadline = time.monotonic() + timeout
''', '''        if getattr(self, "last", None) is not None:
            return self.last
        deadline = time.monotonic() + timeout
''')

POOL_FEATURE = POOL_V3.replace('''            time.sleep(0.01)
''', '''            time.sleep(0.001)
''')

# The uncommitted edit brings back both what was reverted (caching the last connection) and
# the old deadlock (waiting while holding the lock).
POOL_WORKTREE = POOL_FEATURE.replace('''        while True:
            with self.lock:
                if self.free:
                    return self.free.pop()
''', '''        # cache the last connection again: saves a lock round trip
        if getattr(self, "last", None) is not None:
            return self.last
        with self.lock:
            while not self.free:
                time.sleep(0.001)
            return self.free.pop()
        while True:
            with self.lock:
                if self.free:
                    return self.free.pop()
''')

APP = '''from pool import Pool

POOL = Pool(4)


def handle(request):
    conn = POOL.acquire()
    try:
        return f"handled {request} on {conn}"
    finally:
        POOL.release(conn)
'''


class Repo:
    def __init__(self, root: Path):
        self.root = root
        self.clock = BASE_TIME
        self.env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}

    def git(self, *args: str, input: str | None = None, env: dict | None = None) -> str:
        out = subprocess.run(["git", *args], cwd=self.root, env={**self.env, **(env or {})},
                             input=input, text=True, check=True, capture_output=True)
        return out.stdout.strip()

    def commit(self, message: str, files: dict[str, str], who=ADA, days: int = 3) -> str:
        for path, text in files.items():
            (self.root / path).write_text(text, encoding="utf-8")
        self.git("add", "-A")
        self.clock += days * 86_400
        stamp = f"{self.clock} +0000"
        env = {"GIT_AUTHOR_NAME": who[0], "GIT_AUTHOR_EMAIL": who[1], "GIT_AUTHOR_DATE": stamp,
               "GIT_COMMITTER_NAME": who[0], "GIT_COMMITTER_EMAIL": who[1],
               "GIT_COMMITTER_DATE": stamp}
        self.git("commit", "-q", "--no-verify", "-F", "-", input=message, env=env)
        return self.git("rev-parse", "HEAD")


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing needle."""
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    raise ValueError(needle)


def build(dest: Path) -> dict:
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(dest)], check=True)
    repo = Repo(dest)
    repo.commit("Add a connection pool", {"pool.py": POOL_V1, "app.py": APP})
    repo.commit(
        "Fix deadlock when the pool is exhausted\n\n"
        "acquire() slept while holding the lock, so release() could never return a connection "
        "and every thread hung once the pool was exhausted. Fixed by releasing the lock before "
        "retrying.\n",
        {"pool.py": POOL_V2}, who=GRACE)
    repo.commit(
        "Give Pool.acquire a timeout\n\n"
        "Callers hung forever when connections leaked. acquire() must raise PoolTimeout instead of "
        "blocking forever; never wait without a deadline.\n",
        {"pool.py": POOL_V3})
    cached = repo.commit(
        "Cache the last connection in Pool.acquire\n\nSaves a lock round trip on the hot path.\n",
        {"pool.py": POOL_CACHED}, who=GRACE)
    repo.commit(
        'Revert "Cache the last connection in Pool.acquire"\n\n'
        f"This reverts commit {cached}.\n\n"
        "The cached connection was handed to two threads at once.\n",
        {"pool.py": POOL_V3})
    repo.git("checkout", "-q", "-b", "feature/faster-acquire")
    repo.commit("Poll the pool more often\n\nShorter sleep between retries in acquire.\n",
                {"pool.py": POOL_FEATURE}, who=GRACE, days=1)
    (dest / "pool.py").write_text(POOL_WORKTREE, encoding="utf-8")
    # A failure someone pasted from a terminal (untracked and excluded, so git status ignores it).
    error_line = line_of(POOL_WORKTREE, "while not self.free")
    (dest / "failure.log").write_text(
        "Traceback (most recent call last):\n"
        f'  File "{dest / "pool.py"}", line {error_line}, in acquire\n'
        "RuntimeError: deadlock: every thread hung, the pool is exhausted\n", encoding="utf-8")
    with open(dest / ".git" / "info" / "exclude", "a", encoding="utf-8") as exclude:
        exclude.write("failure.log\n")
    return {
        "root": str(dest),
        "file": "pool.py",
        "function": "acquire",
        "acquire_line": line_of(POOL_WORKTREE, "def acquire"),
        "error_line": error_line,
        "error_file": "failure.log",
        "base": "main",
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(json.dumps(build(Path(sys.argv[1]).resolve())))
