"""The sqlite sidecar beside the Whoosh index: every exact-key fact, and units/records whole.

Whoosh answers text queries with ids; everything else (the units and records themselves, commits,
symbol events, renames, reverts, meta) is here, where an exact lookup costs microseconds and a
batch of inserts costs milliseconds. Symbol lookups go through a ``tail`` column that holds every
dotted suffix of a qualified name, so ``send``, ``Session.send`` and ``a.Session.send`` are each
one indexed equality. WAL mode: a reader is never blocked by a long write transaction, and a
killed writer loses only its uncommitted transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from whylens.index.analysis import clean_text, normalise_path, symbol_tails
from whylens.index.codec import dump, iso_timestamp
from whylens.models import Commit, Record, SymbolEvent, Unit

FILENAME = "sidecar.sqlite"
PITFALL_TYPES = ("pattern",)  # "pitfalls" are Pattern units only, everywhere they are counted

DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);  -- JSON values
CREATE TABLE IF NOT EXISTS commits (
    sha TEXT PRIMARY KEY, author TEXT, email TEXT, date TEXT, ts INTEGER, subject TEXT,
    pr INTEGER, skip_reason TEXT);
CREATE TABLE IF NOT EXISTS commit_files (          -- one row per file a commit touched
    sha TEXT, path TEXT, status TEXT, old_path TEXT, PRIMARY KEY (sha, path)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS commit_files_path ON commit_files (path);
CREATE INDEX IF NOT EXISTS commit_files_old ON commit_files (old_path) WHERE old_path IS NOT NULL;
CREATE TABLE IF NOT EXISTS units (id TEXT PRIMARY KEY, sha TEXT, ts INTEGER, type TEXT, json TEXT);
CREATE INDEX IF NOT EXISTS units_sha ON units (sha);
CREATE INDEX IF NOT EXISTS units_order ON units (ts, id);
CREATE TABLE IF NOT EXISTS unit_symbols (          -- one row per dotted suffix of each symbol
    tail TEXT, symbol TEXT, unit_id TEXT, PRIMARY KEY (tail, symbol, unit_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS unit_symbols_unit ON unit_symbols (unit_id);
CREATE TABLE IF NOT EXISTS unit_files (
    path TEXT, unit_id TEXT, PRIMARY KEY (path, unit_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS unit_files_unit ON unit_files (unit_id);
CREATE TABLE IF NOT EXISTS records (id TEXT PRIMARY KEY, ts INTEGER, json TEXT);
CREATE INDEX IF NOT EXISTS records_order ON records (ts, id);
CREATE TABLE IF NOT EXISTS record_commits (
    sha TEXT, record_id TEXT, PRIMARY KEY (sha, record_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS record_commits_record ON record_commits (record_id);
CREATE TABLE IF NOT EXISTS record_symbols (
    tail TEXT, symbol TEXT, record_id TEXT, PRIMARY KEY (tail, symbol, record_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS record_symbols_record ON record_symbols (record_id);
CREATE TABLE IF NOT EXISTS record_files (
    path TEXT, record_id TEXT, PRIMARY KEY (path, record_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS record_files_record ON record_files (record_id);
CREATE TABLE IF NOT EXISTS events (                -- one row per (event, dotted suffix)
    tail TEXT, sha TEXT, path TEXT, symbol TEXT, kind TEXT, previous TEXT,
    PRIMARY KEY (tail, sha, path, symbol, kind)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_path ON events (path, symbol);
CREATE INDEX IF NOT EXISTS events_sha ON events (sha);
CREATE TABLE IF NOT EXISTS reverts (
    reverted TEXT, reverting TEXT, PRIMARY KEY (reverted, reverting)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS reverts_reverting ON reverts (reverting);
"""

