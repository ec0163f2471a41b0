"""The compact posting pool (issue 14: a Whoosh write held ~220 bytes per posting, 28 KB per
decision-record document): it yields exactly what Whoosh's own pool yields, so the segments are
the same, and an index write holds a fraction of the memory. Real Whoosh pools, writers and
segments on disk."""

from __future__ import annotations

import random
import shutil
import tracemalloc

from whoosh.filedb.filestore import FileStorage
from whoosh.writing import PostingPool

from whylens.index import whoosh_fixes  # noqa: F401 (installs)
from whylens.index.analysis import text_terms
from whylens.index.merges import merge_all, merged_already
from whylens.index.postings import CompactPool, compact_pool
from whylens.index.schema import build_schema
from whylens.index.store import IndexStore


def _postings(seed: int) -> list[tuple]:
    """Postings as a writer adds them: documents in order, with the odd cases mixed in (a term
    twice in one document, a document number going back, -1 for spelling, weights that are
    not frequencies, terms that are prefixes of each other or hold zero bytes)."""
    rnd = random.Random(seed)
    items, docnum = [], 0
    for _ in range(rnd.randint(1, 400)):
        docnum += rnd.randint(0, 2)
        for field in ("author", "id", "text"):
            terms = {rnd.choice([b"a", b"ab", b"abc", b"\x00", b"b\x00", bytes([rnd.randint(0, 255)])])
                     for _ in range(rnd.randint(0, 6))}
            for term in sorted(terms):
                freq = rnd.randint(1, 3)
                number = docnum if rnd.random() > 0.02 else rnd.choice([-1, 0, docnum])
                value = freq.to_bytes(4, "big") if field != "id" else None
                items.append((field, term, number, freq * rnd.choice([1.0, 1.0, 0.5]), value))
    return items


def _pooled(pool_class, folder, items, limit: int | None) -> list[tuple]:
    folder.mkdir()
    pool = pool_class(FileStorage(str(folder)), None, limitmb=128)
    if limit is not None:
        pool.limit = limit  # spill sorted runs to disk, as a big merge does
    for item in items:
        pool.add(item)
    try:
        return list(pool.iter_postings())
    finally:
        pool.cleanup()


def test_the_compact_pool_yields_the_postings_in_whooshs_order(tmp_path):
    for seed in range(25):
        items = _postings(seed)
        for limit in (None, 4_000):
            whoosh = _pooled(PostingPool, tmp_path / f"w{seed}-{limit}", items, limit)
            compact = _pooled(CompactPool, tmp_path / f"c{seed}-{limit}", items, limit)
            assert compact == whoosh
            assert [tuple(map(type, p)) for p in compact] == [tuple(map(type, p)) for p in whoosh]


def _documents(count: int, seed: int = 7) -> list[dict]:
    rnd = random.Random(seed)
    words = [f"word{n}" for n in range(5_000)]
    return [{"id": f"d{n}", "type": "commit",
             "text": " ".join(rnd.choice(words) for _ in range(150)) + f" sha{rnd.getrandbits(40):x}",
             "paths": f"src/m{n % 40}/f{n % 90}.c", "author": "Ada Lovelace", "ts": 1_600_000_000 + n,
             "weight": 1.0, "commit": f"c{n}"} for n in range(count)]


def _segment_files(folder, docs, compact: bool) -> dict[str, bytes]:
    folder.mkdir()
    ix = FileStorage(str(folder)).create_index(build_schema())
    writer = ix.writer(compound=False)
    if compact:
        compact_pool(writer)
    for doc in docs:
        writer.add_document(**doc)
    writer.commit(merge=False)
    segment = ix._segments()[0]
    name = segment.segment_id()
    return {path.name[len(name):]: path.read_bytes() for path in folder.iterdir()
            if path.name.startswith(name)}


def test_a_segment_written_through_the_compact_pool_is_byte_for_byte_whooshs(tmp_path):
    docs = _documents(300)
    whoosh = _segment_files(tmp_path / "whoosh", docs, compact=False)
    compact = _segment_files(tmp_path / "compact", docs, compact=True)
    assert set(whoosh) >= {".trm", ".pst", "._text_len.col"}
    assert compact == whoosh


def _three_segments(folder) -> list[dict]:
    folder.mkdir()
    ix = FileStorage(str(folder)).create_index(build_schema())
    docs = _documents(200, seed=11)
    for part in (docs[:80], docs[80:130], docs[130:170]):
        writer = ix.writer(compound=False)
        for doc in part:
            writer.add_document(**doc)
        writer.commit(merge=False)
    return docs[170:]


def _merged_files(source, folder, new_docs, compact: bool, optimize: bool,
                  limit: int | None) -> dict[str, bytes]:
    """Three segments (one gets a deletion), then one writer that merges them all, with new
    documents (as ``IndexWriter`` at a rebuild's commit) or as Whoosh's OPTIMIZE."""
    shutil.copytree(source, folder)
    ix = FileStorage(str(folder)).open_index()
    writer = ix.writer(compound=False)
    if compact:
        compact_pool(writer)
    if limit is not None:
        writer.pool.limit = limit
    writer.delete_by_term("id", "d90")
    if optimize:
        writer.commit(optimize=True)
    else:
        merge_all(writer)
        for doc in new_docs:
            writer.add_document(**doc)
        writer.commit(mergetype=merged_already)
    (segment,) = ix._segments()
    name = segment.segment_id()
    return {path.name[len(name):]: path.read_bytes() for path in folder.iterdir()
            if path.name.startswith(name)}


def test_a_merge_through_the_compact_pool_writes_whooshs_segment(tmp_path):
    """The merged segments' postings are read at write time, not pooled: same bytes, with the
    pool's own documents, with runs spilled to disk, and as OPTIMIZE."""
    source = tmp_path / "source"
    new_docs = _three_segments(source)
    for optimize in (False, True):
        for limit in (None, 150_000):
            tag = f"{optimize}-{limit}"
            whoosh = _merged_files(source, tmp_path / f"w-{tag}", new_docs, False, optimize, limit)
            compact = _merged_files(source, tmp_path / f"c-{tag}", new_docs, True, optimize, limit)
            assert set(whoosh) >= {".trm", ".pst", "._text_len.col"}
            assert compact == whoosh, tag


def test_an_index_write_holds_a_few_kilobytes_per_document(tmp_path, build):
    """A flush's traced peak per document: 64.6 KB with Whoosh's pool when this was written,
    11.6 KB with the compact one (the rest: the documents' fields, vectors, sqlite rows)."""
    docs = _documents(600)
    for doc in docs:
        list(text_terms(doc["text"]))  # warm the analyzer's token cache: not the write's memory
    store = IndexStore(tmp_path / "index")
    c = build.commit("c0", 0, files=["src/m.py"])
    units = [build.unit(doc["id"], c, doc["id"], doc["text"], type="fact") for doc in docs]
    with store.writer(rebuild=True) as writer:
        writer.add_units(units)
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            writer.flush()
            peak = tracemalloc.get_traced_memory()[1] - before
        finally:
            tracemalloc.stop()
    assert peak / len(docs) < 25_000, f"{peak / len(docs):.0f} bytes per document"


def test_a_merge_does_not_pool_the_postings_it_merges(tmp_path):
    """Whoosh's OPTIMIZE of the three segments: 11.2 MB traced peak with Whoosh's pool when
    this was written, 2.0 MB now (their postings are read while the new segment is written)."""
    _three_segments(tmp_path / "index")
    writer = compact_pool(FileStorage(str(tmp_path / "index")).open_index().writer())
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        writer.commit(optimize=True)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, f"the merge took {peak} bytes"
