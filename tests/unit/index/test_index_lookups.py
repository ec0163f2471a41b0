"""Exact lookups: symbol and file histories across renames, lens counts, reverts."""

from __future__ import annotations

import pytest

from whylens.index.store import IndexStore
from whylens.models import Record, SymbolEvent


@pytest.fixture
def history(index_dir, build):
    """f in a.py changed in c1, c2, c4; a.py → b.py in c5 (f renamed to g in c6);
    Session.send moved from a.py into net.py in c7; c3 is a formatting commit on a.py."""
    c = {
        1: build.commit("c1", 1, "Add f", files=["a.py"]),
        2: build.commit("c2", 2, "Make f retry", files=["a.py"], author="Grace Hopper", pr=12),
        3: build.commit("c3", 3, "Reformat", files=["a.py"], skip_reason="ignored"),
        4: build.commit("c4", 4, "f handles empty input", files=["a.py"]),
        5: build.commit("c5", 5, "Move a.py to b.py", renames=[("a.py", "b.py")]),
        6: build.commit("c6", 6, "Rename f to g", files=["b.py"]),
        7: build.commit("c7", 7, "Move send to net", files=["a2.py", "net.py"]),
    }
    events = [
        SymbolEvent(c[1].sha, "a.py", "f", "added"),
        SymbolEvent(c[2].sha, "a.py", "f", "body"),
        SymbolEvent(c[4].sha, "a.py", "f", "signature"),
        SymbolEvent(c[6].sha, "b.py", "g", "renamed", previous="f"),
        SymbolEvent(c[1].sha, "a2.py", "Session.send", "added"),
        SymbolEvent(c[7].sha, "net.py", "Session.send", "moved", previous="a2.py::Session.send"),
    ]
    units = [
        build.unit("p1", c[2], "f hangs", "f hangs when the server never answers", type="pattern",
                   symbols=["f"], files=["a.py"]),
        build.unit("s1", c[4], "empty input", "pass an empty list instead of None", type="skill",
                   symbols=["f"], files=["a.py"]),
        build.unit("f1", c[6], "g contract", "g must be called with a timeout", type="fact",
                   symbols=["g"], files=["b.py"]),
        build.unit("x1", c[7], "send", "Session.send must not block the loop", type="fact",
                   symbols=["Session.send"], files=["net.py"]),
    ]
    record = Record(id="pr-12", kind="pr", number=12, title="Retry f", fixing_commits=(c[2].sha,),
                    anchors=("f",), files=("a.py",))
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_commits(c.values())
        writer.add_events(events)
        writer.add_units(units)
        writer.add_records([record])
        writer.add_reverts([(c[4].sha, c[2].sha)])
    with store.reader() as reader:
        yield reader, c


def shas(entries, c):
    back = {commit.sha: n for n, commit in c.items()}
    return [back[e.commit] for e in entries]


def test_symbol_history_follows_symbol_and_file_renames(history):
    reader, c = history
    entries = reader.symbol_history("g", "b.py")
    assert shas(entries, c) == [6, 4, 2, 1]
    assert [e.kind for e in entries] == ["renamed", "signature", "body", "added"]
    assert entries[0].previous == "f" and entries[2].author == "Grace Hopper"
    assert entries[2].pr == 12 and entries[2].subject == "Make f retry"
    assert shas(reader.symbol_history("f", "a.py"), c) == [4, 2, 1]
    assert reader.symbol_history("f", "zzz.py") == []


def test_symbol_history_follows_moves_and_matches_dotted_suffixes(history):
    reader, c = history
    assert shas(reader.symbol_history("Session.send", "net.py"), c) == [7, 1]
    assert shas(reader.symbol_history("send"), c) == [7, 1]
    assert reader.symbol_history("ession.send") == []  # suffixes are whole components


def test_a_move_is_followed_to_the_old_definition_only(index_dir, build):
    """Java's class moved to Kotlin: its history goes on in the Java file, without the
    constructor of the same name, which a suffix lookup there would also match."""
    add = build.commit("add", 1, "Add MockResponse", files=["MockResponse.java"])
    ctor = build.commit("ctor", 2, "Check the status in the constructor", files=["MockResponse.java"])
    move = build.commit("move", 3, "Convert MockResponse to Kotlin",
                        files=["MockResponse.java", "MockResponse.kt"])
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_commits([add, ctor, move])
        writer.add_events([
            SymbolEvent(add.sha, "MockResponse.java", "MockResponse", "added"),
            SymbolEvent(add.sha, "MockResponse.java", "MockResponse.MockResponse", "added"),
            SymbolEvent(ctor.sha, "MockResponse.java", "MockResponse.MockResponse", "body"),
            SymbolEvent(move.sha, "MockResponse.java", "MockResponse.MockResponse", "deleted"),
            SymbolEvent(move.sha, "MockResponse.kt", "MockResponse", "moved",
                        previous="MockResponse.java::MockResponse")])
    with store.reader() as reader:
        entries = reader.symbol_history("MockResponse", "MockResponse.kt")
    assert [(e.commit, e.kind, e.symbol) for e in entries] == [
        (move.sha, "moved", "MockResponse"), (add.sha, "added", "MockResponse")]


def test_file_history_follows_renames_and_skips_formatting(history):
    reader, c = history
    assert shas(reader.file_history("b.py"), c) == [6, 5, 4, 2, 1]  # c3 is ignore-listed
    assert reader.file_history("b.py")[1].previous == "a.py"
    assert reader.file_history("nothing.py") == []


def test_units_and_records_for_symbol(history):
    reader, c = history
    assert [u.id for u in reader.units_for_symbol("f")] == ["s1", "p1"]  # newest first
    assert [u.id for u in reader.units_for_symbol("f", path="b.py")] == ["s1", "p1"]
    assert reader.units_for_symbol("f", path="net.py") == []
    assert [u.id for u in reader.units_for_symbol("send")] == ["x1"]
    assert [r.id for r in reader.records_for_symbol("f", path="b.py")] == ["pr-12"]


def test_knowledge_counts_for_the_lens(history):
    reader, c = history
    # pitfalls are Pattern units only: g's and Session.send's units are constraints (facts)
    assert reader.knowledge_counts("b.py") == {"f": (1, 1, 3), "g": (0, 0, 1)}
    assert reader.knowledge_counts("net.py") == {"Session.send": (0, 0, 1)}
    assert reader.knowledge_counts("none.py") == {}


def test_reverts_and_stats(history):
    reader, c = history
    assert reader.reverts_of(c[2].sha) == [c[4].sha]
    assert reader.reverts_of(c[4].sha) == []
    stats = reader.stats()
    assert stats["events"] == 6 and stats["filtered"] == {"ignored": 1}
    assert stats["records"] == 1 and stats["units_total"] == 4
    assert reader.totals() == (4, 1)  # the status line's two counts, without stats()' scans
