"""Digest of everything an index holds, to check that two builds hold the same thing.

    python bench/index_digest.py INDEX_DIR [--dump FILE]

Prints one sha256 per part: every sidecar table (rows sorted, the run's timestamps left out of
``meta``), and the Whoosh index: each document's stored fields, each field's terms with their
postings (document id, weight) and each document's field lengths (by id, not document number:
the order documents reach Whoosh already depends on when the writer flushes), and the
collection statistics BM25 reads. Two indexes with equal digests hold the same documents, fields,
terms and statistics, so search returns the same hits with the same scores. ``--dump`` writes the
canonical text the digests are computed from (to diff two builds that differ).

Used to check that the indexer's speed-ups (issue 14) changed nothing an index holds. Units and
records are compared as the JSON they store (pipeline 2.8 deflates it), so ``--no-version`` (the
pipeline version left out of ``meta``) compares an index with one built before a storage change.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
from pathlib import Path

from whoosh.filedb.filestore import FileStorage

from whylens.index.codec import unpack

TIME_KEYS = {"created", "updated", "indexed_at", "repo"}


# Schema 3 keys paths and names by integer ids, given in the order a run first meets them (which
# varies with flush timing): these tables are compared with the ids resolved to what they name.
_PATH = "(SELECT path FROM files WHERE id = {})"
RESOLVED = {
    "files": "SELECT path FROM files",
    "symbols": f"SELECT {_PATH.format('file')}, name FROM symbols",
    "symbol_tails": "SELECT t.tail, s.name, (SELECT path FROM files WHERE id = s.file) "
                    "FROM symbol_tails t JOIN symbols s ON s.id = t.symbol",
    "symbol_events": "SELECT * FROM events",
    "changed_files": "SELECT * FROM commit_files",
    "blame": f"SELECT {_PATH.format('file')}, start, end, sha FROM blame",
    **{table: f"SELECT {_PATH.format('file')}, {key} FROM {table}" for table, key in (
        ("unit_files", "unit_id"), ("record_files", "record_id"), ("pattern_files", "unit_id"))},
}


def current(index_dir: Path) -> Path:
    return index_dir / (index_dir / "CURRENT").read_text().strip()


def sidecar_parts(folder: Path, skip_keys: set[str] = TIME_KEYS) -> dict[str, list[str]]:
    conn = sqlite3.connect(f"file:{folder / 'sidecar.sqlite'}?mode=ro", uri=True)
    parts: dict[str, list[str]] = {}
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    for table in tables:
        query = RESOLVED.get(table, f"SELECT * FROM {table}") if "files" in tables else (
            f"SELECT * FROM {table}")
        rows = conn.execute(query).fetchall()
        if table == "meta":
            rows = [r for r in rows if r[0] not in skip_keys]
        if table in ("units", "records"):  # the stored item as JSON text, however it is stored
            rows = [tuple(unpack(v) if isinstance(v, bytes) else v for v in r) for r in rows]
        parts[f"sqlite:{table}"] = sorted(repr(r) for r in rows)
    conn.close()
    return parts


def whoosh_parts(folder: Path) -> dict[str, list[str]]:
    ix = FileStorage(str(folder / "whoosh")).open_index()
    parts: dict[str, list[str]] = {}
    with ix.reader() as reader:
        parts["whoosh:segments"] = [str(len(ix._segments()))]
        ids = {n: fields["id"] for n, fields in reader.iter_docs()}
        parts["whoosh:stored"] = sorted(json.dumps(fields, sort_keys=True, default=str)
                                        for _, fields in reader.iter_docs())
        stats = [f"doc_count {reader.doc_count()} {reader.doc_count_all()}"]
        lengths = []
        for name in sorted(ix.schema.names()):
            field = ix.schema[name]
            if field.scorable:
                stats.append(f"{name} total {reader.field_length(name)} "
                             f"max {reader.max_field_length(name)}")
                lengths += sorted(f"{name} {ids[n]} {reader.doc_field_length(n, name)}"
                                  for n in ids)
        parts["whoosh:stats"] = stats
        parts["whoosh:lengths"] = lengths
        postings = []
        for name, text in reader.all_terms():
            info = reader.term_info(name, text)
            items = sorted((ids[m.id()], round(m.weight(), 6))
                           for m in _iter(reader.postings(name, text)) if m.id() in ids)
            postings.append(f"{name} {text!r} {info.doc_frequency()} {info.weight():.6f} {items}")
        parts["whoosh:postings"] = postings
    ix.close()
    return parts


def _iter(matcher):
    while matcher.is_active():
        yield matcher
        matcher.next()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("index_dir")
    parser.add_argument("--dump", help="write the canonical text here")
    parser.add_argument("--no-segments", action="store_true",
                        help="leave the number of Whoosh segments out")
    parser.add_argument("--no-version", action="store_true",
                        help="leave the pipeline version out of meta")
    args = parser.parse_args()
    folder = current(Path(args.index_dir))
    skip = TIME_KEYS | ({"pipeline_version"} if args.no_version else set())
    parts = {**sidecar_parts(folder, skip), **whoosh_parts(folder)}
    if args.no_segments:
        parts.pop("whoosh:segments")
    dump = []
    total = hashlib.sha256()
    for name, lines in parts.items():
        text = "\n".join(lines)
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        total.update(digest.encode())
        print(f"{digest}  {name} ({len(lines)})")
        dump += [f"== {name}", text]
    print(f"{total.hexdigest()[:16]}  all")
    if args.dump:
        Path(args.dump).write_text("\n".join(dump), encoding="utf-8", errors="surrogatepass")


if __name__ == "__main__":
    main()