# Added after schema 1 shipped, so created (and filled from the unit tables) by
# ``ensure_pitfall_links`` rather than by DDL: an older index gains it on its next write, and a
# reader falls back to the join when it is missing (``has_pitfall_links``). One row per
# (file, qualified symbol, Pattern/Fact unit): the lens counts a file's pitfalls from one
# primary-key range instead of joining every unit of the file (17k units: 40 ms → a few ms).
PITFALL_LINKS = "pitfall_links"
PITFALL_LINKS_DDL = (
    f"CREATE TABLE {PITFALL_LINKS} (path TEXT, symbol TEXT, unit_id TEXT, "
    "PRIMARY KEY (path, symbol, unit_id)) WITHOUT ROWID",
    f"CREATE INDEX {PITFALL_LINKS}_unit ON {PITFALL_LINKS} (unit_id)",
)
# The same rows derived from the unit tables (the definition the links must always match).
PITFALL_LINKS_FROM_UNITS = (
    "SELECT f.path, s.symbol, u.id FROM units u "
    "JOIN unit_symbols s ON s.unit_id = u.id AND s.tail = s.symbol "
    "JOIN unit_files f ON f.unit_id = u.id WHERE u.type IN (" + ",".join("?" * len(PITFALL_TYPES)) + ")"
)


def connect_writer(folder: Path) -> sqlite3.Connection:
    """Open (creating) the sidecar for writing; the caller drives transactions explicitly."""
    conn = sqlite3.connect(folder / FILENAME, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")  # atomic on a kill; only power loss may lose the tail
    conn.execute("PRAGMA busy_timeout=5000")
    conn.executescript(DDL)
    ensure_pitfall_links(conn)
    return conn


def has_pitfall_links(conn: sqlite3.Connection) -> bool:
    return conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (PITFALL_LINKS,)
    ).fetchone() is not None


def ensure_pitfall_links(conn: sqlite3.Connection) -> None:
    """Create and fill the pitfall links of an index written before they existed (one
    transaction: a kill leaves the index as it was, and the next writer tries again)."""
    if has_pitfall_links(conn):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        if not has_pitfall_links(conn):
            for statement in PITFALL_LINKS_DDL:
                conn.execute(statement)
            conn.execute(f"INSERT OR IGNORE INTO {PITFALL_LINKS} {PITFALL_LINKS_FROM_UNITS}",
                         PITFALL_TYPES)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _pitfall_links(units: list[Unit]) -> set[tuple[str, str, str]]:
    """The pitfall_links rows of ``units`` as ``write_units`` stores them: the last unit of an
    id sets its type, and its symbol and file rows are the union over the batch."""
    types: dict[str, str] = {}
    symbols: dict[str, set[str]] = {}
    files: dict[str, set[str]] = {}
    for u in units:
        types[u.id] = u.type
        symbols.setdefault(u.id, set()).update(
            clean_text(s) for s in u.symbols if clean_text(s) in symbol_tails(s))
        files.setdefault(u.id, set()).update(normalise_path(f) for f in u.files)
    return {(path, symbol, uid) for uid, kind in types.items() if kind in PITFALL_TYPES
            for symbol in symbols[uid] for path in files[uid]}


def connect_reader(folder: Path) -> sqlite3.Connection:
    """Open the sidecar read-only (``query_only``: a read can never take the write lock)."""
    path = folder / FILENAME
    if not path.is_file():
        raise FileNotFoundError(str(path))
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout=5000")
    conn.execute("PRAGMA query_only=ON")
    return conn


def read_meta(conn: sqlite3.Connection) -> dict:
    return {key: json.loads(value) for key, value in conn.execute("SELECT key, value FROM meta")}


def write_meta(conn: sqlite3.Connection, values: dict) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
        [(key, json.dumps(value)) for key, value in values.items()],
    )


