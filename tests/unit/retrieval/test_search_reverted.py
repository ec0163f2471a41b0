"""A search hit whose commit a standing revert undid says so, with the revert's sha, in every
surface (`search --json`, `whylens search`, MCP); a change whose revert was itself reverted is
current again and says nothing."""

from __future__ import annotations

import json

from whylens.cli import main
from whylens.index.store import IndexStore
from whylens.mcp.answers import search_answer
from whylens.pipeline import run_index
from whylens.render.hits import to_json
from whylens.retrieval.search import search

POOL = "class Pool:\n    def put(self, item):\n        self.items.append(item)\n"
STRICT = ("class Pool:\n    def put(self, item):\n        if item.closed:\n"
          "            raise ValueError('closed')\n        self.items.append(item)\n")
WHY = ("Make Pool.put reject closed connections\n\nA closed connection handed back to the pool "
       "was given out again, because put never looked at it, so every later request failed.")
QUESTION = "why does Pool.put reject closed connections"


def strict_then_revert(repo, reapply: bool) -> tuple[str, str]:
    repo.commit("Add the pool", {"pool.py": POOL})
    strict = repo.commit(WHY, {"pool.py": STRICT})
    undo = repo.commit(f'Revert "Make Pool.put reject closed connections"\n\nThis reverts commit '
                       f"{strict}.", {"pool.py": POOL})
    if reapply:
        repo.commit(f'Revert "Revert "Make Pool.put reject closed connections""\n\nThis reverts '
                    f"commit {undo}.", {"pool.py": STRICT})
    return strict, undo


def hit_of(index, sha, types=None):
    with IndexStore(index).reader() as reader:
        data = to_json(search(reader, QUESTION, gate=0.0, types=types))
    return data, next(h for h in data["results"] if h["commit"] == sha)


def test_a_reverted_commit_hit_is_marked_too(make_repo, tmp_path):
    """Without its decision record (a type filter), the commit's own hit says it."""
    repo = make_repo("commit-hit")
    strict, undo = strict_then_revert(repo, reapply=False)
    run_index(repo.root, tmp_path / "index")
    _, hit = hit_of(tmp_path / "index", strict, types=["commit"])
    assert hit["type"] == "commit"
    assert hit["outcome"] == "reverted" and hit["reverted_by"] == undo


def test_a_reverted_change_is_marked_reverted_with_its_revert(make_repo, tmp_path, capsys):
    repo = make_repo("reverted")
    strict, undo = strict_then_revert(repo, reapply=False)
    run_index(repo.root, tmp_path / "index")
    data, hit = hit_of(tmp_path / "index", strict)
    assert hit["outcome"] == "reverted" and hit["reverted_by"] == undo
    assert f"reverted* by `{undo[:7]}`" in search_answer(data, 4000).text
    assert main(["search", QUESTION, "--repo", str(repo.root), "--index-dir",
                 str(tmp_path / "index")]) == 0
    assert f"reverted by {undo[:12]}: not the code today" in capsys.readouterr().out
    assert main(["search", QUESTION, "--repo", str(repo.root), "--index-dir",
                 str(tmp_path / "index"), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["results"]
    assert any(h["commit"] == strict and h["reverted_by"] == undo for h in shown)


def test_a_change_whose_revert_was_reverted_is_current(make_repo, tmp_path):
    repo = make_repo("reapplied")
    strict, _ = strict_then_revert(repo, reapply=True)
    run_index(repo.root, tmp_path / "index")
    _, hit = hit_of(tmp_path / "index", strict)
    assert "reverted_by" not in hit and hit.get("outcome") != "reverted"
