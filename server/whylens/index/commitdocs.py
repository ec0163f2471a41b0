"""Commit documents: every commit that passes the filters is searchable, not only its units.

A commit document is the commit's subject and its search prose (``prose.search_prose``: code
spans and error lines kept) followed by the changelog entry its diff adds (``changelog.entry``:
the developer's own words, so searched and quotable like the message), its files and symbols,
and its PR number. It is indexed in Whoosh as
type ``commit`` (id ``msg-<sha12>``) and kept in the sidecar's ``commit_docs`` table; read back it
is a ``Unit`` of type ``commit`` (``COMMIT_TYPE``): the undistilled layer, labelled as such, which
every consumer of units already knows how to cite. Answer sentences are picked from its prose at
query time (``retrieval/snippets.py``), so writing one costs one row and one Whoosh document.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

from whylens.index.analysis import clean_text, normalise_path
from whylens.index.prose import clean_line, search_prose
from whylens.index.events import HEX_SHA, changed_paths, marks, symbols_of_commit
from whylens.models import COMMIT_TYPE, FORMATTING_KIND, Commit, Unit

PREFIX = "msg-"
COMMIT_WEIGHT = 1.0  # the prior a commit document ranks with (units carry their heuristic's)
MAX_FILES = 40  # files and symbols a document is searched by (big commits touch hundreds)
MAX_SYMBOLS = 40

_WORD = re.compile(r"\w+")

DDL = """
CREATE TABLE IF NOT EXISTS commit_docs (id TEXT PRIMARY KEY, sha TEXT, prose TEXT,
    entry TEXT NOT NULL DEFAULT '');  -- entry: the prose's lines from the changelog entry
CREATE INDEX IF NOT EXISTS commit_docs_sha ON commit_docs (sha);
"""


def doc_id(sha: str) -> str:
    return PREFIX + sha[:12]


def is_commit_doc(item_id: str) -> bool:
    return item_id.startswith(PREFIX)


def searchable(commit: Commit) -> bool:
    """A commit the filters kept (bots, releases, trivial edits and bare merges have no doc)."""
    return commit.skip_reason is None


def write(conn: sqlite3.Connection, commits: Iterable[Commit]) -> list[Unit]:
    """Store the documents of ``commits`` (those the filters kept); returns them as units.
    Their symbols are the events already written for them in this transaction."""
    docs: list[Unit] = []
    rows = []
    for commit in commits:
        if not searchable(commit):
            continue
        title = clean_text(clean_line(commit.subject))
        message = search_prose(commit.body)
        extra = _entry_lines(message, commit.changelog, title)
        prose = clean_text("\n".join(filter(None, [message, *extra])))
        symbols = symbols_of_commit(conn, commit.sha, MAX_SYMBOLS)
        files = tuple(dict.fromkeys(normalise_path(c.path) for c in commit.changes))[:MAX_FILES]
        docs.append(Unit(
            id=doc_id(commit.sha), type=COMMIT_TYPE, title=title,
            content=prose, weight=COMMIT_WEIGHT, context="", commit=commit.sha,
            author=clean_text(commit.author), date=commit.date, files=files, symbols=symbols,
            source="commit", pr=commit.pr))
        rows.append((doc_id(commit.sha), commit.sha, prose, clean_text("\n".join(extra))))
    conn.executemany("INSERT OR REPLACE INTO commit_docs VALUES (?, ?, ?, ?)", rows)
    return docs


def _entry_lines(prose: str, entry: str, title: str) -> list[str]:
    """The changelog entry's lines neither the message's prose nor the title says (they follow
    the prose in the document)."""
    if not entry:
        return []
    held = {_key(line) for line in [title, *prose.split("\n")]}
    return [line for line in entry.split("\n") if line and _key(line) not in held]


def entry_lines(conn: sqlite3.Connection, shas: list[str]) -> dict[str, frozenset[str]]:
    """Per commit, the lines of its document's prose that come from its changelog entry, not
    its message (none for an index written before they were kept apart)."""
    if not shas:
        return {}
    try:
        rows = conn.execute(f"SELECT sha, entry FROM commit_docs WHERE sha IN {marks(shas)} "
                            "AND entry != ''", shas).fetchall()
    except sqlite3.OperationalError:  # an older index: no such column
        return {}
    return {sha: frozenset(entry.split("\n")) for sha, entry in rows}


def _key(line: str) -> str:
    return " ".join(_WORD.findall(line.lower()))


def load(conn: sqlite3.Connection, ids: list[str]) -> dict[str, Unit]:
    """Commit documents by id, as units of type ``commit`` (unknown ids are left out)."""
    found: dict[str, Unit] = {}
    wanted = [i for i in ids if is_commit_doc(i)]
    if not wanted:
        return found
    rows = conn.execute(
        "SELECT d.id, d.sha, d.prose, c.subject, c.author, c.date, c.pr FROM commit_docs d "
        f"JOIN commits c ON c.sha = d.sha WHERE d.id IN {marks(wanted)}", wanted).fetchall()
    for item_id, sha, prose, subject, author, date, pr in rows:
        files = changed_paths(conn, sha, MAX_FILES)
        symbols = symbols_of_commit(conn, sha, MAX_SYMBOLS)
        found[item_id] = Unit(
            id=item_id, type=COMMIT_TYPE, title=clean_line(subject or ""), content=prose or "",
            weight=COMMIT_WEIGHT, context="", commit=sha, author=author or "", date=date or "",
            files=files, symbols=symbols, source="commit", pr=pr)
    return found


def ids_for_symbols(conn: sqlite3.Connection, names: list[str]) -> set[str]:
    """Ids of the commit documents whose commit changed any of ``names`` (any dotted suffix)."""
    if not names:
        return set()
    return {r[0] for r in conn.execute(
        "SELECT d.id FROM symbol_tails t CROSS JOIN symbol_events e ON e.symbol = t.symbol "
        f"CROSS JOIN commit_docs d ON d.sha = {HEX_SHA} WHERE t.tail IN {marks(names)} "
        "AND e.kind != ?", [*names, FORMATTING_KIND])}


def recent_ids(conn: sqlite3.Connection, paths: list[str], limit: int) -> list[str]:
    """Ids of the newest commit documents whose commits touched any of ``paths``."""
    if not paths or limit <= 0:
        return []
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT d.id, c.ts FROM files f CROSS JOIN changed_files cf ON cf.file = f.id "
        "JOIN commit_docs d ON d.sha = cf.sha JOIN commits c ON c.sha = cf.sha "
        f"WHERE f.path IN {marks(paths)} ORDER BY c.ts DESC LIMIT ?", [*paths, limit])]


def ids_of_commits(conn: sqlite3.Connection, shas: list[str]) -> list[str]:
    out: list[str] = []
    for sha in shas:
        out += [r[0] for r in conn.execute("SELECT id FROM commit_docs WHERE sha = ?", (sha,))]
    return out


def delete(conn: sqlite3.Connection, shas: list[str]) -> None:
    conn.executemany("DELETE FROM commit_docs WHERE sha = ?", [(s,) for s in shas])


def count(conn: sqlite3.Connection) -> int:
    return conn.execute("SELECT COUNT(*) FROM commit_docs").fetchone()[0]
