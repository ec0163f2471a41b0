"""The sqlite sidecar beside the Whoosh index: every exact-key fact, and units/records whole.

Whoosh answers text queries with ids; everything else (the units and records themselves, commits,
symbol events, renames, reverts, meta) is here, where an exact lookup costs microseconds and a
batch of inserts costs milliseconds. Symbol lookups go through ``tail`` columns that hold every
dotted suffix of a qualified name, so ``send``, ``Session.send`` and ``a.Session.send`` are each
one indexed equality (symbol events and changed files keep each path and name once: see
``events``). WAL mode: a reader is never blocked by a long write transaction, and a killed writer
loses only its uncommitted transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from whylens.index import events
from whylens.index.analysis import clean_text, normalise_path, symbol_tails
from whylens.index.codec import dump, iso_timestamp
from whylens.models import PITFALL_TYPES, Commit, Record, SymbolEvent, Unit

FILENAME = "sidecar.sqlite"

DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);  -- JSON values
CREATE TABLE IF NOT EXISTS commits (
    sha TEXT PRIMARY KEY, author TEXT, email TEXT, date TEXT, ts INTEGER, subject TEXT,
    pr INTEGER, skip_reason TEXT);
CREATE TABLE IF NOT EXISTS units (               -- packed: codec.dump (deflated JSON)
    id TEXT PRIMARY KEY, sha TEXT, ts INTEGER, type TEXT, packed BLOB);
CREATE INDEX IF NOT EXISTS units_sha ON units (sha);
CREATE INDEX IF NOT EXISTS units_order ON units (ts, id);
CREATE TABLE IF NOT EXISTS unit_symbols (          -- one row per dotted suffix of each symbol
    tail TEXT, symbol TEXT, unit_id TEXT, PRIMARY KEY (tail, symbol, unit_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS unit_symbols_unit ON unit_symbols (unit_id);
CREATE TABLE IF NOT EXISTS unit_files (            -- file: events.py's files.id
    file INTEGER, unit_id TEXT, PRIMARY KEY (file, unit_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS unit_files_unit ON unit_files (unit_id);
CREATE TABLE IF NOT EXISTS records (id TEXT PRIMARY KEY, ts INTEGER, packed BLOB);
CREATE INDEX IF NOT EXISTS records_order ON records (ts, id);
CREATE TABLE IF NOT EXISTS record_commits (
    sha TEXT, record_id TEXT, PRIMARY KEY (sha, record_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS record_commits_record ON record_commits (record_id);
CREATE TABLE IF NOT EXISTS record_symbols (
    tail TEXT, symbol TEXT, record_id TEXT, PRIMARY KEY (tail, symbol, record_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS record_symbols_record ON record_symbols (record_id);
CREATE TABLE IF NOT EXISTS record_files (
    file INTEGER, record_id TEXT, PRIMARY KEY (file, record_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS record_files_record ON record_files (record_id);
CREATE TABLE IF NOT EXISTS reverts (
    reverted TEXT, reverting TEXT, PRIMARY KEY (reverted, reverting)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS reverts_reverting ON reverts (reverting);
"""

# The code lens counts pitfalls (Pattern units) per symbol of a file: one row per (file, Pattern
# unit), joined to the unit's symbols. Linear in what is stored; the table it replaces held
# files × symbols × units (987 MB of 1.0 GB on redis/redis).
PATTERN_FILES = "pattern_files"
PATTERN_FILES_DDL = (
    f"CREATE TABLE IF NOT EXISTS {PATTERN_FILES} (file INTEGER, unit_id TEXT, "
    "PRIMARY KEY (file, unit_id)) WITHOUT ROWID",
    f"CREATE INDEX IF NOT EXISTS {PATTERN_FILES}_unit ON {PATTERN_FILES} (unit_id)",
)
# Blame of the indexed revision (``symbols.blame``): lines start..end of path were last changed
# substantively by the commit whose raw 20-byte id is ``sha`` (``file``: the path's files.id).
BLAME = "blame"
BLAME_DDL = (
    f"CREATE TABLE IF NOT EXISTS {BLAME} (file INTEGER, start INTEGER, end INTEGER, sha BLOB, "
    "PRIMARY KEY (file, start)) WITHOUT ROWID",
)
_FILE_ID = "(SELECT id FROM files WHERE path = ?)"



def connect_writer(folder: Path) -> sqlite3.Connection:
    """Open (creating) the sidecar for writing; the caller drives transactions explicitly."""
    conn = sqlite3.connect(folder / FILENAME, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")  # atomic on a kill; only power loss may lose the tail
    conn.execute("PRAGMA busy_timeout=5000")
    conn.executescript(DDL + events.DDL)
    for statement in BLAME_DDL:
        conn.execute(statement)
    ensure_pattern_files(conn)
    return conn


def ensure_pattern_files(conn: sqlite3.Connection) -> None:
    """Create and fill ``pattern_files`` in an index written before it existed (one
    transaction: a kill leaves the index as it was, and the next writer tries again)."""
    if has_table(conn, PATTERN_FILES):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        if not has_table(conn, PATTERN_FILES):
            for statement in PATTERN_FILES_DDL:
                conn.execute(statement)
            conn.execute(
                f"INSERT OR IGNORE INTO {PATTERN_FILES} SELECT f.file, u.id FROM units u "
                f"JOIN unit_files f ON f.unit_id = u.id WHERE u.type IN "
                f"({','.join('?' * len(PITFALL_TYPES))})", PITFALL_TYPES)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def has_table(conn: sqlite3.Connection, name: str) -> bool:
    """Whether the sidecar has table ``name`` (an index written by an older WhyLens may not)."""
    return conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone() is not None


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


def write_commits(conn: sqlite3.Connection, names: events.Names, commits: Iterable[Commit]) -> None:
    commits = list(commits)
    conn.executemany("INSERT OR REPLACE INTO commits VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
        (c.sha, clean_text(c.author), clean_text(c.email), c.date, c.timestamp,
         clean_text(c.subject), c.pr, c.skip_reason) for c in commits])
    events.write_changed_files(conn, names, commits)


