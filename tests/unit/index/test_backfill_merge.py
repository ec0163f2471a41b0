"""A backfill's flushes merge only once its walk is done (issue 14: a merge of twenty segments in
the middle of a segment of the 100k history lifted the indexer while the anchor worker and git
were alive beside it). Real Whoosh segments written by the real IndexWriter."""

from __future__ import annotations

from whoosh.filedb.filestore import FileStorage

from whylens.index import merges
from whylens.index.store import WHOOSH_DIR, IndexStore

FLUSHES = 12  # of 40 documents each: Whoosh's MERGE_SMALL merges five of them at the eighth


def _flush(writer, build, numbers, flush: bool = True) -> None:
    for n in numbers:
        c = build.commit(f"c{n}", n, files=[f"src/m{n}.py"])
        writer.add_commits([c])
        writer.add_units([build.unit(f"u{n}-{i}", c, f"retry {n}", f"retry {n} socket {i}")
                          for i in range(39)])
        if flush:
            writer.flush()


def _counts(writer) -> list[int]:
    return sorted(s.doc_count_all() for s in writer._ix._segments())


def test_a_backfill_merges_nothing_while_it_walks(index_dir, build):
    store = IndexStore(index_dir)
    writer = store.writer(rebuild=True)
    try:
        _flush(writer, build, range(FLUSHES))
        assert _counts(writer) == [40] * FLUSHES
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    with store.reader() as reader:
        assert len(reader.search("retry socket", k=1_000)) == FLUSHES * 39


def test_a_segments_cut_merges_as_whoosh_would(index_dir, build):
    """At the cut (``suspend``: the walk's processes have exited) MERGE_SMALL runs, as it ran
    at every flush before (the cut's flush writes the commits since the last one)."""
    store = IndexStore(index_dir)
    writer = store.writer(rebuild=True)
    _flush(writer, build, range(FLUSHES))
    _flush(writer, build, [FLUSHES], flush=False)
    folder = writer.folder
    writer.suspend()
    counts = sorted(s.doc_count_all() for s in
                    FileStorage(str(folder / WHOOSH_DIR)).open_index()._segments())
    assert sum(counts) == (FLUSHES + 1) * 40 and len(counts) < FLUSHES


def test_segments_piling_up_merge_before_the_walk_ends(index_dir, build, monkeypatch):
    monkeypatch.setattr(merges, "BACKFILL_MAX_SEGMENTS", 10)
    store = IndexStore(index_dir)
    writer = store.writer(rebuild=True)
    try:
        _flush(writer, build, range(FLUSHES))
        assert len(_counts(writer)) < FLUSHES and sum(_counts(writer)) == FLUSHES * 40
    finally:
        writer.abort()


def test_an_update_still_merges_at_its_flushes(index_dir, build, monkeypatch):
    """Not a backfill (a run writing no more than an update merges): its bounded merge runs
    at any flush, as before."""
    monkeypatch.setattr(merges, "UPDATE_MERGE_MAX_DOCS", 100)
    store = IndexStore(index_dir)
    with store.writer(rebuild=True) as first:
        _flush(first, build, range(1))
    monkeypatch.setattr(merges, "UPDATE_MERGE_MAX_DOCS", 10_000)  # the writer below: an update
    writer = store.writer()
    try:
        _flush(writer, build, range(1, FLUSHES))
        assert len(_counts(writer)) < FLUSHES
    finally:
        writer.abort()


def test_a_rebuild_folds_segments_of_one_auto_flush():
    """A backfill's flushes of ``AUTO_FLUSH_DOCS`` documents (plus the batch that passes it:
    9,040 on the 100k history) are small segments to its last merge, not kept beside others."""
    from whylens.index import writer as writer_module

    assert merges.REBUILD_MIN_SEGMENT_DOCS > writer_module.AUTO_FLUSH_DOCS * 1.2
