"""The code lens counts stay exact as the index changes: pitfalls are Pattern units only, and the
``pattern_files`` table the writer keeps must give what the join over the unit tables gives,
after adds, idempotent re-adds, replacements, removed commits, renames, and on an index written
before the table existed. Formatting-only events are not changes."""

from __future__ import annotations

import sqlite3

import pytest

from whylens.index import lookups, sidecar
from whylens.index.store import IndexStore
from whylens.models import Record, SymbolEvent

FILES = ("a.py", "b.py", "c.py", "lib.py")


@pytest.fixture
def lens(index_dir, build):
    """a.py → b.py in c3; c.py and lib.py are never renamed. Returns (store, commits, units)."""
    c = {
        1: build.commit("c1", 1, "Add f", files=["a.py", "c.py"]),
        2: build.commit("c2", 2, "Fix f", files=["a.py"]),
        3: build.commit("c3", 3, "Move a.py to b.py", renames=[("a.py", "b.py")]),
        4: build.commit("c4", 4, "Fix h", files=["b.py", "lib.py"]),
    }
    units = {
        "p1": build.unit("p1", c[2], "f hangs", "f hangs", type="pattern", symbols=["f", "K.m"],
                         files=["a.py"]),
        # linked to the old and the new name of one file: counted once for b.py
        "p2": build.unit("p2", c[3], "f moved", "f moved", type="pattern", symbols=["f"],
                         files=["a.py", "b.py"]),
        "s1": build.unit("s1", c[2], "f fix", "retry f", type="skill", symbols=["f"],
                         files=["a.py"]),
        "k1": build.unit("k1", c[2], "f rule", "f must hold", type="fact", symbols=["f"],
                         files=["a.py"]),  # a constraint: never counted as a pitfall
        "x1": build.unit("x1", c[4], "h and g", "h needs g", type="pattern",
                         symbols=["h", "lib.g"], files=["b.py", "lib.py"]),
        "x2": build.unit("x2", c[1], "c", "c init", type="pattern", symbols=["init"],
                         files=["c.py"]),
    }
    events = [SymbolEvent(c[1].sha, "a.py", "f", "added"),
              SymbolEvent(c[2].sha, "a.py", "f", "body"),
              SymbolEvent(c[4].sha, "b.py", "h", "added")]
    record = Record(id="pr-1", kind="pr", number=1, title="Fix f", fixing_commits=(c[2].sha,),
                    anchors=("f",), files=("a.py",))
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_commits(c.values())
        writer.add_events(events)
        writer.add_units(units.values())
        writer.add_records([record])
    return store, c, units


def all_counts(store) -> dict:
    """Counts of every file, checked against the join (the definition) before returning."""
    with store.reader() as reader:
        out = {path: reader.knowledge_counts(path) for path in FILES}
        for path in FILES:
            assert out[path] == lookups.knowledge_counts_by_join(reader._conn, path), path
    return out


EXPECTED = {
    "a.py": {"K.m": (0, 1, 0), "f": (1, 2, 2)},
    # a.py's history too; p2 counted once though linked to both names
    "b.py": {"K.m": (0, 1, 0), "f": (1, 2, 2), "h": (0, 1, 1), "lib.g": (0, 1, 0)},
    "c.py": {"init": (0, 1, 0)},
    "lib.py": {"h": (0, 1, 0), "lib.g": (0, 1, 0)},
}


def test_counts_after_add_and_an_idempotent_re_add(lens):
    store, c, units = lens
    assert all_counts(store) == EXPECTED
    with store.writer() as writer:  # the same units again, in two batches, one twice
        writer.add_units(list(units.values())[:2])
        writer.add_units(list(units.values()) + [units["p1"]])
    assert all_counts(store) == EXPECTED


def test_counts_after_replacing_units(lens, build):
    store, c, units = lens
    with store.writer() as writer:
        writer.add_units([
            build.unit("p1", c[2], "f hangs", "f hangs", type="skill", symbols=["f", "K.m"],
                       files=["a.py"]),  # no longer a pitfall
            build.unit("s1", c[2], "f fix", "f fails", type="pattern", symbols=["f", "K.n"],
                       files=["a.py"]),  # becomes one, with another symbol
            build.unit("x1", c[4], "h", "h needs care", type="pattern", symbols=["h"],
                       files=["lib.py"]),  # loses a symbol and a file
        ])
    assert all_counts(store) == {
        "a.py": {"K.n": (0, 1, 0), "f": (1, 2, 2)},
        "b.py": {"K.n": (0, 1, 0), "f": (1, 2, 2), "h": (0, 0, 1)},
        "c.py": {"init": (0, 1, 0)},
        "lib.py": {"h": (0, 1, 0)},
    }


def test_counts_after_removing_commits(lens):
    store, c, units = lens
    with store.writer() as writer:
        writer.remove_commits([c[2].sha, c[4].sha])
    assert all_counts(store) == {
        "a.py": {"f": (0, 1, 1)},
        "b.py": {"f": (0, 1, 1)},
        "c.py": {"init": (0, 1, 0)},
        "lib.py": {},
    }


def test_formatting_events_are_not_counted_as_changes(lens):
    store, c, units = lens
    with store.writer() as writer:
        writer.add_events([SymbolEvent(c[4].sha, "b.py", "f", "formatting")])
    assert all_counts(store) == EXPECTED
    with store.reader() as reader:
        assert [e.kind for e in reader.symbol_history("f", "b.py")] == ["body", "added"]
        assert [e.kind for e in reader.symbol_history("f", "b.py", formatting=True)] == [
            "formatting", "body", "added"]


def test_an_index_written_before_the_table_falls_back_then_gains_it(lens, build):
    store, c, units = lens
    folder = store.current_generation()
    conn = sqlite3.connect(folder / sidecar.FILENAME)
    conn.execute(f"DROP TABLE {sidecar.PATTERN_FILES}")
    conn.commit()
    conn.close()
    assert all_counts(store) == EXPECTED  # the reader joins the unit tables
    with store.reader() as reader:
        assert not sidecar.has_table(reader._conn, sidecar.PATTERN_FILES)
    with store.writer() as writer:  # the next write fills the table from the units, then adds
        writer.add_units([build.unit("n1", c[4], "h", "h leaks", type="pattern", symbols=["h"],
                                     files=["b.py"])])
    with store.reader() as reader:
        assert sidecar.has_table(reader._conn, sidecar.PATTERN_FILES)
    expected = {**EXPECTED, "b.py": {**EXPECTED["b.py"], "h": (0, 2, 1)}}
    assert all_counts(store) == expected
