"""retrieval.feedback: the words the best first-stage hits share bridge a question's words to
a commit that says the same thing in the project's own (pseudo-relevance feedback)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval import feedback
from whylens.retrieval.search import WEIGHTS, rank

# Three commits say "replica" and "slave" together (the project renamed one to the other); the
# answer says "slave" only, so the question's words ("replica", "stale") miss it lexically.
BRIDGES = [
    ("Replica sync: stream the snapshot to the slave",
     "A replica (slave) now receives the snapshot from the master as a stream during a full "
     "resynchronisation, instead of a temporary file on the master's disk."),
    ("Drop a replica that stops acknowledging",
     "A slave that sends no acknowledgement for a minute is disconnected by the master; the "
     "replica reconnects and asks for a partial resynchronisation."),
    ("Refuse writes on a read-only replica",
     "Writes sent to a slave are refused unless the replica is configured writable, so the "
     "slave stays consistent with its master."),
]
ANSWER = ("Return nothing for logically expired keys on slaves",
          "The slave answered GET with keys whose time to live had elapsed, because only the "
          "master deletes them. Treat such keys as missing when reading on a slave.")
FILLERS = [
    (f"Tidy the {topic} module", f"Rename helpers in the {topic} code and document {what}.")
    for topic, what in [
        ("cluster bus", "the gossip section"), ("lua scripting", "the sandbox"),
        ("bitmap", "BITCOUNT ranges"), ("geo", "radius units"), ("stream", "consumer groups"),
        ("sorted set", "ZRANGE bounds"), ("module api", "the ABI version"),
        ("acl", "selectors"), ("latency monitor", "the thresholds"), ("tls", "cipher lists"),
        ("keyspace events", "the flags"), ("hyperloglog", "sparse encoding"),
    ]
]
# they share a word with the question, not its subject
DISTRACTORS = [
    ("Evict stale entries from the geo cache", "Stale geo entries are evicted after an hour."),
    ("Hand out ZRANGE values in order", "ZRANGE values are handed out sorted by score."),
    ("Keep stale ACL selectors out", "A stale selector is dropped when the ACL file reloads."),
    ("Bound the values of BITCOUNT", "BITCOUNT values outside the string are clamped."),
]
QUESTION = "why does a replica hand out stale values?"


@pytest.fixture
def bridged(make_repo, index_dir):
    repo = make_repo("bridged")
    shas = {}
    for n, (subject, body) in enumerate(BRIDGES + [ANSWER] + DISTRACTORS + FILLERS):
        shas[subject] = repo.commit(f"{subject}\n\n{body}", {f"src/f{n}.c": f"int f{n};\n"})
    run_index(repo.root, index_dir)
    reader = IndexStore(index_dir).reader()
    try:
        yield shas, reader
    finally:
        reader.close()


def place(ranking, sha):
    return next((n for n, s in enumerate(ranking.ranked, 1) if s.commit == sha), None)


def test_the_shared_word_bridges_to_the_answer(bridged):
    shas, reader = bridged
    answer, geo = shas[ANSWER[0]], shas[DISTRACTORS[0][0]]
    plain = rank(reader, QUESTION, weights=replace(WEIGHTS, feedback=0.0), second_stage=False)
    fed = rank(reader, QUESTION, second_stage=False)
    assert place(plain, geo) < place(plain, answer)  # "stale" alone outranks the answer
    assert place(fed, answer) < place(fed, geo)  # "slave" and "master" bring it up
    assert place(fed, answer) < place(plain, answer)


def test_feedback_words_are_shared_not_asked(bridged):
    shas, reader = bridged
    first = rank(reader, QUESTION, weights=replace(WEIGHTS, feedback=0.0), second_stage=False)
    words = [w for w, _ in feedback.terms(reader, first.ranked, reader.query_terms(QUESTION))]
    assert "slave" in words
    assert "replica" not in words  # asked already
    assert "gossip" not in words  # one filler's word

