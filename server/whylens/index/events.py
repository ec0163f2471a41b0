"""Symbol events and changed files in the sidecar, with every path and name stored once.

``files`` holds each path once and ``symbols`` each (file, qualified name) once;
``symbol_tails`` maps every dotted suffix of a name (``send``, ``Session.send``, …) to the
symbols it names, so a lookup by any suffix is one indexed equality. ``symbol_events`` has one
row per event (the commit as its raw 20-byte id) and ``changed_files`` one row per file a
commit touched, by file id. The wide tables they replace repeated the path and the sha in every
row, once per suffix, and again in each index entry: 42 of okhttp's 64 MB.

The views ``events`` and ``commit_files`` give that wide shape (one row per suffix; paths and
shas as text) to scripts and ad-hoc SQL; WhyLens's own queries, here and in ``lookups``, read
the tables.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence

from whylens.index.analysis import clean_text, normalise_path, symbol_tails
from whylens.models import FORMATTING_KIND, Commit, SymbolEvent

DDL = """
CREATE TABLE IF NOT EXISTS files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS symbols (
    id INTEGER PRIMARY KEY, file INTEGER NOT NULL, name TEXT NOT NULL, UNIQUE (file, name));
CREATE TABLE IF NOT EXISTS symbol_tails (
    tail TEXT, symbol INTEGER, PRIMARY KEY (tail, symbol)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS symbol_events (
    symbol INTEGER, sha BLOB, kind TEXT, previous TEXT, PRIMARY KEY (symbol, sha, kind))
    WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS symbol_events_sha ON symbol_events (sha);
CREATE TABLE IF NOT EXISTS changed_files (
    sha TEXT, file INTEGER, status TEXT, old_file INTEGER, PRIMARY KEY (sha, file)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS changed_files_file ON changed_files (file);
CREATE INDEX IF NOT EXISTS changed_files_old ON changed_files (old_file) WHERE old_file IS NOT NULL;
CREATE VIEW IF NOT EXISTS events (tail, sha, path, symbol, kind, previous) AS
    SELECT t.tail, lower(hex(e.sha)), f.path, s.name, e.kind, e.previous FROM symbol_events e
    JOIN symbols s ON s.id = e.symbol JOIN files f ON f.id = s.file
    JOIN symbol_tails t ON t.symbol = s.id;
CREATE VIEW IF NOT EXISTS commit_files (sha, path, status, old_path) AS
    SELECT c.sha, f.path, c.status, o.path FROM changed_files c JOIN files f ON f.id = c.file
    LEFT JOIN files o ON o.id = c.old_file;
"""

# An event with its symbol and file, for queries that add conditions on ``e``, ``s`` and ``f``.
EVENT_ROWS = ("symbol_events e CROSS JOIN symbols s ON s.id = e.symbol "
              "CROSS JOIN files f ON f.id = s.file")
# The symbols of files ``f`` and their events (start from the paths: a file has few symbols).
FILE_EVENTS = ("files f CROSS JOIN symbols s ON s.file = f.id "
               "CROSS JOIN symbol_events e ON e.symbol = s.id")
HEX_SHA = "lower(hex(e.sha))"  # an event's commit as the 40-hex text the other tables key by
MAX_CACHED = 50_000  # ids the writer remembers (paths and symbols) before it starts over


def raw_sha(sha: str) -> bytes:
    return bytes.fromhex(sha)


def marks(values: list) -> str:
    return "(" + ",".join("?" * len(values)) + ")"


IN_BATCH = 500  # values per ``IN (...)`` list (SQLite bounds a statement's parameters)


def batches(values: Sequence[str], size: int = IN_BATCH) -> Iterator[list[str]]:
    """``values`` in lists of at most ``size``, for one ``IN`` query each."""
    for start in range(0, len(values), size):
        yield list(values[start:start + size])


class Names:
    """A writer's ids of paths and symbols: each looked up once, inserted when new (the writer
    holds the index's write lock, so nobody else inserts). Bounded: it starts over when full."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._files: dict[str, int] = {}
        self._symbols: dict[tuple[int, str], int] = {}

    def file(self, path: str) -> int:
        """The id of ``path`` (normalised already)."""
        found = self._files.get(path)
        if found is None:
            if len(self._files) >= MAX_CACHED:
                self._files.clear()
            row = self._conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
            found = row[0] if row else self._insert("INSERT INTO files (path) VALUES (?)", (path,))
            self._files[path] = found
        return found

    def symbol(self, path: str, name: str) -> int:
        """The id of ``name`` in ``path`` (both normalised already), with its suffixes."""
        key = (self.file(path), name)
        found = self._symbols.get(key)
        if found is None:
            if len(self._symbols) >= MAX_CACHED:
                self._symbols.clear()
            row = self._conn.execute("SELECT id FROM symbols WHERE file = ? AND name = ?",
                                     key).fetchone()
            if row:
                found = row[0]
            else:
                found = self._insert("INSERT INTO symbols (file, name) VALUES (?, ?)", key)
                self._conn.executemany("INSERT OR IGNORE INTO symbol_tails VALUES (?, ?)",
                                       [(tail, found) for tail in symbol_tails(name)])
            self._symbols[key] = found
        return found

    def _insert(self, sql: str, args: tuple) -> int:
        row_id = self._conn.execute(sql, args).lastrowid
        assert row_id is not None
        return row_id


def write_events(conn: sqlite3.Connection, names: Names, events: Iterable[SymbolEvent]) -> None:
    """One row per event (a repeated one replaces the earlier: its ``previous`` wins)."""
    rows = []
    for e in events:
        name = clean_text(e.symbol)
        if not symbol_tails(name):
            continue  # a name with no suffix can never be looked up
        rows.append((names.symbol(normalise_path(e.path), name), raw_sha(e.commit), e.kind,
                     clean_text(e.previous) if e.previous else None))
    conn.executemany("INSERT OR REPLACE INTO symbol_events VALUES (?, ?, ?, ?)", rows)


def write_changed_files(conn: sqlite3.Connection, names: Names, commits: Iterable[Commit]) -> None:
    rows = []
    for c in commits:
        for change in c.changes:
            old = names.file(normalise_path(change.old_path)) if change.old_path else None
            rows.append((c.sha, names.file(normalise_path(change.path)), change.status, old))
    conn.executemany("INSERT OR REPLACE INTO changed_files VALUES (?, ?, ?, ?)", rows)


def delete_commits(conn: sqlite3.Connection, shas: list[str]) -> None:
    """Forget the events and changed files of ``shas`` (their paths and names may stay)."""
    conn.executemany("DELETE FROM symbol_events WHERE sha = ?", [(raw_sha(s),) for s in shas])
    conn.executemany("DELETE FROM changed_files WHERE sha = ?", [(s,) for s in shas])


def events_of(conn: sqlite3.Connection, sha: str) -> list[SymbolEvent]:
    """The substantive events one commit was indexed with (formatting left out: never a change)."""
    rows = conn.execute(
        f"SELECT f.path, s.name, e.kind, e.previous FROM {EVENT_ROWS} WHERE e.sha = ? "
        "AND e.kind != ? ORDER BY f.path, s.name, e.kind", (raw_sha(sha), FORMATTING_KIND))
    return [SymbolEvent(sha, path, symbol, kind, previous) for path, symbol, kind, previous in rows]


def symbols_of_commit(conn: sqlite3.Connection, sha: str, limit: int) -> tuple[str, ...]:
    """The names a commit changed substantively, sorted, at most ``limit``."""
    return tuple(r[0] for r in conn.execute(
        f"SELECT DISTINCT s.name FROM {EVENT_ROWS} WHERE e.sha = ? AND e.kind != ? "
        "ORDER BY s.name LIMIT ?", (raw_sha(sha), FORMATTING_KIND, limit)))


def changed_symbols(conn: sqlite3.Connection, sha: str) -> list[tuple[str, str]]:
    """(path, name) of every symbol a commit changed substantively."""
    return conn.execute(f"SELECT DISTINCT f.path, s.name FROM {EVENT_ROWS} WHERE e.sha = ? "
                        "AND e.kind != ?", (raw_sha(sha), FORMATTING_KIND)).fetchall()


def changed_paths(conn: sqlite3.Connection, sha: str, limit: int) -> tuple[str, ...]:
    """The paths a commit touched, sorted, at most ``limit``."""
    return tuple(r[0] for r in conn.execute(
        "SELECT f.path FROM changed_files c CROSS JOIN files f ON f.id = c.file WHERE c.sha = ? "
        "ORDER BY f.path LIMIT ?", (sha, limit)))


def history_rows(conn: sqlite3.Connection, tail: str, paths: list[str] | None) -> list[tuple]:
    """(sha, path, name, kind, previous, date, ts, author, subject, pr) of every event of the
    symbols ``tail`` names (any dotted suffix), in ``paths`` when given."""
    sql = (f"SELECT {HEX_SHA}, f.path, s.name, e.kind, e.previous, c.date, c.ts, c.author, "
           f"c.subject, c.pr FROM symbol_tails t CROSS JOIN symbols s ON s.id = t.symbol "
           f"CROSS JOIN files f ON f.id = s.file CROSS JOIN symbol_events e ON e.symbol = s.id "
           f"LEFT JOIN commits c ON c.sha = {HEX_SHA} WHERE t.tail = ?")
    args: list = [tail]
    if paths:
        sql += f" AND f.path IN {marks(paths)}"
        args += paths
    return conn.execute(sql, args).fetchall()


def change_counts(conn: sqlite3.Connection, paths: list[str]) -> list[tuple[str, int]]:
    """(name, commits that changed it substantively) for every symbol of ``paths``."""
    return conn.execute(
        f"SELECT s.name, COUNT(DISTINCT e.sha) FROM {FILE_EVENTS} WHERE f.path IN {marks(paths)} "
        "AND e.kind != ? GROUP BY s.name", [*paths, FORMATTING_KIND]).fetchall()


def symbol_change_count(conn: sqlite3.Connection, path: str, name: str) -> int:
    (total,) = conn.execute(
        f"SELECT COUNT(DISTINCT e.sha) FROM {FILE_EVENTS} WHERE f.path = ? AND s.name = ? "
        "AND e.kind != ?", (path, name, FORMATTING_KIND)).fetchone()
    return int(total)


def file_change_count(conn: sqlite3.Connection, path: str) -> int:
    (total,) = conn.execute("SELECT COUNT(*) FROM files f CROSS JOIN changed_files c "
                            "ON c.file = f.id WHERE f.path = ?", (path,)).fetchone()
    return int(total)


def old_paths(conn: sqlite3.Connection, path: str) -> list[str]:
    """The names ``path`` was renamed from (one step back)."""
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT o.path FROM files f CROSS JOIN changed_files c ON c.file = f.id "
        "CROSS JOIN files o ON o.id = c.old_file WHERE f.path = ? AND c.old_file IS NOT NULL",
        (path,))]


def event_totals(conn: sqlite3.Connection) -> dict[str, int]:
    """``stats``'s counts: substantive and formatting events, symbols with any event."""
    by_kind = dict(conn.execute("SELECT kind = ?, COUNT(*) FROM symbol_events GROUP BY 1",
                                (FORMATTING_KIND,)).fetchall())
    (symbols,) = conn.execute("SELECT COUNT(*) FROM symbols s WHERE EXISTS "
                              "(SELECT 1 FROM symbol_events e WHERE e.symbol = s.id)").fetchone()
    return {"events": int(by_kind.get(0, 0)), "formatting_events": int(by_kind.get(1, 0)),
            "symbols": int(symbols)}
