"""A retry loop whose fixed delay was reverted, and a later rule against it (review tests).

src/client.py, five commits:
1 add       — fetch retries with exponential backoff (``backoff``)
2 fixed     — "Use a fixed retry delay": ``time.sleep(RETRY_DELAY)``
3 revert    — reverted: "Clients retrying in lockstep hammered the server after an outage."
4 policy    — a later commit on fetch: "Retries must never use a fixed delay ..."
5 timeout   — "Fix hang when the server never answers": ``session.get(url)`` gets a timeout
"""

from __future__ import annotations

CLIENT_V1 = '''\
import time

RETRY_DELAY = 2.0


def backoff(attempt):
    return min(30.0, 0.5 * 2 ** attempt)


def fetch(session, url, retries=3):
    for attempt in range(retries):
        try:
            return session.get(url)
        except ConnectionError:
            time.sleep(backoff(attempt))
    raise ConnectionError(url)
'''

FIXED_DELAY = "            time.sleep(RETRY_DELAY)\n"
CLIENT_FIXED = CLIENT_V1.replace("            time.sleep(backoff(attempt))\n", FIXED_DELAY)
CLIENT_POLICY = CLIENT_V1.replace(
    "    raise ConnectionError(url)\n",
    "    raise ConnectionError(f\"{url}: gave up after {retries} attempts\")\n")
CLIENT_V5 = CLIENT_POLICY.replace("return session.get(url)", "return session.get(url, timeout=10)")

REVERT_REASON = "Clients retrying in lockstep hammered the server after an outage."
POLICY_MESSAGE = (
    "Explain the retry policy in fetch\n\n"
    "Retries must never use a fixed delay, because synchronized clients hammer a recovering "
    "server; fetch always backs off exponentially.\n")


def build_retry_history(repo) -> dict[str, str]:
    shas = {}
    shas["add"] = repo.commit("Add fetch with retries and exponential backoff",
                              {"src/client.py": CLIENT_V1, "README.md": "# client\n"})
    shas["fixed"] = repo.commit(
        "Use a fixed retry delay\n\nA constant delay is easier to reason about in tests.\n",
        {"src/client.py": CLIENT_FIXED})
    shas["revert"] = repo.commit(
        f'Revert "Use a fixed retry delay"\n\nThis reverts commit {shas["fixed"]}.\n\n'
        f"{REVERT_REASON}\n", {"src/client.py": CLIENT_V1},
        author="Grace Hopper <grace@example.com>")
    shas["policy"] = repo.commit(POLICY_MESSAGE, {"src/client.py": CLIENT_POLICY})
    shas["timeout"] = repo.commit(
        "Fix hang when the server never answers\n\nfetch waited forever on a silent server; "
        "every request now has a timeout.\n", {"src/client.py": CLIENT_V5})
    return shas
