"""index.light_whoosh: reading an index loads neither asyncio nor urllib.request, and both stay
importable and real afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import whylens

SERVER = str(Path(whylens.__file__).resolve().parents[1])
SCRIPT = """
import sys
from whylens.index.store import IndexStore
from whylens.models import Commit, FileChange
from whylens.retrieval.search import search
store = IndexStore(sys.argv[1])
commit = Commit(sha="a" * 40, parents=(), author="Ada", email="a@x", timestamp=1_700_000_000,
                date="2023-11-14T22:13:20+00:00", subject="Release the pool lock before retrying",
                body="Retrying while holding the lock deadlocked.",
                changes=(FileChange(path="pool.py", status="M"),))
with store.writer() as writer:
    writer.add_commits([commit])
with store.reader() as reader:
    hits = search(reader, "deadlock when retrying", gate=0.0).hits
print(len(hits), "asyncio" in sys.modules, "urllib.request" in sys.modules)
import asyncio, urllib.request, cached_property
print(asyncio.run(asyncio.sleep(0, result="ran")), callable(urllib.request.urlopen))
print(cached_property.asyncio.iscoroutinefunction(asyncio.sleep))
"""


def test_search_imports_neither_asyncio_nor_urllib_request(tmp_path):
    env = {**os.environ, "PYTHONPATH": SERVER}
    out = subprocess.run([sys.executable, "-P", "-c", SCRIPT, str(tmp_path / "index")],
                         capture_output=True, text=True, env=env, cwd=tmp_path, check=True)
    assert out.stdout.split("\n")[:3] == ["1 False False", "ran True", "True"], out.stderr
