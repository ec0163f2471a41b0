"""The compact term table (issue 14: a segment's write held ~124 bytes of Python objects per term
until the segment was closed): Whoosh's own hash-table writer, given compact buckets, writes the
same bytes; real Whoosh writers and segments on disk."""

from __future__ import annotations

import random
import tracemalloc

from whoosh.filedb.filestore import FileStorage
from whoosh.filedb.filetables import HashReader, OrderedHashWriter
from whoosh.reading import SegmentReader

from whylens.index.postings import compact_pool
from whylens.index.schema import build_schema
from whylens.index.term_table import CompactBucket, compact_buckets, compact_terms


def _documents(count: int, seed: int) -> list[dict]:
    """Documents with many terms seen once (shas, identifiers), as a history's commits have."""
    rnd = random.Random(seed)
    words = [f"w{n}" for n in range(2_000)]
    return [{"id": f"d{seed}-{n}", "type": "commit", "author": "Ada Lovelace",
             "text": " ".join(rnd.choice(words) for _ in range(60))
             + "".join(f" id{rnd.getrandbits(48):x}" for _ in range(30)),
             "paths": f"src/m{n % 40}/f{n % 90}.c", "ts": 1_600_000_000 + n, "weight": 1.0,
             "commit": f"c{n}"} for n in range(count)]


def _files(folder, segment) -> dict[str, bytes]:
    name = segment.segment_id()
    return {p.name[len(name):]: p.read_bytes() for p in folder.iterdir()
            if p.name.startswith(name)}


def _merge_the_small_ones(writer, segments) -> list:
    """A merge policy: the segments under 100 documents into the writer's new segment."""
    for segment in segments:
        if segment.doc_count_all() < 100:
            reader = SegmentReader(writer.storage, writer.schema, segment)
            writer.add_reader(reader)
            reader.close()
    return [s for s in segments if s.doc_count_all() >= 100]


def _write(folder, compact: bool) -> dict[str, bytes]:
    """Three segments, then a merge of the two small ones with new documents (as a rebuild's
    last write does): the merged segment's files."""
    folder.mkdir()
    ix = FileStorage(str(folder)).create_index(build_schema())
    for seed, count in ((1, 120), (2, 40), (3, 25)):
        writer = compact_pool(ix.writer(compound=False))
        if compact:
            compact_terms(writer)
        for doc in _documents(count, seed):
            writer.add_document(**doc)
        writer.commit(merge=False)
    writer = compact_pool(ix.writer(compound=False))
    if compact:
        compact_terms(writer)
    for doc in _documents(30, 4):
        writer.add_document(**doc)
    writer.commit(mergetype=_merge_the_small_ones)
    segments = sorted(ix._segments(), key=lambda s: s.doc_count_all())
    assert [s.doc_count_all() for s in segments] == [95, 120]
    return {**_files(folder, segments[0]), **{"first" + k: v for k, v in
                                               _files(folder, segments[1]).items()}}


def test_segments_written_with_the_compact_term_table_are_whooshs_bytes(tmp_path):
    whoosh = _write(tmp_path / "whoosh", compact=False)
    compact = _write(tmp_path / "compact", compact=True)
    assert ".trm" in whoosh and "first.trm" in whoosh
    assert compact == whoosh


def test_a_compact_bucket_reads_back_as_the_pairs_in_order():
    bucket = CompactBucket()
    pairs = [(0xFFFFFFFF, 2**40), (0, 7), (12345, 0), (12345, 1)]
    for pair in pairs:
        bucket.append(pair)
    assert len(bucket) == 4 and list(bucket) == pairs and list(bucket) == pairs


def _table(path, keys: list[bytes], compact: bool) -> int:
    """Write ``keys`` into an ``OrderedHashWriter``; its traced peak before the close."""
    storage = FileStorage(str(path.parent))
    table = OrderedHashWriter(storage.create_file(path.name))
    if compact:
        compact_buckets(table)
    tracemalloc.start()
    try:
        for key in keys:
            table.add(key, b"v")
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    table.close()
    return held


def test_the_term_table_holds_a_few_bytes_a_term(tmp_path):
    """40,000 terms: ~124 bytes each in Whoosh's buckets when this was written, ~17 here
    (16 in the arrays, the rest the position index Whoosh keeps either way)."""
    keys = sorted({b"\x00\x02" + f"t{n:07d}".encode() for n in range(40_000)})
    stock = _table(tmp_path / "stock.trm", keys, compact=False)
    compact = _table(tmp_path / "compact.trm", keys, compact=True)
    assert compact / len(keys) < 30, f"{compact / len(keys):.0f} bytes a term"
    assert stock / len(keys) > 90  # what the test would see without the compact buckets
    assert (tmp_path / "stock.trm").read_bytes() == (tmp_path / "compact.trm").read_bytes()
    reader = HashReader(FileStorage(str(tmp_path)).open_file("compact.trm"))
    assert reader[keys[12_345]] == b"v" and b"missing" not in reader
    reader.close()


def test_a_table_with_pairs_already_keeps_its_buckets(tmp_path):
    table = OrderedHashWriter(FileStorage(str(tmp_path)).create_file("t.trm"))
    table.add(b"a", b"1")
    lists = table.buckets
    compact_buckets(table)
    assert table.buckets is lists
    table.close()
