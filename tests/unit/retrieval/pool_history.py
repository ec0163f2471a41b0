"""A small history with known answers for why / pitfalls / review tests.

src/pool.py, five commits:
1 add      — Pool.get, Pool.put, fetch
2 deadlock — fetch: a Pattern ("fetch deadlocked ... `pool.get()` ...") and its fix
3 strict   — Pool.put changed ...
4 revert   — ... and reverted ("This reverts commit <3>")
5 never-block — Pool.put: a Fact ("Pool.put must never block ...")
"""

from __future__ import annotations

POOL_V1 = '''\
class Pool:
    def get(self):
        return self.items.pop()

    def put(self, item):
        self.items.append(item)


def fetch(pool, url):
    conn = pool.get()
    return conn.open(url)
'''

POOL_V2 = POOL_V1.replace("    conn = pool.get()\n", "    conn = pool.try_get(timeout=5)\n")

POOL_V3 = POOL_V2.replace(
    "        self.items.append(item)\n",
    "        if item.closed:\n            raise ValueError('closed')\n        self.items.append(item)\n",
)

POOL_V5 = POOL_V2.replace(
    "        self.items.append(item)\n",
    "        self.items.append(item)  # never blocks\n        self.count += 1\n",
)

DEADLOCK_MESSAGE = (
    "Fix PoolExhaustedError deadlock in fetch\n\n"
    "fetch deadlocked with PoolExhaustedError when every connection was checked out, because "
    "`pool.get()` blocked while the caller held the lock. Fixed by calling `pool.try_get()` "
    "with a timeout instead.\n"
)


def build_pool_history(repo) -> dict[str, str]:
    shas = {}
    shas["add"] = repo.commit("Add a connection pool with get, put and fetch",
                              {"src/pool.py": POOL_V1, "README.md": "# pool\n"})
    shas["deadlock"] = repo.commit(DEADLOCK_MESSAGE, {"src/pool.py": POOL_V2},
                                   author="Grace Hopper <grace@example.com>")
    shas["strict"] = repo.commit(
        "Make put reject closed connections\n\nPutting a closed connection back poisoned the "
        "pool, so put now raises for closed items.\n", {"src/pool.py": POOL_V3})
    shas["revert"] = repo.commit(
        f'Revert "Make put reject closed connections"\n\nThis reverts commit {shas["strict"]}.\n'
        "Raising in put broke the shutdown path.\n", {"src/pool.py": POOL_V2},
        author="Grace Hopper <grace@example.com>")
    shas["never_block"] = repo.commit(
        "Count connections returned to the pool\n\nPool.put must never block, because it runs "
        "inside the event loop callbacks; it only appends and counts.\n",
        {"src/pool.py": POOL_V5})
    return shas
