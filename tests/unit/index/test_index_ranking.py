"""The direct BM25F path (index.ranking) returns what Whoosh's own search returns, and the
symbol lookups keep their fast plan. Real Whoosh indexes and sqlite files; nothing mocked."""

from __future__ import annotations

import random

import pytest

from whylens.index import lookups, ranking
from whylens.index.analysis import word_groups
from whylens.index.store import IndexStore

WORDS = ("pool connection timeout retry cache lock socket session adapter header cookie proxy "
         "stream chunk encoding redirect certificate buffer queue worker thread signal parser "
         "token schema cursor batch flush rollback").split()
IDENTS = ["HTTPAdapter.send", "foo_bar", "foo-bar", "getURLForName", "pool_manager.clear"]


@pytest.fixture
def segmented(index_dir, build):
    """~360 units over several unmerged segments (flushed, not yet committed: commit() would
    merge them), with an updated document (deleted in an older segment) and removed ones."""
    rng = random.Random(3)
    store = IndexStore(index_dir)
    batches = []
    for batch in range(4):
        c = build.commit(f"c{batch}", batch, files=[f"src/m{batch}.py"],
                         author="Grace Hopper" if batch % 2 else "Ada Lovelace")
        units = []
        for i in range(90):
            words = rng.choices(WORDS[: 8 + batch * 5], k=rng.randint(3, 12))
            if rng.random() < 0.3:
                words.append(rng.choice(IDENTS))
            units.append(build.unit(f"u{batch}-{i}", c, " ".join(words[:3]), " ".join(words),
                                    type=rng.choice(("fact", "skill", "pattern")),
                                    weight=rng.choice((0.5, 0.7, 0.9))))
        batches.append((c, units))
    with store.writer() as writer:
        writer.add_commits([batches[0][0]])
        writer.add_units(batches[0][1])
    writer = store.writer()  # incremental: each flush is a new segment
    try:
        for c, units in batches[1:]:
            writer.add_commits([c])
            writer.add_units(units)
            writer.flush()
        writer.add_units([build.unit("u0-1", batches[0][0], "pool timeout", "pool timeout retry"),
                          # a word in one document: Whoosh inlines its posting in the term info
                          build.unit("once", batches[3][0], "zanzibar", "zanzibar pool")])
        writer.remove_commits([batches[2][0].sha])
        writer.flush()
        yield store
    finally:
        writer.abort()


QUERIES = ["pool", "pool timeout", "connection reset retry", "HTTPAdapter.send", "foo_bar pool",
           "foo-bar foo_bar", "getURLForName lock", "absent words only", "cursor batch flush "
           "rollback token", "pool_manager.clear session cookie", "zanzibar pool"]
FILTERS = [{}, {"types": ["pattern"]}, {"author": "grace hopper"}, {"since": "2023-11-16"},
           {"path": "src/m2.py", "types": "fact"}]


def test_direct_top_n_equals_whoosh_search(segmented):
    with segmented.reader() as reader:
        segments = reader._ix._segments()
        assert len(segments) >= 2 and any(s.has_deletions() for s in segments)
        direct = ranking.DirectScorer(reader._searcher)
        checked = 0
        for query in QUERIES:
            groups = word_groups(query)
            for filters in FILTERS:
                wfilter = reader._filters(filters.get("types"), filters.get("path"),
                                          filters.get("author"), filters.get("since"), None)
                allowed = None if wfilter is None else set(
                    reader._searcher.docs_for_query(wfilter))
                for limit in (1, 5, 50):
                    expected = reader._whoosh_top(groups, limit, wfilter)
                    got = direct.top(groups, limit, allowed)
                    assert [d for _, d in got] == [d for _, d in expected], (query, filters)
                    for (a, _), (b, _) in zip(got, expected):
                        assert a == pytest.approx(b, rel=1e-12)
                    checked += len(expected)
        assert checked > 500  # the comparison saw real hits, not empty lists


def test_search_results_are_unchanged_by_the_direct_path(segmented):
    with segmented.reader() as fast, segmented.reader() as slow:
        slow._direct = False  # Whoosh's own search, as before the direct path
        for query in QUERIES:
            for filters in FILTERS:
                a = [(i.id, round(s, 9)) for i, s in fast.search(query, k=10, **filters)]
                b = [(i.id, round(s, 9)) for i, s in slow.search(query, k=10, **filters)]
                assert a == b, (query, filters)
        assert isinstance(fast._direct, ranking.DirectScorer)  # it did not fall back


def test_clauses_keep_repeated_ands_as_whoosh_scores_them():
    terms, ands = ranking.clauses(word_groups("foo_bar foo-bar pool pool"))
    assert terms == ["foo_bar", "foo-bar", "pool"]
    assert ands == [("foo", "bar"), ("foo", "bar")]


