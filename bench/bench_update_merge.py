"""What an update's Whoosh merge costs on the segment layout a segmented backfill leaves.

A segmented backfill of a 100k-commit history (issue 14) left about twenty segments of a
thousand documents each beside its big ones; one later 10-commit update then merged 22,736
documents (11.7 s). This bench lays out that shape with real documents (the commit documents
of an existing index, built as the writer builds them), adds one update's segment, and commits
it with Whoosh's MERGE_SMALL (the policy before), with ``merges.merge_small_bounded`` (an
update's now) and with ``merges.merge_small_ones`` (what a rebuild's end now does, so that the
layout is never left this way). Each policy runs on its own copy of the same layout; the CPU
seconds of the commit and of a query afterwards are printed.

    python bench/bench_update_merge.py /path/to/index [--segments 20] [--size 1135]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from whoosh.filedb.filestore import FileStorage
from whoosh.writing import MERGE_SMALL

from whylens.index import commitdocs, merges
from whylens.index.documents import MEANING, unit_document
from whylens.index.schema import build_schema
from whylens.index.store import IndexStore


def _documents(index_dir: Path, wanted: int) -> list[dict]:
    store = IndexStore(index_dir)
    generation = store.current_generation()
    if generation is None:
        sys.exit(f"no index in {index_dir}")
    conn = sqlite3.connect(f"file:{generation / 'sidecar.sqlite'}?mode=ro", uri=True)
    ids = [row[0] for row in conn.execute("SELECT id FROM commit_docs ORDER BY id")]
    units = commitdocs.load(conn, ids)
    docs = []
    for n in range(wanted):  # copies get ids of their own when the index has too few
        unit = units[ids[n % len(ids)]]
        doc = {k: v for k, v in unit_document(unit).items() if k != MEANING}
        doc["id"] = f"{doc['id']}-{n // len(ids)}"
        docs.append(doc)
    return docs


def _layout(folder: Path, docs: list[dict], size: int) -> None:
    ix = FileStorage(str(folder)).create_index(build_schema())
    for start in range(0, len(docs), size):
        writer = ix.writer()
        for doc in docs[start:start + size]:
            writer.add_document(**doc)
        writer.commit(merge=False)


def _update(folder: Path, docs: list[dict], policy) -> tuple[float, int, int, int]:
    """CPU seconds of the update's commit, segments before and after, documents written."""
    ix = FileStorage(str(folder)).open_index()
    before = {s.segment_id() for s in ix._segments()}
    started = time.process_time()
    writer = ix.writer()
    for doc in docs:
        writer.add_document(**doc)
    writer.commit(mergetype=policy)
    seconds = time.process_time() - started
    after = ix._segments()
    written = sum(s.doc_count_all() for s in after if s.segment_id() not in before)
    return seconds, len(before), len(after), written


def _query_ms(folder: Path) -> float:
    """Median CPU milliseconds of an OR query over the layout (Whoosh's own search)."""
    from whoosh.qparser import OrGroup, QueryParser

    ix = FileStorage(str(folder)).open_index()
    query = QueryParser("text", ix.schema, group=OrGroup).parse("connection timeout retry lock")
    times = []
    with ix.searcher() as searcher:
        for _ in range(30):
            started = time.process_time()
            searcher.search(query, limit=50)
            times.append(time.process_time() - started)
    return sorted(times)[len(times) // 2] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("index", type=Path, help="an index folder (its commit documents are used)")
    parser.add_argument("--segments", type=int, default=20)
    parser.add_argument("--size", type=int, default=1_135, help="documents per segment")
    parser.add_argument("--update", type=int, default=20, help="documents of the update")
    args = parser.parse_args()
    docs = _documents(args.index, args.segments * args.size + args.update)
    layout_docs, update_docs = docs[:-args.update], docs[-args.update:]
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="whylens-merge-") as tmp:
        base = Path(tmp) / "layout"
        base.mkdir()
        _layout(base, layout_docs, args.size)
        for name, policy in (("MERGE_SMALL (before)", MERGE_SMALL),
                             ("merge_small_bounded", merges.merge_small_bounded),
                             ("merge_small_ones", merges.merge_small_ones)):
            copy = Path(tmp) / name.split()[0]
            shutil.copytree(base, copy)
            seconds, before, after, written = _update(copy, update_docs, policy)
            print(f"{name:22} {before} segments of {args.size} + {args.update} new docs: "
                  f"commit {seconds:6.2f} s CPU, {written} docs written, {after} segments after; "
                  f"a 4-word query then {_query_ms(copy):.1f} ms CPU (median of 30)")


if __name__ == "__main__":
    main()
