"""Every commit that passes the filters is a search document, with a semantic vector; a missing
or corrupt model, or an index of another version, degrades clearly and recovers."""

from __future__ import annotations

import logging
import shutil

import pytest

from whylens import semantic
from whylens.index import vectors
from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval import search as search_module
from whylens.retrieval.search import search
from whylens.semantic.static import StaticEncoder
from whylens.semantic.table import DATA_DIR

from histories import age_index


def build(repo) -> dict[str, str]:
    shas = {}
    shas["add"] = repo.commit("Add the cache module", {"src/cache.py": "def get(k):\n    pass\n"})
    shas["why"] = repo.commit(
        "Cap the cache at 512 entries\n\nAn unbounded cache grew until the worker ran out of "
        "memory on long-running jobs. Entries beyond 512 are evicted oldest first.\n",
        {"src/cache.py": "def get(k):\n    return LRU[k]\n"})
    shas["typo"] = repo.commit("fix typo", {"src/cache.py": "def get(key):\n    return LRU[key]\n"})
    shas["bot"] = repo.commit("Bump lib from 1.0 to 1.1", {"requirements.txt": "lib==1.1\n"},
                              author="dependabot[bot] <bot@example.com>")
    return shas


@pytest.fixture
def indexed(make_repo, index_dir):
    repo = make_repo()
    shas = build(repo)
    run_index(repo.root, index_dir)
    return repo, shas


def test_every_kept_commit_is_a_document_and_filtered_ones_are_not(indexed, index_dir):
    _repo, shas = indexed
    with IndexStore(index_dir).reader() as reader:
        docs = reader._db.execute("SELECT sha FROM commit_docs").fetchall()
        assert {sha for (sha,) in docs} == {shas["add"], shas["why"]}
        hit = search(reader, "why does the worker run out of memory?", k=1, gate=0.0).hits[0]
        assert hit.commit == shas["why"] and "ran out of memory" in hit.snippet
        doc = search(reader, "why does the worker run out of memory?", k=1, gate=0.0,
                     types=["commit"]).hits[0]
        assert doc.type == "commit" and doc.id == f"msg-{shas['why'][:12]}"
        assert doc.title == "Cap the cache at 512 entries"
        assert doc.files == ("src/cache.py",) and "get" in doc.symbols


def test_each_document_has_a_vector_of_the_installed_model(indexed, index_dir):
    with IndexStore(index_dir).reader() as reader:
        (count,) = reader._db.execute("SELECT COUNT(*) FROM vectors").fetchone()
        assert count == reader.doc_count() > 0
        assert reader.meta["semantic_encoder"] == semantic.default_encoder().name
        assert reader.vector_index() is not None and reader.semantic_problem is None


def test_a_question_sharing_no_word_with_the_commit_is_found_by_meaning(indexed, index_dir):
    _repo, shas = indexed
    with IndexStore(index_dir).reader() as reader:
        found = reader.candidates("", "the process keeps using more and more RAM",
                                  lexical_n=0, semantic_n=5)
        assert found.items and found.items[0].commit == shas["why"]
        assert found.items[0].lexical == 0.0 and found.items[0].cosine > 0


def corrupt_copy(tmp_path):
    folder = tmp_path / "semantic-data"
    shutil.copytree(DATA_DIR, folder)
    table = folder / "static_table.npy"
    data = bytearray(table.read_bytes())
    data[len(data) // 2] ^= 0xFF
    table.write_bytes(bytes(data))
    return folder


def test_a_corrupt_model_means_lexical_search_said_once(make_repo, index_dir, tmp_path,
                                                         monkeypatch, caplog):
    bad = corrupt_copy(tmp_path)
    monkeypatch.setattr(semantic, "default_encoder", lambda: StaticEncoder.load(bad))
    monkeypatch.setattr(search_module, "_said", set())
    repo = make_repo()
    shas = build(repo)
    with caplog.at_level(logging.WARNING):
        run_index(repo.root, index_dir)
    assert any("static_table.npy" in r.getMessage() and "reinstall" in r.getMessage()
               for r in caplog.records)
    caplog.clear()
    with IndexStore(index_dir).reader() as reader:
        assert reader.meta["semantic_encoder"] is None
        assert reader._db.execute("SELECT COUNT(*) FROM vectors").fetchone() == (0,)
        with caplog.at_level(logging.WARNING):
            first = search(reader, "cache evicted oldest entries", gate=0.0)
            second = search(reader, "unbounded cache memory", gate=0.0)
        assert first.hits[0].commit == shas["why"] and second.hits
        assert first.notice and "reinstall" in first.notice and second.notice == first.notice
    said = [r for r in caplog.records if "lexical only" in r.getMessage()]
    assert len(said) == 1


def test_the_model_coming_back_rebuilds_the_index_with_vectors(make_repo, index_dir, tmp_path,
                                                                monkeypatch, caplog):
    bad = corrupt_copy(tmp_path)
    repo = make_repo()
    build(repo)
    with monkeypatch.context() as patched:
        patched.setattr(semantic, "default_encoder", lambda: StaticEncoder.load(bad))
        run_index(repo.root, index_dir)
    with caplog.at_level(logging.WARNING):
        again = run_index(repo.root, index_dir)
    assert again.mode == "full"
    assert any("no vectors of the installed semantic model" in r.getMessage()
               for r in caplog.records)
    with IndexStore(index_dir).reader() as reader:
        assert reader.vector_index() is not None
    assert run_index(repo.root, index_dir).mode == "up-to-date"


def test_an_index_of_the_previous_version_is_rebuilt_and_said_once(make_repo, index_dir, caplog):
    repo = make_repo()
    build(repo)
    run_index(repo.root, index_dir)
    age_index(index_dir)
    with caplog.at_level(logging.WARNING):
        assert run_index(repo.root, index_dir).mode == "full"
        assert run_index(repo.root, index_dir).mode == "up-to-date"
    said = [r for r in caplog.records if "another WhyLens version" in r.getMessage()]
    assert len(said) == 1


def test_removed_commits_take_their_documents_and_vectors(indexed, index_dir):
    _repo, shas = indexed
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.remove_commits([shas["why"]])
    with store.reader() as reader:
        assert reader._db.execute("SELECT COUNT(*) FROM commit_docs WHERE sha = ?",
                                  (shas["why"],)).fetchone() == (0,)
        ids = {row[0] for row in reader._db.execute("SELECT id FROM vectors")}
        assert f"msg-{shas['why'][:12]}" not in ids
        assert all(h.commit != shas["why"] for h in search(reader, "cache memory", gate=0.0).hits)


def test_index_size_per_commit_stays_small(indexed, index_dir):
    """The vectors are 256 bytes + a scale per document (the scale issue's budget is 5 KB of
    index per commit in all; measured on real histories in docs/benchmarks.md)."""
    with IndexStore(index_dir).reader() as reader:
        rows = reader._db.execute("SELECT LENGTH(code) FROM vectors").fetchall()
    assert rows and all(n == semantic.default_encoder().dims for (n,) in rows)
    assert vectors.EMBED_CHARS <= 1_000
