"""Exact lookups over the sidecar: symbols, histories (following renames), counts, stats."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator

from whylens.index.analysis import clean_text, normalise_path
from whylens.index.codec import load_record, load_unit
from whylens.index import events
from whylens.index.events import batches, marks
from whylens.index.sidecar import BLAME, PATTERN_FILES, has_table
from whylens.models import (
    FORMATTING_KIND, PITFALL_TYPES, CommitInfo, HistoryEntry, KnowledgeCounts, Record, Unit,
)

# File history leaves out commits that carry no intent for a reader of the file.
FILE_HISTORY_SKIPS = ("ignored", "trivial", "merge")
MAX_RENAME_HOPS = 32


def path_aliases(conn: sqlite3.Connection, path: str) -> list[str]:
    """``path`` and every name it had before, following file renames backwards."""
    seen = [normalise_path(path)]
    frontier = list(seen)
    while frontier and len(seen) < MAX_RENAME_HOPS:
        current = frontier.pop()
        for old in events.old_paths(conn, current):
            if old not in seen:
                seen.append(old)
                frontier.append(old)
    return seen


_in = marks


def items_sql(table: str, links: str, key: str, n_paths: int) -> str:
    """The symbol → units/records query, restricted to ``n_paths`` file names when > 0.

    The plan is fixed by hand: start from the symbol (``tail`` equality, tens of rows), then
    probe the (path, id) primary key of the files table once per row. Left to itself, sqlite (no
    ANALYZE statistics) walked every unit of the file first: 85 units of a symbol in a file with
    17k units took 6.6 ms instead of 0.2 ms. CROSS JOIN pins the join order.
    """
    sql = (
        f"SELECT DISTINCT t.id, t.ts, t.packed FROM {links} s CROSS JOIN {table} t "
        f"ON t.id = s.{key} WHERE s.tail = ?"
    )
    if n_paths:
        files = "unit_files" if table == "units" else "record_files"
        sql += (f" AND EXISTS (SELECT 1 FROM {files} f CROSS JOIN files p ON p.id = f.file "
                f"WHERE f.{key} = s.{key} AND p.path IN ({','.join('?' * n_paths)}))")
    return sql + " ORDER BY t.ts DESC, t.id"


def _items(conn, table, links, key, name, path, loader):
    aliases = path_aliases(conn, path) if path else []
    sql = items_sql(table, links, key, len(aliases))
    return [loader(row[2]) for row in conn.execute(sql, [clean_text(name)] + aliases)]


def units_for_symbol(conn, name: str, path: str | None = None) -> list[Unit]:
    """Units anchored to ``name`` (any dotted suffix matches), newest first."""
    return _items(conn, "units", "unit_symbols", "unit_id", name, path, load_unit)


def records_for_symbol(conn, name: str, path: str | None = None) -> list[Record]:
    return _items(conn, "records", "record_symbols", "record_id", name, path, load_record)


def ids_for_symbols(conn, names: list[str]) -> set[str]:
    """Ids of the units and records anchored to any of ``names`` (any dotted suffix matches)."""
    if not names:
        return set()
    marks = _in(names)
    found = {r[0] for r in conn.execute(
        f"SELECT unit_id FROM unit_symbols WHERE tail IN {marks}", names)}
    found |= {r[0] for r in conn.execute(
        f"SELECT record_id FROM record_symbols WHERE tail IN {marks}", names)}
    return found


_FIX_SUBJECT = re.compile(r"\b(?:fix(?:e[sd]|ing)?|bug|regression|crash(?:es|ed)?|revert(?:s|ed)?)\b",
                          re.I)


def fix_commits(conn, shas: list[str]) -> set[str]:
    """Those of ``shas`` whose subject says they fixed something."""
    found: set[str] = set()
    for part in batches(shas):
        found |= {sha for sha, subject in conn.execute(
            f"SELECT sha, subject FROM commits WHERE sha IN {_in(part)}", part)
            if _FIX_SUBJECT.search(subject or "")}
    return found


def superseding_candidates(conn, record: Record) -> list[Record]:
    """Records sharing an anchor with ``record`` that name something they supersede."""
    if not record.anchors:
        return []
    anchors = list(record.anchors)
    sql = (f"SELECT DISTINCT r.id, r.packed FROM record_symbols s JOIN records r "
           f"ON r.id = s.record_id WHERE s.tail IN {_in(anchors)} AND s.tail = s.symbol "
           "AND r.id != ?")
    found = (load_record(row[1]) for row in conn.execute(sql, anchors + [record.id]))
    return [r for r in found if r.supersedes]


def _entry(row, kind=None) -> HistoryEntry:
    sha, path, symbol, event_kind, previous, date, ts, author, subject, pr = row
    return HistoryEntry(
        commit=sha, date=date or "", timestamp=ts or 0, author=author or "",
        subject=subject or "", pr=pr, kind=kind or event_kind, path=path, symbol=symbol,
        previous=previous,
    )


def symbol_history(conn, name: str, path: str | None = None,
                   formatting: bool = False) -> list[HistoryEntry]:
    """Substantive events of a symbol, newest first; follows file renames, symbol renames and
    moves backwards (older events under the old name or path). ``formatting``: also the
    commits that only reformatted it, changed only its annotations or are in
    ``.git-blame-ignore-revs`` (``kind == "formatting"``)."""
    found: dict[tuple, HistoryEntry] = {}
    # (name, paths, only events up to this time); after the first lookup (any dotted suffix),
    # a rename or a move names the old definition exactly: Java's class ``MockResponse`` was
    # not its constructor ``MockResponse.MockResponse`` before it moved to Kotlin
    todo: list[tuple[str, list[str] | None, int | None]] = [
        (clean_text(name), path_aliases(conn, path) if path else None, None)
    ]
    visited: set[tuple] = set()
    while todo and len(visited) < MAX_RENAME_HOPS:
        current, paths, before = todo.pop()
        key = (current, tuple(paths) if paths else None)
        if key in visited:
            continue
        visited.add(key)
        for row in events.history_rows(conn, current, paths):
            entry = _entry(row)
            if before is not None and (entry.timestamp > before or entry.symbol != current):
                continue
            if entry.kind == FORMATTING_KIND and not formatting:
                continue
            found[(entry.commit, entry.path, entry.symbol, entry.kind)] = entry
            if entry.kind in ("renamed", "moved") and entry.previous:
                old_path, _, old_name = entry.previous.rpartition("::")
                old_paths = path_aliases(conn, old_path) if old_path else paths
                todo.append((old_name, old_paths, entry.timestamp))
    return sorted(found.values(), key=lambda e: (-e.timestamp, e.commit, e.path, e.symbol or ""))


def file_history(conn, path: str) -> list[HistoryEntry]:
    """Commits that touched ``path`` (or its earlier names), newest first."""
    aliases = path_aliases(conn, path)
    sql = (
        "SELECT cf.sha, f.path, NULL, 'file', o.path, c.date, c.ts, c.author, c.subject, c.pr "
        "FROM files f CROSS JOIN changed_files cf ON cf.file = f.id "
        "LEFT JOIN files o ON o.id = cf.old_file JOIN commits c ON c.sha = cf.sha "
        f"WHERE f.path IN {_in(aliases)} "
        f"AND (c.skip_reason IS NULL OR c.skip_reason NOT IN {_in(list(FILE_HISTORY_SKIPS))}) "
        "ORDER BY c.ts DESC, cf.sha"
    )
    return [_entry(row, "file") for row in conn.execute(sql, aliases + list(FILE_HISTORY_SKIPS))]


def knowledge_counts(conn: sqlite3.Connection, path: str) -> dict[str, KnowledgeCounts]:
    """{qualified symbol: its counts}, sorted by symbol; pitfalls are Pattern units.

    Pitfalls: Pattern units linked to the file (``pattern_files``) and to the symbol; an index
    written before that table existed is counted by joining the unit tables instead."""
    aliases = path_aliases(conn, path)
    if not has_table(conn, PATTERN_FILES):
        return knowledge_counts_by_join(conn, path)
    return _counts(conn, aliases, _PITFALLS_BY_FILES, aliases)


def knowledge_counts_by_join(conn: sqlite3.Connection, path: str) -> dict[str, KnowledgeCounts]:
    """``knowledge_counts`` from the unit tables alone (the fallback, and the tests' reference)."""
    aliases = path_aliases(conn, path)
    return _counts(conn, aliases, _PITFALLS_BY_JOIN, list(PITFALL_TYPES) + aliases)


_PITFALLS_BY_FILES = (
    "SELECT s.symbol, COUNT(DISTINCT s.unit_id) FROM " + PATTERN_FILES + " f "
    "CROSS JOIN unit_symbols s ON s.unit_id = f.unit_id AND s.tail = s.symbol "
    "WHERE f.file IN (SELECT id FROM files WHERE path IN {paths}) GROUP BY s.symbol"
)
_PITFALLS_BY_JOIN = (
    "SELECT s.symbol, COUNT(DISTINCT u.id) FROM unit_symbols s "
    "JOIN units u ON u.id = s.unit_id WHERE s.tail = s.symbol "
    f"AND u.type IN {_in(list(PITFALL_TYPES))} AND u.id IN "
    "(SELECT unit_id FROM unit_files WHERE file IN (SELECT id FROM files WHERE path IN {paths})) "
    "GROUP BY s.symbol"
)


def _counts(conn: sqlite3.Connection, aliases: list[str], pitfalls_sql: str,
            pitfall_args: list[str]) -> dict[str, KnowledgeCounts]:
    """Changes, pitfalls (by ``pitfalls_sql``) and records of each symbol of ``aliases``."""
    paths = _in(aliases)
    counts: dict[str, list[int]] = {}
    for symbol, n in events.change_counts(conn, aliases):
        counts.setdefault(symbol, [0, 0, 0])[2] = n
    queries = (
        (1, pitfalls_sql.format(paths=paths), pitfall_args),
        (0, "SELECT symbol, COUNT(DISTINCT record_id) FROM record_symbols WHERE tail = symbol "
            "AND record_id IN (SELECT record_id FROM record_files WHERE file IN "
            f"(SELECT id FROM files WHERE path IN {paths})) "
            "GROUP BY symbol", aliases),
    )
    for slot, sql, args in queries:
        for symbol, n in conn.execute(sql, args):
            counts.setdefault(symbol, [0, 0, 0])[slot] = n
    return {symbol: KnowledgeCounts(*values) for symbol, values in sorted(counts.items())}


def commit_info(conn, sha: str) -> CommitInfo | None:
    sql = "SELECT sha, author, date, ts, subject, pr, skip_reason FROM commits WHERE sha "
    if len(sha) == 40:
        rows = conn.execute(sql + "= ?", (sha,)).fetchall()
    else:
        rows = conn.execute(sql + "LIKE ? LIMIT 2", (sha.lower() + "%",)).fetchall()
    if len(rows) != 1:
        return None
    sha, author, date, ts, subject, pr, skip = rows[0]
    return CommitInfo(sha=sha, author=author or "", date=date or "", timestamp=ts or 0,
                      subject=subject or "", pr=pr, skip_reason=skip)


def commit_shas(conn) -> set[str]:
    return {row[0] for row in conn.execute("SELECT sha FROM commits")}


def has_commit(conn, sha: str) -> bool:
    return conn.execute("SELECT 1 FROM commits WHERE sha = ?", (sha,)).fetchone() is not None


def reverts_of(conn, sha: str) -> list[str]:
    """Shas of the commits that revert ``sha``."""
    return [r[0] for r in conn.execute(
        "SELECT reverting FROM reverts WHERE reverted = ? ORDER BY reverting", (sha,))]


def reverted_by(conn, sha: str) -> list[str]:
    """Shas of the commits that ``sha`` reverts (empty unless it is a revert)."""
    return [r[0] for r in conn.execute(
        "SELECT reverted FROM reverts WHERE reverting = ? ORDER BY reverted", (sha,))]


def reverts_touching(conn, path: str) -> list[tuple[str, str, str, int, bool]]:
    """Revert pairs where the revert or the reverted commit touched ``path`` (or an earlier
    name of it), whatever the commits' filter verdicts (a trivial one-line change can be
    reverted too): ``(reverted, reverting, the path as that commit names it, the revert's
    time, whether the reverting commit touched the file itself)``, newest revert first (of its
    reverted commits, those that changed the file first); the reverting commit's own name for
    the file wins. A revert made as a merge (which touches no file itself) is found through
    what it reverted."""
    aliases = path_aliases(conn, path)
    found: dict[tuple[str, str], tuple[str, str, str, int, bool]] = {}
    touched: set[str] = set()  # reverted commits that changed the file themselves
    for side in ("reverting", "reverted"):
        sql = (f"SELECT r.reverted, r.reverting, p.path, COALESCE(c.ts, 0) FROM files p "
               f"CROSS JOIN changed_files f ON f.file = p.id "
               f"JOIN reverts r ON r.{side} = f.sha LEFT JOIN commits c ON c.sha = r.reverting "
               f"WHERE p.path IN {_in(aliases)}")
        for reverted, reverting, named, ts in conn.execute(sql, aliases):
            found.setdefault((reverted, reverting), (reverted, reverting, named, ts, side == "reverting"))
            if side == "reverted":
                touched.add(reverted)
    # of one revert's reverted commits, those that changed the file first (not a merge)
    return sorted(found.values(), key=lambda row: (-row[3], row[1], row[0] not in touched, row[0]))


def iter_units(conn) -> Iterator[Unit]:
    for (text,) in conn.execute("SELECT packed FROM units ORDER BY ts, id"):
        yield load_unit(text)


def iter_records(conn) -> Iterator[Record]:
    for (text,) in conn.execute("SELECT packed FROM records ORDER BY ts, id"):
        yield load_record(text)


def load_items(conn, ids: list[str]) -> dict[str, Unit | Record]:
    """Units and records by id (ids not in the sidecar are left out)."""
    found: dict[str, Unit | Record] = {}
    if not ids:
        return found
    for doc_id, text in conn.execute(f"SELECT id, packed FROM units WHERE id IN {_in(ids)}", ids):
        found[doc_id] = load_unit(text)
    missing = [i for i in ids if i not in found]
    if missing:
        for doc_id, text in conn.execute(
            f"SELECT id, packed FROM records WHERE id IN {_in(missing)}", missing
        ):
            found[doc_id] = load_record(text)
    return found


def line_blame(conn: sqlite3.Connection, path: str, line: int) -> HistoryEntry | None:
    """The commit that last substantively changed ``line`` of ``path`` at the indexed revision
    (``kind == "line"``), or None when unknown."""
    if not has_table(conn, BLAME):
        return None
    row = conn.execute(
        f"SELECT b.end, b.sha FROM {BLAME} b WHERE b.file = (SELECT id FROM files WHERE path = ?) "
        "AND b.start <= ? "
        "ORDER BY b.start DESC LIMIT 1", (normalise_path(path), line)).fetchone()
    if row is None or row[0] < line:
        return None
    found = conn.execute("SELECT sha, date, ts, author, subject, pr FROM commits WHERE sha = ?",
                         (row[1].hex(),)).fetchone()
    if found is None:
        return None
    sha, date, ts, author, subject, pr = found
    return HistoryEntry(commit=sha, date=date or "", timestamp=ts or 0, author=author or "",
                        subject=subject or "", pr=pr, kind="line", path=normalise_path(path))


def totals(conn) -> tuple[int, int]:
    """(units, records), as ``stats`` counts them under ``units_total`` and ``records``."""
    units = conn.execute("SELECT COUNT(*) FROM units").fetchone()[0]
    return int(units), int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0])


