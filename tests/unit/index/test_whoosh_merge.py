"""The final merge of a rebuild: documents written into the merging writer give the index that
writing them as a segment and merging it gives (the speed-up of issue 14 must change nothing)."""

from __future__ import annotations

from whoosh.filedb.filestore import FileStorage

from whylens.index import whoosh_fixes  # noqa: F401 (installs)
from whylens.index.schema import build_schema
from whylens.index.merges import merge_all, merged_already


def _docs(start: int, count: int) -> list[dict]:
    # lengths past the exact range of Whoosh's one-byte length (it is exact up to a few dozen)
    return [{"id": f"d{n}", "type": "fact", "text": " ".join(f"word{n % 7}x{k}" for k in
                                                               range(20 + 37 * n)),
             "paths": f"src/f{n}.py", "author": "Ada", "ts": n, "weight": 1.0, "commit": f"c{n}"}
            for n in range(start, start + count)]


def _index(folder):
    folder.mkdir()
    return FileStorage(str(folder)).create_index(build_schema())


def _segment(ix, docs: list[dict]) -> None:
    writer = ix.writer()
    for doc in docs:
        writer.add_document(**doc)
    writer.commit(merge=False)


def _contents(ix) -> tuple:
    with ix.reader() as reader:
        ids = {n: fields["id"] for n, fields in reader.iter_docs()}
        lengths = sorted((ids[n], reader.doc_field_length(n, "text")) for n in ids)
        postings = []
        for name, text in reader.all_terms():
            matcher = reader.postings(name, text)
            items = []
            while matcher.is_active():
                items.append((ids[matcher.id()], matcher.weight(), matcher.value()))
                matcher.next()
            postings.append((name, text, sorted(items)))
        return (len(ix._segments()), reader.doc_count(), reader.field_length("text"),
                reader.max_field_length("text"), lengths, postings)


def test_documents_added_to_the_merging_writer_count_as_merged(tmp_path):
    first, last = _docs(0, 12), _docs(12, 9)
    before = _index(tmp_path / "before")
    _segment(before, first[:5])
    _segment(before, first[5:])
    _segment(before, last)  # the old way: the last batch as a segment, then OPTIMIZE
    before.writer().commit(optimize=True)

    after = _index(tmp_path / "after")
    _segment(after, first[:5])
    _segment(after, first[5:])
    writer = after.writer()
    merge_all(writer)
    for doc in last:
        writer.add_document(**doc)
    writer.commit(mergetype=merged_already)

    assert _contents(after) == _contents(before)
    assert _contents(after)[0] == 1


def test_a_segment_written_straight_totals_as_a_merged_one(tmp_path):
    """The total length BM25 divides by does not depend on whether documents were merged: one
    segment written straight (a rebuild whose final write merges nothing) holds what two
    segments merged hold (Whoosh alone: exact lengths against their one-byte roundings)."""
    first, last = _docs(0, 12), _docs(12, 9)
    merged = _index(tmp_path / "merged")
    _segment(merged, first)
    _segment(merged, last)
    merged.writer().commit(optimize=True)
    straight = _index(tmp_path / "straight")
    _segment(straight, first + last)
    assert _contents(straight) == _contents(merged)


def test_missing_length_columns_are_looked_up_once(tmp_path, monkeypatch):
    ix = _index(tmp_path / "ix")
    _segment(ix, _docs(0, 3))
    with ix.reader() as reader:
        perdoc = reader._perdoc
        calls = []
        exists = perdoc._storage.file_exists
        monkeypatch.setattr(perdoc._storage, "file_exists",
                            lambda name: calls.append(name) or exists(name))
        for n in range(3):
            assert perdoc.doc_field_length(n, "paths") == 0  # KEYWORD: no lengths column
            assert perdoc.doc_field_length(n, "text") > 0
        assert len(calls) <= 2
