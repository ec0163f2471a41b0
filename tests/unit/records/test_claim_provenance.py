"""Every claim knows the commit it came from, and a card shows only claims from commits that
changed its symbol (records.about, knowledge.confidence), on real repositories."""

from __future__ import annotations

from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.records.history import build_records
from whylens.render.rationale import rationale
from whylens.retrieval.why import why

from .conftest import merge, mine

NOW = 1_700_000_000 + 60 * 86_400

POOL = ("class Pool:\n    def get(self):\n        return self.free.pop()\n\n"
        "    def put(self, conn):\n        self.free.append(conn)\n")
GET_FIXED = POOL.replace("        return self.free.pop()",
                         "        while self.free:\n            conn = self.free.pop()\n"
                         "            if not conn.closed:\n                return conn\n"
                         "        return None")
PUT_FIXED = GET_FIXED.replace("        self.free.append(conn)",
                              "        self.free.insert(0, conn)")

GET_WHY = ("Pool.get must skip connections the server has already closed, because the server "
           "drops idle sockets after thirty seconds and a request sent on one fails with a reset.")
PUT_WHY = ("Pool.put must return connections to the front of the free list, so that the most "
           "recently used sockets are handed out first while they are still warm on the server.")


def _pull_request(repo) -> tuple[str, str, str]:
    repo.commit("Add the connection pool", {"src/pool.py": POOL})
    repo.git("checkout", "-q", "-b", "pool-fixes")
    c1 = repo.commit(f"Skip closed connections in get\n\n{GET_WHY}", {"src/pool.py": GET_FIXED})
    c2 = repo.commit(f"Reuse warm connections first\n\n{PUT_WHY}", {"src/pool.py": PUT_FIXED})
    repo.git("checkout", "-q", "main")
    m = merge(repo, "pool-fixes", "Merge pull request #7 from ada/pool-fixes\n\n"
                                  "Fix stale connections handed out by the pool")
    return c1, c2, m


def test_thread_units_carry_the_commit_they_came_from(make_repo):
    repo = make_repo()
    c1, c2, m = _pull_request(repo)
    (pr,) = [r for r in build_records(mine(repo), {}) if r.id == "pr-7"]
    by_commit = {u.commit: u.text for u in pr.thread if u.commit}
    assert GET_WHY in by_commit[c1] or any(GET_WHY[:40] in u.text for u in pr.thread
                                           if u.commit == c1)
    assert any(PUT_WHY[:40] in u.text for u in pr.thread if u.commit == c2)
    # the merge's description speaks for the whole pull request: no one commit
    assert all(u.commit is None for u in pr.thread if "stale connections" in u.text)
    assert m not in by_commit


def test_a_card_shows_only_claims_from_commits_that_changed_its_symbol(make_repo, tmp_path):
    repo = make_repo()
    _pull_request(repo)
    run_index(repo.root, tmp_path / "index")
    with IndexStore(tmp_path / "index").reader() as reader:
        get = why(reader, "src/pool.py", symbol="Pool.get", repo_root=repo.root, now=NOW)
        put = why(reader, "src/pool.py", symbol="Pool.put", repo_root=repo.root, now=NOW)
        recorded = [r for r in reader.records_for_symbol("Pool.put", path="src/pool.py")]
    get_text, put_text = rationale(get, max_chars=None), rationale(put, max_chars=None)
    # Pool.put's reason belongs to the commit that changed put: never on get's card
    assert "front of the free list" not in get_text
    assert "drops idle sockets" not in put_text
    for story in (get, put):  # every record claim a card shows comes from its own commits
        changed = {e.commit for e in story.history}
        for record in story.records:
            units = {u.id: u for u in record.thread}
            for claim in (record.problem, *record.cause, *record.decision, *record.rejected):
                if claim is not None and units[claim.unit].commit is not None:
                    assert units[claim.unit].commit in changed
    # the stored record keeps its whole thread: the narrowing happens per card
    assert all(any(PUT_WHY[:40] in u.text for u in r.thread) for r in recorded if r.id == "pr-7")
