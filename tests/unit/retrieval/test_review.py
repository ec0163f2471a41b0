"""The review engine on real histories: reverted-before, reintroduced pitfalls, silence."""

from __future__ import annotations

from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.models import FileChange, Hunk, Suggestion
from whylens.retrieval.review import GATE, KIND_SHIFT, review, select

from retrieval.pool_history import POOL_V5


def _review(repo, reader, **kw):
    with open_repository(repo.root) as git:
        changes = diff_changes(git, "HEAD")
    read = lambda path: (repo.root / path).read_text(encoding="utf-8")  # noqa: E731
    return review(reader, repo.root, changes, read, **kw)


RELATED = POOL_V5.replace(
    "        self.count += 1\n",
    "        if item.closed:\n            self.reject_closed(item, 'closed connection')\n"
    "        self.count += 1\n")


def test_change_to_a_symbol_whose_earlier_change_was_reverted(pool_repo):
    repo, shas, reader = pool_repo
    repo.write("src/pool.py", RELATED)  # puts back what the reverted change did: reject closed
    out = _review(repo, reader)
    reverted = [s for s in out if s.kind == "reverted-before"]
    assert len(reverted) == 1
    s = reverted[0]
    assert (s.path, s.line, s.side, s.symbol) == ("src/pool.py", 7, "RIGHT", "Pool.put")
    assert s.evidence[:2] == (shas["strict"], shas["revert"])
    assert shas["strict"][:7] in s.body and shas["revert"][:7] in s.body
    assert "It touches the same subject: closed, connection, reject" in s.body
    assert s.confidence == round(0.8 + KIND_SHIFT["reverted-before"], 3)  # related and recent


def test_reintroducing_a_fixed_failure_in_a_new_symbol(pool_repo):
    repo, shas, reader = pool_repo
    added = "\n\ndef fetch_all(pool, urls):\n    conn = pool.get()\n    return [conn.open(u) for u in urls]\n"
    repo.write("src/pool.py", POOL_V5 + added)
    # a neighbour's pitfall (one name in a code span) sits under the calibrated gate (review3:
    # the pitfall at the gate on the tune replays was noise); a caller with a lower gate gets it
    assert [s for s in _review(repo, reader) if s.kind == "reintroduces-pitfall"] == []
    out = _review(repo, reader, gate=0.4)
    hits = [s for s in out if s.kind == "reintroduces-pitfall"]
    assert len(hits) == 1
    assert hits[0].symbol == "fetch_all" and "`pool.get`" in hits[0].body
    assert shas["deadlock"] in hits[0].evidence
    assert hits[0].confidence == round(0.65 + KIND_SHIFT["reintroduces-pitfall"], 3)


def test_reintroducing_it_in_the_same_symbol_is_more_confident(pool_repo):
    repo, shas, reader = pool_repo
    repo.write("src/pool.py", POOL_V5.replace("pool.try_get(timeout=5)", "pool.get()"))
    own = [s for s in _review(repo, reader) if s.kind == "reintroduces-pitfall"]
    # its own pitfall reaches the gate where a neighbour's does not (test above)
    assert own and own[0].symbol == "fetch" and own[0].confidence >= GATE
    assert own[0].confidence == round(0.75 + KIND_SHIFT["reintroduces-pitfall"], 3)


def test_nothing_confident_means_no_suggestions(pool_repo):
    repo, _shas, reader = pool_repo
    repo.write("src/pool.py", POOL_V5.replace("return self.items.pop()", "return self.items.pop(0)"))
    assert _review(repo, reader) == []
    repo.write("src/other.py", "def helper():\n    return 42\n")
    assert _review(repo, reader) == []


def test_binary_missing_and_deleted_files_are_skipped(pool_repo):
    _repo, _shas, reader = pool_repo
    changes = [
        FileChange(path="img.png", status="A", binary=True),
        FileChange(path="src/gone.py", status="D", hunks=(Hunk(1, 3, 0, 0),)),
        FileChange(path="src/pool.py", status="M", hunks=(Hunk(6, 1, 6, 1),)),
    ]
    assert review(reader, None, changes, lambda path: None) == []


def test_select_gates_caps_and_never_repeats_a_point():
    def s(line, conf, ev, path="a.py"):
        return Suggestion(path=path, line=line, side="RIGHT", kind="constraint", body="b",
                          confidence=conf, evidence=(ev,))
    many = [s(1, 0.9, "x"), s(1, 0.8, "y"), s(2, 0.7, "x"), s(3, 0.5, "z")]
    many += [s(10 + i, 0.7, f"e{i}") for i in range(20)]
    kept = select(many, cap=10)
    assert len(kept) == 10
    assert [k.evidence[0] for k in kept if k.line == 1] == ["x"]  # one per point and kind, the best
    assert all(k.line != 2 for k in kept)  # evidence "x" already used
    assert all(k.confidence >= GATE for k in kept)
    assert select(many, cap=0) == []


def test_an_unrelated_change_near_a_revert_stays_silent(pool_repo):
    """Related but years old: under the calibrated gate (tune labels: such comments were mostly
    noise), yet there for a caller with a lower gate."""
    repo, shas, reader = pool_repo
    years_later = 1_700_000_000 + 5 * 365 * 86_400
    repo.write("src/pool.py", POOL_V5.replace("self.count += 1", "self.count += 2"))
    assert [s for s in _review(repo, reader) if s.kind == "reverted-before"] == []  # recent
    repo.write("src/pool.py", RELATED)
    assert [s for s in _review(repo, reader, now=years_later) if s.kind == "reverted-before"] == []
    out = [s for s in _review(repo, reader, now=years_later, gate=0.3) if s.kind == "reverted-before"]
    assert len(out) == 1 and out[0].confidence == round(0.7 + KIND_SHIFT["reverted-before"], 3)