def write_units(conn: sqlite3.Connection, names: events.Names, units: Iterable[Unit]) -> None:
    """Insert or replace units (idempotent: a unit id maps to one row and one set of links)."""
    units = list(units)
    ids = [(u.id,) for u in units]
    conn.executemany("DELETE FROM unit_symbols WHERE unit_id = ?", ids)
    conn.executemany("DELETE FROM unit_files WHERE unit_id = ?", ids)
    conn.executemany(f"DELETE FROM {PATTERN_FILES} WHERE unit_id = ?", ids)
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
        [(names.file(normalise_path(f)), u.id) for u in units for f in u.files],
    )
    last_type = {u.id: u.type for u in units}  # the last unit of an id sets its type
    conn.executemany(
        f"INSERT OR IGNORE INTO {PATTERN_FILES} VALUES (?, ?)",
        [(names.file(normalise_path(f)), u.id) for u in units if last_type[u.id] in PITFALL_TYPES
         for f in u.files],
    )


def write_records(conn: sqlite3.Connection, names: events.Names, records: Iterable[Record]) -> None:
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
        [(names.file(normalise_path(f)), r.id) for r in records for f in r.files],
    )


def stored_events(found: Iterable[SymbolEvent]) -> list[SymbolEvent]:
    """``events`` exactly as the index stores them and ``events_of`` reads them back: path and
    names normalised, one per (commit, path, symbol, kind) (a later duplicate's ``previous``
    wins, as INSERT OR REPLACE does), ordered by path, symbol, kind. The anchorer can emit one
    event twice (two nested functions of one name changed in one commit); a run that builds
    records from these and a resumed run that reads them back then count alike."""
    unique: dict[tuple[str, str, str, str], SymbolEvent] = {}
    for e in found:
        path, symbol = normalise_path(e.path), clean_text(e.symbol)
        previous = clean_text(e.previous) if e.previous else None
        unique[(e.commit, path, symbol, e.kind)] = SymbolEvent(e.commit, path, symbol, e.kind,
                                                              previous)
    return [unique[key] for key in sorted(unique)]


def write_blame(conn: sqlite3.Connection, names: events.Names, runs: Iterable) -> None:
    """``runs``: ``symbols.blame.BlameRun`` rows (a run replaces the one starting where it does)."""
    conn.executemany(
        f"INSERT OR REPLACE INTO {BLAME} VALUES (?, ?, ?, ?)",
        [(names.file(normalise_path(r.path)), r.start, r.end, bytes.fromhex(r.commit))
         for r in runs],
    )


def delete_blame(conn: sqlite3.Connection, paths: Iterable[str]) -> None:
    conn.executemany(f"DELETE FROM {BLAME} WHERE file = {_FILE_ID}",
                     [(normalise_path(p),) for p in paths])


def read_blame(conn: sqlite3.Connection, path: str) -> list[tuple[int, int, str]]:
    """(start, end, commit sha) of every run of ``path``, in line order."""
    return [(start, end, sha.hex()) for start, end, sha in conn.execute(
        f"SELECT start, end, sha FROM {BLAME} WHERE file = {_FILE_ID} ORDER BY start",
        (normalise_path(path),))]


def write_reverts(conn: sqlite3.Connection, pairs: Iterable[tuple[str, str]]) -> None:
    """``pairs`` are (reverting sha, reverted sha)."""
    conn.executemany(
        "INSERT OR IGNORE INTO reverts (reverted, reverting) VALUES (?, ?)",
        [(reverted, reverting) for reverting, reverted in pairs],
    )


def last_writers(conn: sqlite3.Connection, path: str, until: int, limit: int) -> list[str]:
    """The newest commits stored that touched ``path`` at or before unix time ``until``."""
    sql = ("SELECT f.sha FROM files p CROSS JOIN changed_files f ON f.file = p.id "
           "JOIN commits c ON c.sha = f.sha WHERE p.path = ? "
           "AND c.ts <= ? ORDER BY c.ts DESC, f.sha LIMIT ?")
    return [row[0] for row in conn.execute(sql, (path, until, limit))]


def files_of(conn: sqlite3.Connection, sha: str) -> list[str]:
    return [row[0] for row in conn.execute("SELECT p.path FROM changed_files f CROSS JOIN files p "
                                           "ON p.id = f.file WHERE f.sha = ?", (sha,))]


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
                       (PATTERN_FILES, "unit_id"), ("units", "id")):
        conn.executemany(f"DELETE FROM {table} WHERE {key} = ?", [(i,) for i in unit_ids])
    delete_records(conn, record_ids)
    events.delete_commits(conn, shas)
    conn.executemany("DELETE FROM commits WHERE sha = ?", [(s,) for s in shas])
    conn.executemany("DELETE FROM reverts WHERE reverting = ? OR reverted = ?",
                     [(s, s) for s in shas])


def delete_records(conn: sqlite3.Connection, record_ids: list[str]) -> None:
    """Remove records (e.g. a PR record absorbed into the issue it fixed)."""
    for table, key in (
        ("record_commits", "record_id"), ("record_symbols", "record_id"),
        ("record_files", "record_id"), ("records", "id"),
    ):
        conn.executemany(f"DELETE FROM {table} WHERE {key} = ?", [(i,) for i in record_ids])