def stats(conn, meta: dict, size_bytes: int) -> dict:
    one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    units_by_type = dict(conn.execute("SELECT type, COUNT(*) FROM units GROUP BY type ORDER BY 1"))
    commits = one("SELECT COUNT(*) FROM commits")
    anchor = meta.get("anchor_stats") or {}
    totals = events.event_totals(conn)
    return {
        "commits": commits,
        "filtered": dict(conn.execute(
            "SELECT skip_reason, COUNT(*) FROM commits WHERE skip_reason IS NOT NULL "
            "GROUP BY skip_reason ORDER BY 1")),
        "units": units_by_type,
        "units_total": sum(units_by_type.values()),
        "units_per_1k_commits": round(sum(units_by_type.values()) * 1000 / commits, 1)
        if commits else 0.0,
        "records": one("SELECT COUNT(*) FROM records"),
        # counted as cards and lenses count them: pitfalls are Pattern units; decisions are
        # records anchored to a symbol (housekeeping records never are)
        "pitfalls": sum(units_by_type.get(t, 0) for t in PITFALL_TYPES),
        "decisions": one("SELECT COUNT(DISTINCT record_id) FROM record_symbols"),
        **{key: totals[key] for key in ("events", "formatting_events")},
        "blame_runs": one(f"SELECT COUNT(*) FROM {BLAME}") if has_table(conn, BLAME) else 0,
        "symbols": totals["symbols"],
        "index_bytes": size_bytes,
        "index_bytes_per_1k_commits": round(size_bytes * 1000 / commits) if commits else 0,
        "commits_file_level": anchor.get("commits_file_level", 0),
        "commits_missing_objects": anchor.get("commits_missing_objects", 0),
        "partial_clone": bool(meta.get("partial_clone", False)),
        "last_commit": meta.get("last_sha"),
        "shallow": bool(meta.get("shallow", False)),
        "skipped_files": (meta.get("anchor_stats") or {}).get("files_skipped", {}),
        "schema_version": meta.get("schema_version"),
        "pipeline_version": meta.get("pipeline_version"),
        "updated": meta.get("updated"),
    }


events_of = events.events_of
