"""An update's merge stays small on any segment layout (issue 14: a 10-commit update of a
100k-commit index once rewrote 22,736 documents). Real Whoosh segments written by the real
IndexWriter; only the bound is lowered so that a few hundred documents show it."""

from __future__ import annotations


from whylens.index import merges
from whylens.index import writer as writer_module
from whylens.index.store import IndexStore

SEGMENTS = 12  # of 40 documents each; unbounded, MERGE_SMALL merges several of them at once


def _counts(store: IndexStore) -> list[int]:
    with store.reader() as reader:
        return sorted(segment.doc_count_all() for segment in reader._ix._segments())


def _first(store: IndexStore, build):
    first = build.commit("c0", 0, files=["src/m.py"])
    with store.writer() as writer:
        writer.add_commits([first])
        writer.add_units([build.unit("u0", first, "pool", "pool timeout")])


def _batch(build, n: int):
    c = build.commit(f"c{n}", n, files=[f"src/m{n}.py"])
    return c, [build.unit(f"u{n}-{i}", c, f"retry {n}", f"retry {n} socket {i}") for i in range(39)]


def _flushed(writer, build, numbers) -> None:
    """One writer's batches, each flushed as a segment, then its commit."""
    try:
        for n in numbers:
            c, units = _batch(build, n)
            writer.add_commits([c])
            writer.add_units(units)
            writer.flush()
        writer.commit()
    except BaseException:
        writer.abort()
        raise


def _updates(store: IndexStore, build) -> None:
    """One update (a commit and its 39 units: 40 documents) after another."""
    _first(store, build)
    for n in range(1, SEGMENTS + 1):
        c, units = _batch(build, n)
        with store.writer() as writer:
            writer.add_commits([c])
            writer.add_units(units)


def test_an_update_merges_no_more_than_the_bound(index_dir, build, monkeypatch):
    monkeypatch.setattr(merges, "UPDATE_MERGE_MAX_DOCS", 100)
    store = IndexStore(index_dir)
    _updates(store, build)
    assert _counts(store) == [2] + [40] * SEGMENTS  # the rebuild's segment, then the updates'
    with store.reader() as reader:
        assert len(reader.search("retry socket", k=1_000)) == SEGMENTS * 39


def test_without_the_bound_the_same_updates_merge_nine_segments_at_once(index_dir, build,
                                                                        monkeypatch):
    """The test above can fail: with the bound out of reach the updates merge as Whoosh's
    MERGE_SMALL does: eight segments and the first at once."""
    monkeypatch.setattr(merges, "UPDATE_MERGE_MAX_DOCS", 10**9)
    store = IndexStore(index_dir)
    _updates(store, build)
    assert max(_counts(store)) == 2 + 8 * 40


def test_a_backfill_into_the_published_index_merges_as_a_rebuild(index_dir, build, monkeypatch):
    """A run that writes more than an update (a backfill resumed after a kill, a segment's
    successor) is not fresh but merges as a rebuild does: the bound had left the 100k
    history's index in 106 segments."""
    monkeypatch.setattr(merges, "UPDATE_MERGE_MAX_DOCS", 100)
    monkeypatch.setattr(merges, "REBUILD_MIN_SEGMENT_DOCS", 100)
    store = IndexStore(index_dir)
    _first(store, build)
    _flushed(store.writer(), build, range(1, SEGMENTS + 1))  # not fresh
    counts = _counts(store)
    assert sum(counts) == 2 + SEGMENTS * 40 and len([c for c in counts if c < 100]) <= 1


def test_a_big_rebuild_leaves_no_small_segments_beside_others(index_dir, build, monkeypatch):
    """A rebuild too big to merge into one segment (lowered to 100 documents here) folds its
    small segments into one at the end; Whoosh's MERGE_SMALL left two of them beside a merged
    one, and every segment costs each query."""
    monkeypatch.setattr(writer_module, "OPTIMIZE_MAX_DOCS", 100)
    monkeypatch.setattr(merges, "REBUILD_MIN_SEGMENT_DOCS", 100)
    store = IndexStore(index_dir)
    _flushed(store.writer(rebuild=True), build, range(SEGMENTS))
    counts = _counts(store)
    assert sum(counts) == SEGMENTS * 40 and len([c for c in counts if c < 100]) <= 1
    assert len(counts) <= 2
