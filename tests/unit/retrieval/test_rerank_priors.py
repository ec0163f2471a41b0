"""The second stage's length priors stay small beside relevance: a long message full of reason
cues ("because", "previously", "prevents") does not take the first place from a short one that
answers the question better (bench/tune_top.py; issue 12, round 27)."""

from __future__ import annotations

from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval import rerank
from whylens.retrieval.search import rank

LONG = """Rework the zeppelin worker supervision

Because a worker can crash at any time, the supervisor restarts it.
Previously a crashed worker stayed dead until the next deploy.
This prevents requests from queueing behind a dead worker.
Otherwise the queue would grow without bound.
The restart waits a second, since a crash loop would burn the CPU.
Workers now report their health every minute.
"""
SHORT = "Refill the zeppelin pool after a worker restart\n"
QUESTION = "why does a restarted zeppelin worker come back with an empty pool"


def _first(reader) -> str:
    return rank(reader, QUESTION, load=5).ranked[0].commit


def test_a_short_answer_outranks_a_long_message_of_reason_cues(make_repo, index_dir,
                                                               monkeypatch):
    repo = make_repo()
    repo.commit("Add the zeppelin pool", {"src/pool.py": "SIZE = 4\n"})
    short = repo.commit(SHORT, {"src/pool.py": "SIZE = 4\nKEEP = True\n"})
    long = repo.commit(LONG, {"src/worker.py": "RESTART = 1\n"})
    run_index(repo.root, index_dir)
    with IndexStore(index_dir).reader() as reader:
        assert _first(reader) == short
        # the priors as fitted (tune_search.py) put the long message first
        monkeypatch.setattr(rerank, "COEFFICIENTS", rerank.COEFFICIENTS | {
            "sentences": 0.4051, "explains": 0.2751})
        assert _first(reader) == long
