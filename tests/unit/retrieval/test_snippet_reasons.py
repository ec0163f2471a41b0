"""A why-question is answered by the sentence that gives the reason, even when it shares no word
with the question and another sentence restates the topic (``snippets.REASON``); a question that
asks for a way, not a reason, keeps the topic sentence."""

from __future__ import annotations

from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval import snippets
from whylens.retrieval.query import plan
from whylens.retrieval.search import search
from whylens.retrieval.snippets import states_reason

TOPIC = "Directories are pushed on a stack rather than a queue."
REASON = "The primary motivation for this change is to reduce peak memory usage."


def test_why_and_symptom_questions_ask_for_a_reason():
    assert plan("why does the scanner walk depth first?").asks_reason
    assert plan("what is the reason for the stack in the walker").asks_reason
    assert plan("rg hangs when the folder I'm in was deleted").asks_reason
    assert plan("ValueError when posting json").asks_reason
    assert not plan("how do I make the scanner walk breadth first").asks_reason
    assert not plan("zeppelin scanner depth").asks_reason


def test_reason_sentences():
    assert states_reason(REASON)
    assert states_reason("This was because of an errant optimization.")
    assert states_reason("Principally because it allows for out-of-order suggestions.")
    assert states_reason("Use a lock so that two threads never share the nonce.")
    assert not states_reason(TOPIC)
    assert not states_reason("Fixed since v1.2.")


def test_a_why_question_gets_the_reason_sentence(make_repo, index_dir):
    repo = make_repo()
    repo.commit("Add the zeppelin scanner", {"src/scan.py": "def walk():\n    return []\n"})
    sha = repo.commit(f"Walk depth first in the zeppelin scanner\n\n{TOPIC}\n\n{REASON}\n",
                      {"src/scan.py": "def walk():\n    stack = []\n    return stack\n"})
    repo.commit("Add a README", {"README.md": "zeppelin\n"})
    run_index(repo.root, index_dir)
    budget = len(REASON) + 5  # one sentence fits: the best one
    with IndexStore(index_dir).reader() as reader:
        hits = search(reader, "why does the zeppelin scanner walk depth first?", k=3, gate=0.0,
                      budget=budget).hits
        assert hits and hits[0].commit == sha
        assert hits[0].snippet == REASON
        how = search(reader, "how do I make the zeppelin scanner walk depth first?", k=3,
                     gate=0.0, budget=budget).hits
        assert how and how[0].commit == sha and how[0].snippet != REASON


def test_the_bonus_orders_sentences_never_hits(make_repo, index_dir, monkeypatch):
    repo = make_repo()
    repo.commit("Add the zeppelin scanner", {"src/scan.py": "def walk():\n    return []\n"})
    repo.commit(f"Walk depth first in the zeppelin scanner\n\n{TOPIC}\n\n{REASON}\n",
                {"src/scan.py": "def walk():\n    stack = []\n    return stack\n"})
    repo.commit("Make the zeppelin scanner skip hidden directories because they are slow",
                {"src/scan.py": "def walk():\n    stack = []\n    return stack  # hidden\n"})
    run_index(repo.root, index_dir)
    question = "why does the zeppelin scanner walk depth first?"
    with IndexStore(index_dir).reader() as reader:
        with_bonus = [(h.commit, h.score) for h in search(reader, question, k=3, gate=0.0).hits]
        monkeypatch.setattr(snippets, "REASON", 0.0)
        without = [(h.commit, h.score) for h in search(reader, question, k=3, gate=0.0).hits]
    assert with_bonus == without
