"""An update's merge stays small on any segment layout (issue 14: a 10-commit update of a
100k-commit index once rewrote 22,736 documents). Real Whoosh segments written by the real
IndexWriter; only the bound is lowered so that a few hundred documents show it."""

from __future__ import annotations


from whylens.index import merges
from whylens.index import writer as writer_module
from whylens.index.store import IndexStore

SEGMENTS = 12  # of 40 documents each; unbounded, MERGE_SMALL merges nine and the first one at once


def _counts(store: IndexStore) -> list[int]:
    with store.reader() as reader:
        return sorted(segment.doc_count_all() for segment in reader._ix._segments())


def _write_segments(store: IndexStore, build) -> None:
    first = build.commit("c0", 0, files=["src/m.py"])
    with store.writer() as writer:
        writer.add_commits([first])
        writer.add_units([build.unit("u0", first, "pool", "pool timeout")])
    writer = store.writer()  # an update: each flush becomes a segment
    try:
        for n in range(1, SEGMENTS + 1):
            c = build.commit(f"c{n}", n, files=[f"src/m{n}.py"])
            writer.add_commits([c])
            writer.add_units([build.unit(f"u{n}-{i}", c, f"retry {n}", f"retry {n} socket {i}")
                              for i in range(39)])
            writer.flush()
        writer.commit()
    except BaseException:
        writer.abort()
        raise


def test_an_update_merges_no_more_than_the_bound(index_dir, build, monkeypatch):
    monkeypatch.setattr(merges, "UPDATE_MERGE_MAX_DOCS", 100)
    store = IndexStore(index_dir)
    _write_segments(store, build)
    assert _counts(store) == [2] + [40] * SEGMENTS  # the rebuild's segment, then the flushes'
    with store.reader() as reader:
        assert len(reader.search("retry socket", k=1_000)) == SEGMENTS * 39


def test_without_the_bound_the_same_update_merges_ten_segments_at_once(index_dir, build, monkeypatch):
    """The test above can fail: with the bound out of reach the update merges as Whoosh's
    MERGE_SMALL does: nine segments and the first at once."""
    monkeypatch.setattr(merges, "UPDATE_MERGE_MAX_DOCS", 10**9)
    store = IndexStore(index_dir)
    _write_segments(store, build)
    assert max(_counts(store)) == 2 + 9 * 40


def test_a_big_rebuild_leaves_no_small_segments_beside_others(index_dir, build, monkeypatch):
    """A rebuild too big to merge into one segment (lowered to 100 documents here) folds its
    small segments into one at the end; Whoosh's MERGE_SMALL left two of them beside a merged
    one, and every segment costs each query."""
    monkeypatch.setattr(writer_module, "OPTIMIZE_MAX_DOCS", 100)
    monkeypatch.setattr(merges, "REBUILD_MIN_SEGMENT_DOCS", 100)
    store = IndexStore(index_dir)
    writer = store.writer(rebuild=True)
    try:
        for n in range(SEGMENTS):
            c = build.commit(f"c{n}", n, files=[f"src/m{n}.py"])
            writer.add_commits([c])
            writer.add_units([build.unit(f"u{n}-{i}", c, f"retry {n}", f"retry {n} socket {i}")
                              for i in range(39)])
            writer.flush()
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    counts = _counts(store)
    assert sum(counts) == SEGMENTS * 40 and len([c for c in counts if c < 100]) <= 1
    assert len(counts) <= 2
