"""A rebuild's index does not depend on when it flushed (issue 14): BM25's total field length was
exact when the final write merged nothing and rounded to Whoosh's one-byte lengths when it merged
earlier flushes, so a cheaper flush cadence changed every score. A real git repository, indexed
by the real pipeline twice: one final write that merges nothing, and a flush after every commit."""

from __future__ import annotations

from whoosh.filedb.filestore import FileStorage

import whylens.pipeline as pipeline
from whylens.index.store import WHOOSH_DIR, IndexStore
from whylens.pipeline import run_index

QUERIES = ("reject headers parser overflow", "retry socket timeout", "cache eviction")


def _history(repo) -> None:
    for i in range(12):
        # messages longer than the exact range of a one-byte length (10 words), and uneven
        words = " ".join(f"because the parser fails with OverflowError on socket {k}"
                         for k in range(1 + i % 5))
        repo.commit(f"Reject headers over {i} KB (#{50 + i})\n\nA header longer than {i} KB must "
                    f"be rejected on retry, {words}. The cache eviction waits for the timeout.",
                    {f"src/h{i}.py": f"def parse_{i}(raw):\n    return raw[:{i}]\n"})


def _whoosh(index_dir) -> tuple:
    ix = FileStorage(str(IndexStore(index_dir).current_generation() / WHOOSH_DIR)).open_index()
    with ix.reader() as reader:
        ids = {n: fields["id"] for n, fields in reader.iter_docs()}
        totals = (reader.doc_count(), reader.field_length("text"))
        lengths = sorted((ids[n], reader.doc_field_length(n, "text")) for n in ids)
    segments = len(ix._segments())
    ix.close()
    return segments, totals, lengths


def _scores(index_dir) -> list:
    reader = IndexStore(index_dir).reader()
    try:
        return [sorted((hit.id, round(score, 9)) for hit, score in reader.search(q, k=100))
                for q in QUERIES]
    finally:
        reader.close()


def test_flush_cadence_leaves_length_totals_and_scores_unchanged(make_repo, tmp_path,
                                                                 monkeypatch):
    repo = make_repo()
    _history(repo)
    once, often = tmp_path / "once", tmp_path / "often"
    monkeypatch.setattr(pipeline, "FIRST_FLUSH_SECONDS", 1e9)  # the final write only
    monkeypatch.setattr(pipeline, "MAX_FLUSH_SECONDS", 1e9)
    assert run_index(repo.root, once).commits_indexed == 12
    monkeypatch.setattr(pipeline, "FIRST_FLUSH_SECONDS", 0.0)  # a flush after every commit
    monkeypatch.setattr(pipeline, "MAX_FLUSH_SECONDS", 0.0)
    monkeypatch.setattr(pipeline, "BATCH_COMMITS", 1)
    assert run_index(repo.root, often).commits_indexed == 12
    (segments_once, *held_once), (segments_often, *held_often) = _whoosh(once), _whoosh(often)
    assert segments_once == segments_often == 1  # the flushes were merged at commit
    assert held_often == held_once
    assert any(length > 10 for _, length in held_once[1])  # lengths that the byte rounds
    scores = _scores(once)
    assert all(scores) and _scores(often) == scores
