"""Symbol events and changed files keep every path and name once (``index/events.py``): the
index grows with the events, not with the length of the paths they repeat, the wide views give
back exactly the rows the old one-row-per-suffix tables held, and a removed commit leaves none
of its rows behind."""

from __future__ import annotations

import sqlite3

from whylens.index.analysis import symbol_tails
from whylens.index.sidecar import FILENAME
from whylens.index.store import IndexStore
from whylens.models import SymbolEvent

KINDS = ("added", "body", "signature", "body")


def history(commit, folder: str, commits: int = 120) -> tuple[list, list[SymbolEvent]]:
    """Commits that each change three nested methods of one of two files under ``folder``."""
    paths = [f"{folder}/Session.java", f"{folder}/Pool.java"]
    made, events = [], []
    for n in range(commits):
        path = paths[n % 2]
        c = commit(f"c{n}", n, f"Change {n}", files=[path])
        made.append(c)
        for name in ("Outer", "Outer.Inner", "Outer.Inner.call"):
            events.append(SymbolEvent(c.sha, path, name, KINDS[n % len(KINDS)]))
    return made, events


def index_of(index_dir, commits, events) -> sqlite3.Connection:
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_events(events)
        writer.add_commits(commits)
    folder = store.current_generation()
    assert folder is not None
    return sqlite3.connect(folder / FILENAME)


def wide_rows(commits, events) -> tuple[set, set]:
    """The rows the old wide ``events`` and ``commit_files`` tables held."""
    event_rows = {(tail, e.commit, e.path, e.symbol, e.kind, None)
                  for e in events for tail in symbol_tails(e.symbol)}
    file_rows = {(c.sha, ch.path, ch.status, ch.old_path) for c in commits for ch in c.changes}
    return event_rows, file_rows


def test_each_path_and_name_is_stored_once(tmp_path, build):
    commits, events = history(build.commit, "okhttp/src/jvmMain/kotlin/okhttp3/internal/connection")
    renamed = build.commit("move", 500, "Move Pool", renames=[(commits[1].changes[0].path,
                                                               "lib/Pool.java")])
    conn = index_of(tmp_path / "index", [*commits, renamed], events)
    assert conn.execute("SELECT COUNT(*) FROM files").fetchone()[0] == 3  # two paths + the new name
    assert conn.execute("SELECT COUNT(*) FROM symbols").fetchone()[0] == 6  # 3 names x 2 files
    assert conn.execute("SELECT COUNT(*) FROM symbol_events").fetchone()[0] == len(events)
    for table in ("symbol_events", "changed_files"):
        columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        assert "path" not in columns and "sha" in columns
    event_rows, file_rows = wide_rows([*commits, renamed], events)
    assert set(conn.execute("SELECT * FROM events")) == event_rows
    assert set(conn.execute("SELECT * FROM commit_files")) == file_rows


def test_the_index_does_not_grow_with_the_paths_it_repeats(tmp_path, build):
    sizes = {}
    for label, folder in (("short", "src"), ("long", "/".join(["deeply-nested-folder"] * 12))):
        commits, events = history(build.commit, folder, commits=600)
        conn = index_of(tmp_path / label, commits, events)
        (pages,) = conn.execute("PRAGMA page_count").fetchone()
        (page_size,) = conn.execute("PRAGMA page_size").fetchone()
        sizes[label] = pages * page_size
    # each path is 250 characters longer, repeated by 600 commits and 1,800 events: with the
    # paths in every row (and every index entry) this was more than twice the size
    assert sizes["long"] < sizes["short"] * 1.15, sizes


def test_a_removed_commit_leaves_no_event_or_changed_file(tmp_path, build):
    commits, events = history(build.commit, "src", commits=6)
    index_dir = tmp_path / "index"
    index_of(index_dir, commits, events).close()
    gone = commits[2].sha
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.remove_commits([gone])
    with store.reader() as reader:
        assert reader.events_of(gone) == []
        assert all(h.commit != gone for h in reader.symbol_history("call", "src/Session.java"))
        assert [h.commit for h in reader.file_history("src/Session.java")] == [
            c.sha for c in reversed(commits) if c.sha != gone and "Session" in c.changes[0].path]
    folder = store.current_generation()
    assert folder is not None
    conn = sqlite3.connect(folder / FILENAME)
    remaining = {row[0] for row in conn.execute("SELECT sha FROM events")}
    assert gone not in remaining and len(remaining) == 5
    assert gone not in {row[0] for row in conn.execute("SELECT sha FROM commit_files")}