def write_commits(conn: sqlite3.Connection, commits: Iterable[Commit]) -> None:
    rows, files = [], []
    for c in commits:
        rows.append((c.sha, clean_text(c.author), clean_text(c.email), c.date, c.timestamp,
                     clean_text(c.subject), c.pr, c.skip_reason))
        for change in c.changes:
            old = normalise_path(change.old_path) if change.old_path else None
            files.append((c.sha, normalise_path(change.path), change.status, old))
    conn.executemany("INSERT OR REPLACE INTO commits VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.executemany("INSERT OR REPLACE INTO commit_files VALUES (?, ?, ?, ?)", files)


def write_units(conn: sqlite3.Connection, units: Iterable[Unit]) -> None:
    """Insert or replace units (idempotent: a unit id maps to one row and one set of links)."""
    units = list(units)
    ids = [(u.id,) for u in units]
    conn.executemany("DELETE FROM unit_symbols WHERE unit_id = ?", ids)
    conn.executemany("DELETE FROM unit_files WHERE unit_id = ?", ids)
    conn.executemany(f"DELETE FROM {PITFALL_LINKS} WHERE unit_id = ?", ids)
    conn.executemany(
        "INSERT OR REPLACE INTO units VALUES (?, ?, ?, ?, ?)",
        [(u.id, u.commit, iso_timestamp(u.date), u.type, dump(u)) for u in units],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO unit_symbols VALUES (?, ?, ?)",
        [(t, clean_text(s), u.id) for u in units for s in u.symbols for t in symbol_tails(s)],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO unit_files VALUES (?, ?)",
        [(normalise_path(f), u.id) for u in units for f in u.files],
    )
    conn.executemany(f"INSERT OR IGNORE INTO {PITFALL_LINKS} VALUES (?, ?, ?)",
                     sorted(_pitfall_links(units)))


def write_records(conn: sqlite3.Connection, records: Iterable[Record]) -> None:
    records = list(records)
    ids = [(r.id,) for r in records]
    for table in ("record_commits", "record_symbols", "record_files"):
        conn.executemany(f"DELETE FROM {table} WHERE record_id = ?", ids)
    conn.executemany(
        "INSERT OR REPLACE INTO records VALUES (?, ?, ?)",
        [(r.id, iso_timestamp(r.date), dump(r)) for r in records],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO record_commits VALUES (?, ?)",
        [(sha, r.id) for r in records for sha in r.fixing_commits],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO record_symbols VALUES (?, ?, ?)",
        [(t, clean_text(s), r.id) for r in records for s in r.anchors for t in symbol_tails(s)],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO record_files VALUES (?, ?)",
        [(normalise_path(f), r.id) for r in records for f in r.files],
    )


def write_events(conn: sqlite3.Connection, events: Iterable[SymbolEvent]) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO events VALUES (?, ?, ?, ?, ?, ?)",
        [
            (tail, e.commit, normalise_path(e.path), clean_text(e.symbol), e.kind,
             clean_text(e.previous) if e.previous else None)
            for e in events
            for tail in symbol_tails(e.symbol)
        ],
    )


def write_reverts(conn: sqlite3.Connection, pairs: Iterable[tuple[str, str]]) -> None:
    """``pairs`` are (reverting sha, reverted sha)."""
    conn.executemany(
        "INSERT OR IGNORE INTO reverts (reverted, reverting) VALUES (?, ?)",
        [(reverted, reverting) for reverting, reverted in pairs],
    )


def ids_of_commits(conn: sqlite3.Connection, shas: list[str]) -> tuple[list[str], list[str]]:
    """(unit ids, record ids) that came from these commits."""
    units, records = [], []
    for sha in shas:
        units += [r[0] for r in conn.execute("SELECT id FROM units WHERE sha = ?", (sha,))]
        records += [
            r[0] for r in conn.execute("SELECT record_id FROM record_commits WHERE sha = ?", (sha,))
        ]
    return units, sorted(set(records))


def delete_commits(conn: sqlite3.Connection, shas: list[str]) -> None:
    """Remove everything these commits contributed (they left the history)."""
    unit_ids, record_ids = ids_of_commits(conn, shas)
    for table, key in (("unit_symbols", "unit_id"), ("unit_files", "unit_id"),
                       (PITFALL_LINKS, "unit_id"), ("units", "id")):
        conn.executemany(f"DELETE FROM {table} WHERE {key} = ?", [(i,) for i in unit_ids])
    delete_records(conn, record_ids)
    shas_rows = [(s,) for s in shas]
    for table in ("commits", "commit_files", "events"):
        conn.executemany(f"DELETE FROM {table} WHERE sha = ?", shas_rows)
    conn.executemany("DELETE FROM reverts WHERE reverting = ? OR reverted = ?",
                     [(s, s) for s in shas])


def delete_records(conn: sqlite3.Connection, record_ids: list[str]) -> None:
    """Remove records (e.g. a PR record absorbed into the issue it fixed)."""
    for table, key in (
        ("record_commits", "record_id"), ("record_symbols", "record_id"),
        ("record_files", "record_id"), ("records", "id"),
    ):
        conn.executemany(f"DELETE FROM {table} WHERE {key} = ?", [(i,) for i in record_ids])
