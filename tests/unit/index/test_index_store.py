"""IndexStore / IndexWriter / IndexReader: round trips, visibility, idempotence, lifecycle."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from whylens.errors import IndexCorruptError, IndexLockedError, IndexMissingError
from whylens.locate import default_index_dir
from whylens.index.store import PIPELINE_VERSION, IndexStore
from whylens.models import Claim, Record


def ids(results):
    return [item.id for item, _ in results]


@pytest.fixture
def corpus(build):
    c1 = build.commit("c1", 1, "Retry on connection reset", files=["src/adapters.py"])
    c2 = build.commit("c2", 2, "Stream large bodies", files=["src/models.py"],
                      author="Grace Hopper")
    units = [
        build.unit("u1", c1, "Retry on connection reset",
                   "HTTPAdapter.send fails with ConnectionResetError when the pool is stale",
                   type="pattern", symbols=["HTTPAdapter.send"]),
        build.unit("u2", c2, "Stream large bodies",
                   "Use stream=True instead of reading the whole body into memory",
                   type="skill", symbols=["Response.iter_content"]),
    ]
    return [c1, c2], units


def test_round_trip(index_dir, corpus):
    commits, units = corpus
    store = IndexStore(index_dir)
    assert not store.exists() and store.read_meta() == {}
    with store.writer() as writer:
        writer.add_commits(commits)
        writer.add_units(units)
        writer.set_meta(last_sha=commits[-1].sha, shallow=True)
    with store.reader() as reader:
        assert reader.meta["pipeline_version"] == PIPELINE_VERSION
        assert reader.meta["last_sha"] == commits[-1].sha
        assert reader.unit("u1") == units[0]
        assert ids(reader.search("connection reset pool")) == ["u1"]
        assert ids(reader.search("httpadapter send")) == ["u1"]  # identifier parts
        assert ids(reader.search("memory", types=["skill"])) == ["u2"]
        assert reader.search("memory", types=["pattern"]) == []
        assert ids(reader.search("stream", path="src")) == ["u2"]
        assert reader.search("stream", path="lib") == []
        assert ids(reader.search("stream", author="grace")) == ["u2"]
        assert reader.search("stream", author="ada") == []
        until = commits[0].timestamp + 1
        assert ids(reader.search("pool", since="2023-11-15", until=until)) == ["u1"]
        assert reader.search("pool", since="2030-01-01") == []
        assert reader.search("the of and") == []  # nothing searchable
        assert [u.id for u in reader.iter_units()] == ["u1", "u2"]
        assert reader.commit_info(commits[0].sha[:10]).subject == "Retry on connection reset"
        assert reader.has_commit(commits[1].sha) and not reader.has_commit("0" * 40)
        stats = reader.stats()
        assert stats["commits"] == 2 and stats["units"] == {"pattern": 1, "skill": 1}
        assert stats["last_commit"] == commits[-1].sha and stats["shallow"] is True
        assert stats["index_bytes"] > 0


def test_type_boost_and_prior_weight_rank(index_dir, build):
    c = build.commit("c", 1, files=["a.py"])
    same = "the session cache expires after an hour"
    units = [build.unit("low", c, "Cache", same, type="fact", weight=0.4),
             build.unit("high", c, "Cache", same, type="pattern", weight=0.9)]
    with IndexStore(index_dir).writer() as writer:
        writer.add_commits([c])
        writer.add_units(units)
    with IndexStore(index_dir).reader() as reader:
        (first, s1), (second, s2) = reader.search("session cache expires")
        assert (first.id, second.id) == ("high", "low") and s1 > s2 * 2


def test_records_are_searchable_and_loaded_whole(index_dir, build):
    c = build.commit("c", 1, files=["src/auth.py"])
    record = Record(id="pr-7", kind="pr", number=7, title="Keep auth header on same-host redirect",
                    problem=Claim("Redirects dropped the Authorization header", "U1"),
                    decision=(Claim("Strip it only when the host changes", "U2"),),
                    fixing_commits=(c.sha,), anchors=("SessionRedirectMixin.rebuild_auth",),
                    files=("src/auth.py",), author="Ada Lovelace", date=c.date)
    with IndexStore(index_dir).writer() as writer:
        writer.add_commits([c])
        writer.add_records([record])
    with IndexStore(index_dir).reader() as reader:
        assert [(item, type(item)) for item, _ in reader.search("authorization header redirect")] \
            == [(record, Record)]
        assert reader.record("pr-7") == record
        assert reader.records_for_symbol("rebuild_auth") == [record]
        assert list(reader.iter_records()) == [record]


def test_flush_makes_batches_visible_to_new_readers(index_dir, corpus):
    commits, units = corpus
    store = IndexStore(index_dir)
    writer = store.writer()
    writer.add_commits(commits[:1])
    writer.add_units(units[:1])
    writer.flush()  # a first index is published at its first flush
    reader = store.reader()
    assert ids(reader.search("connection")) == ["u1"]
    writer.add_commits(commits[1:])
    writer.add_units(units[1:])
    writer.flush()
    assert reader.search("memory") == []  # a reader is a snapshot...
    assert ids(reader.refresh().search("memory")) == ["u2"]  # ...until it reopens
    writer.commit()
    reader.close()


def test_update_of_an_existing_id_returns_it_once(index_dir, corpus, build):
    commits, units = corpus
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_commits(commits)
        writer.add_units(units)
    changed = build.unit("u1", commits[0], "Retry on connection reset",
                         "HTTPAdapter.send retries when the keepalive connection was reset",
                         type="pattern")
    for _ in range(2):  # incremental writer: update_document by id; twice is harmless
        with store.writer() as writer:
            writer.add_units([changed])
    with store.reader() as reader:
        assert ids(reader.search("connection reset keepalive")) == ["u1"]
        assert reader.unit("u1").content.endswith("was reset")
        assert reader.stats()["units_total"] == 2


def test_duplicate_ids_inside_one_fresh_generation(index_dir, corpus):
    commits, units = corpus
    store = IndexStore(index_dir)
    with store.writer(rebuild=True) as writer:
        writer.add_units(units)
        writer.flush()
        writer.add_units(units)  # re-added after a flush: update, not a second document
    with store.reader() as reader:
        assert ids(reader.search("connection memory stream reset", k=10)) in (
            ["u1", "u2"], ["u2", "u1"])


def test_remove_commits_forgets_units_events_and_records(index_dir, corpus, build):
    from whylens.models import SymbolEvent

    commits, units = corpus
    store = IndexStore(index_dir)
    record = Record(id="commit-c1", kind="commit", number=None, title="Retry on reset",
                    fixing_commits=(commits[0].sha,), files=("src/adapters.py",))
    with store.writer() as writer:
        writer.add_commits(commits)
        writer.add_units(units)
        writer.add_records([record])
        writer.add_events([SymbolEvent(commits[0].sha, "src/adapters.py", "HTTPAdapter.send",
                                       "body")])
        writer.add_reverts([(commits[1].sha, commits[0].sha)])
    with store.writer() as writer:
        writer.remove_commits([commits[0].sha])
    with store.reader() as reader:
        assert reader.search("connection reset") == []
        assert reader.unit("u1") is None and reader.record("commit-c1") is None
        assert reader.symbol_history("HTTPAdapter.send") == []
        assert reader.reverts_of(commits[0].sha) == []
        assert not reader.has_commit(commits[0].sha)
        assert ids(reader.search("memory")) == ["u2"]


def test_remove_records_forgets_them_in_search_and_lookups(index_dir, corpus):
    commits, units = corpus
    store = IndexStore(index_dir)
    absorbed = Record(id="pr-34", kind="pr", number=34, title="Retry the pool on reset",
                      fixing_commits=(commits[0].sha,), anchors=("Pool.get",))
    owner = Record(id="issue-12", kind="issue", number=12, title="Pool hangs on reset",
                   fixing_commits=(commits[0].sha,), anchors=("Pool.get",), partner=34)
    with store.writer() as writer:
        writer.add_commits(commits)
        writer.add_records([absorbed, owner])
    with store.writer() as writer:
        writer.remove_records(["pr-34"])
    with store.reader() as reader:
        assert reader.record("pr-34") is None and reader.record("issue-12") is not None
        assert [r.id for r in reader.records_for_symbol("Pool.get")] == ["issue-12"]
        assert "pr-34" not in ids(reader.search("pool reset"))


def test_rebuild_keeps_the_old_generation_readable_until_commit(index_dir, corpus, build):
    commits, units = corpus
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_commits(commits)
        writer.add_units(units)
    old_reader = store.reader()
    writer = store.writer(rebuild=True)
    fresh = build.unit("u9", commits[0], "Rebuilt", "a brand new lighthouse unit")
    writer.add_units([fresh])
    writer.flush()
    with store.reader() as during:  # the rebuild is not visible until it commits
        assert ids(during.search("connection")) == ["u1"]
        assert during.search("lighthouse") == []
    writer.commit()
    with store.reader() as after:
        assert ids(after.search("lighthouse")) == ["u9"]
        assert after.search("connection") == []
    assert ids(old_reader.search("connection")) == ["u1"]  # open readers keep their snapshot
    old_reader.close()
    generations = sorted(p.name for p in Path(index_dir).iterdir() if p.name.startswith("gen-"))
    assert generations == [(Path(index_dir) / "CURRENT").read_text().strip()]


def test_aborted_rebuild_leaves_the_index_as_it_was(index_dir, corpus, build):
    commits, units = corpus
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_units(units)
    with pytest.raises(RuntimeError):
        with store.writer(rebuild=True) as writer:
            writer.add_units([build.unit("u9", commits[0], "x", "lighthouse keeper notes")])
            writer.flush()
            raise RuntimeError("boom")
    with store.reader() as reader:
        assert reader.search("lighthouse") == [] and ids(reader.search("connection")) == ["u1"]
    assert len([p for p in Path(index_dir).iterdir() if p.name.startswith("gen-")]) == 1


def test_second_writer_is_locked_out_and_readers_are_not(index_dir, corpus):
    commits, units = corpus
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_units(units)
    writer = store.writer()
    with pytest.raises(IndexLockedError) as err:
        IndexStore(index_dir).writer()
    assert "another whylens process" in str(err.value)
    with store.reader() as reader:  # readers never take the lock
        assert ids(reader.search("connection")) == ["u1"]
    writer.commit()
    with store.writer():  # released on commit
        pass


def test_missing_index(index_dir):
    with pytest.raises(IndexMissingError):
        IndexStore(index_dir).reader()


@pytest.mark.parametrize("damage", ["garbage-current", "dangling-current", "truncated-whoosh",
                                    "garbage-sidecar"])
def test_corrupt_index_says_delete_and_rebuild(index_dir, corpus, damage):
    commits, units = corpus
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_commits(commits)
        writer.add_units(units)
    gen = store.current_generation()
    if damage == "garbage-current":
        (index_dir / "CURRENT").write_bytes(b"\x00\xffnot a generation")
    elif damage == "dangling-current":
        (index_dir / "CURRENT").write_text("gen-99\n")
    elif damage == "truncated-whoosh":
        for f in (gen / "whoosh").iterdir():
            if f.suffix in (".toc", ".seg"):
                f.write_bytes(f.read_bytes()[:20])
    else:
        for f in gen.iterdir():
            if f.name.startswith("sidecar"):
                f.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(IndexCorruptError) as err:
        with store.reader() as reader:
            reader.search("connection")
    assert "delete that folder" in str(err.value) and str(index_dir) in str(err.value)
    with store.writer(rebuild=True) as writer:  # a rebuild repairs it
        writer.add_units(units)
    with store.reader() as reader:
        assert ids(reader.search("connection")) == ["u1"]


def test_default_location_is_outside_the_repo_and_stable(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo = tmp_path / "work" / "myproj"
    repo.mkdir(parents=True)
    first = default_index_dir(repo)
    assert first == default_index_dir(str(repo) + os.sep)
    assert first.parent == tmp_path / "cache" / "whylens"
    assert first.name.startswith("myproj-") and len(first.name) == len("myproj-") + 12
    assert repo not in first.parents
    other = tmp_path / "elsewhere" / "myproj"
    other.mkdir(parents=True)
    assert default_index_dir(other) != first


def test_odd_text_round_trips(index_dir, build):
    c = build.commit("odd", 1, files=["dir/ünï\udccd.py"])
    odd = build.unit("odd", c, "Lone \udcff surrogate and emoji 🎉", "naïve café " * 20_000
                     + "zebra\x00crossing " + "y" * 5000, files=["dir/ünï\udccd.py"])
    empty = build.unit("empty", c, "", "")
    with IndexStore(index_dir).writer() as writer:
        writer.add_commits([c])
        writer.add_units([odd, empty])
    with IndexStore(index_dir).reader() as reader:
        assert reader.unit("odd") == odd and reader.unit("empty") == empty
        assert ids(reader.search("surrogate zebra")) == ["odd"]
        assert ids(reader.search("café", path="dir/ünï\udccd.py")) == ["odd"]


def test_refresh_after_update_and_delete_is_not_stale(index_dir, corpus, build):
    """Whoosh-Reloaded 2.7.5's Searcher.refresh() returns old and new versions; ours reopens."""
    commits, units = corpus
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_commits(commits)
        writer.add_units(units)
    reader = store.reader()
    writer = store.writer()
    writer.add_units([build.unit("u1", commits[0], "Retry on connection reset",
                                 "connection reset handled by a retry", type="pattern")])
    writer.remove_commits([commits[1].sha])
    writer.flush()
    reader.refresh()
    assert [i.id for i, _ in reader.search("connection reset retry stream memory")] == ["u1"]
    assert reader.doc_count() == 2  # u1 and the commit document of the commit that stays
    writer.commit()
    reader.close()