@pytest.mark.parametrize("table,links,key", [("units", "unit_symbols", "unit_id"),
                                             ("records", "record_symbols", "record_id")])
def test_symbol_lookup_starts_from_the_symbol(segmented, table, links, key):
    with segmented.reader() as reader:
        sql = lookups.items_sql(table, links, key, 2)
        plan = [row[3] for row in reader._conn.execute("EXPLAIN QUERY PLAN " + sql,
                                                        ["send", "a.py", "b.py"])]
        assert plan[0].startswith("SEARCH s USING PRIMARY KEY (tail=?)"), plan
        # the file restriction is a probe by id (never a walk over the file's units)
        assert any(step.startswith("SEARCH f USING") and f"{key}=?" in step for step in plan), plan


def test_cached_score_tables_stay_exact_and_bounded(segmented, monkeypatch):
    monkeypatch.setattr(ranking, "CACHE_MIN_POSTINGS", 1)
    monkeypatch.setattr(ranking, "CACHE_POSTINGS", 150)  # small: forces evictions
    with segmented.reader() as reader:
        direct = ranking.DirectScorer(reader._searcher)
        for _ in range(2):  # the second round reads tables cached (or evicted) by the first
            for query in QUERIES:
                groups = word_groups(query)
                expected = reader._whoosh_top(groups, 50, None)
                got = direct.top(groups, 50, None)
                assert [d for _, d in got] == [d for _, d in expected], query
                assert [round(s, 9) for s, _ in got] == [round(s, 9) for s, _ in expected]
                assert 0 < direct._cached_postings <= 150
                assert direct._cached_postings == sum(len(t) for t in direct._cache.values())


def test_any_failure_of_the_direct_path_falls_back_to_whoosh(segmented, monkeypatch, caplog):
    """The direct path reads Whoosh's private format: an exception of any kind from it (here an
    AttributeError, as an empty segment's EmptyReader raised) means Whoosh's own search."""
    store = segmented
    with store.reader() as reader:
        expected = [(item.id, round(score, 9)) for item, score in reader.search("pool timeout", k=8)]

    def broken(self, *args, **kwargs):
        raise AttributeError("'EmptyReader' object has no attribute '_perdoc'")

    monkeypatch.setattr(ranking.DirectScorer, "top", broken)
    with store.reader() as reader, caplog.at_level("WARNING"):
        got = [(item.id, round(score, 9)) for item, score in reader.search("pool timeout", k=8)]
        reader.search("lock", k=3)
    assert got == expected
    assert sum("Whoosh's own search" in r.message for r in caplog.records) <= 1


def test_another_whoosh_release_uses_whoosh_search(segmented, monkeypatch):
    monkeypatch.setattr(ranking, "_SUPPORTED", False)
    with pytest.raises(ranking.Unsupported):
        with segmented.reader() as reader:
            ranking.DirectScorer(reader._searcher)
    with segmented.reader() as reader:
        assert reader.search("pool timeout", k=3)
    assert ranking.whoosh_supported()  # the pinned release is the verified one


def test_an_empty_index_answers_nothing_yet(make_repo, index_dir, capsys):
    """A new repository whose one commit carries no intent (a release: no unit, no commit
    document), so an empty Whoosh index; search and explain-error answer, and the first flush
    of an index is usable the same way."""
    import io
    import sys

    from whylens.cli import main
    from whylens.pipeline import run_index

    repo = make_repo("young")
    repo.commit("Release 0.1.0", {"README.md": "hello\n"})
    run_index(repo.root, index_dir)
    common = ["--repo", str(repo.root), "--index-dir", str(index_dir)]
    assert main(["search", "foo bar", *common]) == 0
    assert "nothing yet" in capsys.readouterr().out
    sys_stdin = sys.stdin
    try:
        sys.stdin = io.StringIO('Traceback (most recent call last):\n  File "a.py", line 1, in f\n'
                                "ValueError: boom\n")
        assert main(["explain-error", *common]) == 0
    finally:
        sys.stdin = sys_stdin
    with IndexStore(index_dir).reader() as reader:
        assert reader.doc_count() == 0 and reader.search("anything at all") == []


def test_an_empty_index_is_not_a_direct_path_failure(make_repo, index_dir, caplog):
    """Nothing to rank is not a failure: no "Whoosh's own search" warning, no numpy warning."""
    import warnings

    from whylens.pipeline import run_index
    from whylens.retrieval.search import search

    repo = make_repo("young")
    repo.commit("Release 0.1.0", {"README.md": "hello\n"})
    run_index(repo.root, index_dir)
    with IndexStore(index_dir).reader() as reader, warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        caplog.set_level("WARNING", logger="whylens.index")
        assert reader.doc_count() == 0
        assert search(reader, "pool timeout hangs").abstained
        assert reader.candidates("pool timeout").items == []
    assert not [r for r in caplog.records if "own search" in r.getMessage()]
