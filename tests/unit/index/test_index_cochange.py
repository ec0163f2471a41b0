"""Co-change counts (code-maat style support and confidence) and the reverse revert lookup."""

from __future__ import annotations

import pytest

from whylens.index.store import IndexStore
from whylens.models import SymbolEvent


@pytest.fixture
def coupled(index_dir, build):
    """a.py and b.py change together in c1..c6, a.py alone in c7; c8 touches a.py with 40 other
    files (too big to say anything); c9 is a release commit touching a.py and CHANGES.
    Symbols: a.f and b.g change together in c1..c5; c10 reverts c7."""
    c = {n: build.commit(f"c{n}", n, f"change {n}", files=["a.py", "b.py"]) for n in range(1, 7)}
    c[7] = build.commit("c7", 7, "a alone", files=["a.py"])
    c[8] = build.commit("c8", 8, "sweep", files=["a.py", *[f"x{i}.py" for i in range(40)]])
    c[9] = build.commit("c9", 9, "Release 1.0", files=["a.py", "CHANGES"], skip_reason="release")
    c[10] = build.commit("c10", 10, 'Revert "a alone"', files=["a.py"])
    events = [SymbolEvent(c[n].sha, "a.py", "f", "body") for n in range(1, 8)]
    events += [SymbolEvent(c[n].sha, "b.py", "g", "body") for n in range(1, 6)]
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_commits(c.values())
        writer.add_events(events)
        writer.add_reverts([(c[10].sha, c[7].sha)])  # (reverting, reverted)
    with store.reader() as reader:
        yield reader, c


def test_file_partners_count_recent_commits_and_leave_out_big_and_filtered_ones(coupled):
    reader, _c = coupled
    n, partners, population = reader.co_changes("a.py")
    assert n == 8  # c1..c7 and c10; not the 41-file sweep, not the release
    assert partners == [("b.py", None, 6, 6.0, 6)] and population == 9
    n, partners, _ = reader.co_changes("a.py", recent=3)
    assert n == 3 and partners == [("b.py", None, 1, 1.0, 6)]  # c10, c7, c6
    assert reader.co_changes("a.py", min_together=7) == (8, [], 9)
    assert reader.co_changes("nowhere.py") == (0, [], 0)


def test_symbol_partners(coupled):
    reader, _c = coupled
    n, partners, _ = reader.co_changes("a.py", symbol="f")
    assert n == 7 and partners == [("b.py", "g", 5, 5.0, 5)]


def test_a_pair_inside_a_bigger_commit_weighs_less(index_dir, build):
    c = [build.commit(f"w{n}", n, files=["a.py", "b.py", "c.py", "d.py"]) for n in range(3)]
    with IndexStore(index_dir).writer() as writer:
        writer.add_commits(c)
    with IndexStore(index_dir).reader() as reader:
        _n, partners, _ = reader.co_changes("a.py")
    assert [(p, together, weight) for p, _s, together, weight, _t in partners] == [
        ("b.py", 3, 1.0), ("c.py", 3, 1.0), ("d.py", 3, 1.0)]  # 3 commits × 1/3


def test_reverted_by_is_the_reverse_of_reverts_of(coupled):
    reader, c = coupled
    assert reader.reverts_of(c[7].sha) == [c[10].sha]
    assert reader.reverted_by(c[10].sha) == [c[7].sha]
    assert reader.reverted_by(c[7].sha) == []
