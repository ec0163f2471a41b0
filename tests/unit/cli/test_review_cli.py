"""`whylens pr-comments` end to end: every format, base/head defaults, bad input."""

from __future__ import annotations

import io
import json
import subprocess

import pytest

from whylens.cli import main

from histories import indexed_branch
from retrieval.pool_history import POOL_V5, build_pool_history


@pytest.fixture
def indexed(make_repo, index_dir):
    repo, shas = indexed_branch(make_repo, index_dir, "review", build_pool_history)
    return repo, shas, ["--repo", str(repo.root), "--index-dir", str(index_dir)]


def _touch_put(repo):
    """Puts back what the reverted commit did (reject closed connections)."""
    repo.write("src/pool.py", POOL_V5.replace(
        "        self.count += 1\n",
        "        if item.closed:\n            self.reject_closed(item, 'closed connection')\n"
        "        self.count += 1\n"))


def test_working_tree_against_merge_base_json(indexed, capsys):
    repo, shas, common = indexed
    _touch_put(repo)
    assert main(["pr-comments", *common, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["base"] == shas["never_block"] and data["head"] is None
    kinds = [s["kind"] for s in data["suggestions"]]
    assert "reverted-before" in kinds
    first = data["suggestions"][kinds.index("reverted-before")]
    assert first["path"] == "src/pool.py" and first["symbol"] == "Pool.put"
    assert first["evidence"][:2] == [shas["strict"], shas["revert"]]


def test_committed_head_github_and_sarif(indexed, capsys):
    repo, shas, common = indexed
    _touch_put(repo)
    head = repo.commit("Count twice")
    assert main(["pr-comments", *common, "--base", "main", "--head", "HEAD",
                 "--format", "github"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["event"] == "COMMENT" and body["commit_id"] == head
    assert body["comments"][0]["path"] == "src/pool.py" and body["comments"][0]["side"] == "RIGHT"
    assert main(["pr-comments", *common, "--base", "main", "--head", "HEAD",
                 "--format", "sarif"]) == 0
    log = json.loads(capsys.readouterr().out)
    assert log["version"] == "2.1.0"
    assert log["runs"][0]["results"][0]["ruleId"] == "whylens/reverted-before"


def test_markdown_and_silence(indexed, capsys):
    repo, _shas, common = indexed
    assert main(["pr-comments", *common]) == 0
    assert "nothing in the history" in capsys.readouterr().out
    _touch_put(repo)
    assert main(["pr-comments", *common, "--format", "markdown"]) == 0
    assert "An earlier change here was reverted" in capsys.readouterr().out


def test_bad_revisions(indexed, capsys):
    _repo, _shas, common = indexed
    assert main(["pr-comments", *common, "--base", "no-such-branch"]) != 0
    assert "no-such-branch" in capsys.readouterr().err
    assert main(["pr-comments", *common, "--max", "-1"]) == 2


def test_a_diff_text_reviews_like_the_working_tree(indexed, capsys, tmp_path, monkeypatch):
    """`--diff FILE` / `--diff -`: the same suggestions as reviewing the working tree, whether the
    patch is already applied or not yet."""
    repo, shas, common = indexed
    _touch_put(repo)
    assert main(["pr-comments", *common, "--base", "HEAD", "--format", "json"]) == 0
    expected = json.loads(capsys.readouterr().out)["suggestions"]
    assert expected
    patch = tmp_path / "change.diff"
    patch.write_text(repo.git("diff") + "\n")
    assert main(["pr-comments", *common, "--diff", str(patch), "--format", "json"]) == 0
    applied = json.loads(capsys.readouterr().out)
    assert applied["suggestions"] == expected and applied["diff"] == {"files": 1, "skipped": []}
    repo.git("checkout", "--", "src/pool.py")  # not applied any more
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(patch.read_bytes())))
    assert main(["pr-comments", *common, "--diff", "-", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["suggestions"] == expected


def test_a_diff_that_reapplies_a_reverted_change_is_caught(indexed, capsys, tmp_path):
    """`--diff` reads both sides and the past diffs as --base/--head do: the lines the revert
    took out, back again, are a `reintroduces-revert` whether the patch is applied or not yet
    (without them a diff got only the message-level checks, and this went unsaid)."""
    repo, shas, common = indexed
    repo.write("src/pool.py", POOL_V5.replace(  # the reverted lines, as they were, on today's put
        "        self.items.append(item)", "        if item.closed:\n"
        "            raise ValueError('closed')\n        self.items.append(item)"))
    patch = tmp_path / "reapply.diff"
    patch.write_text(subprocess.run(["git", "diff"], cwd=repo.root, capture_output=True,
                                    text=True, check=True).stdout)  # as is: a blank context line
    repo.git("checkout", "--", "src/pool.py")
    for applied in (False, True):
        if applied:
            repo.git("apply", str(patch))
        assert main(["pr-comments", *common, "--diff", str(patch), "--format", "json"]) == 0
        found = [s for s in json.loads(capsys.readouterr().out)["suggestions"]
                 if s["kind"] == "reintroduces-revert"]
        assert found and found[0]["evidence"][:2] == [shas["strict"], shas["revert"]], applied


def test_bad_diffs(indexed, capsys, tmp_path):
    repo, _shas, common = indexed
    patch = tmp_path / "change.diff"
    patch.write_text("--- a/../../outside.py\n+++ b/../../outside.py\n@@ -1 +1 @@\n-a\n+b\n"
                     "--- a/src/pool.py\n+++ b/src/pool.py\n@@ -1 +1 @@\n-nothing like it\n+b\n")
    assert main(["pr-comments", *common, "--diff", str(patch), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["suggestions"] == [] and [s["path"] for s in out["diff"]["skipped"]] == [
        "../../outside.py", "src/pool.py"]
    assert "outside the repository" in out["diff"]["skipped"][0]["reason"]
    assert main(["pr-comments", *common, "--diff", str(patch), "--base", "HEAD"]) == 2
    assert "not both" in capsys.readouterr().err
    patch.write_text("+" * 1_000_001)
    assert main(["pr-comments", *common, "--diff", str(patch)]) == 2
    assert "over 1 MB" in capsys.readouterr().err
    patch.write_text("hello, not a diff\n")
    assert main(["pr-comments", *common, "--diff", str(patch)]) == 2
    assert "changes no file" in capsys.readouterr().err
    assert main(["pr-comments", *common, "--diff", str(tmp_path / "missing.diff")]) == 2


def test_the_working_tree_reader_never_follows_a_symlink_out(tmp_path):
    from whylens.cli.review import working_tree_reader

    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("a = 1\n")
    (tmp_path / "secret.py").write_text("secret = 1\n")
    (root / "escape.py").symlink_to(tmp_path / "secret.py")
    (root / "alias.py").symlink_to(root / "src" / "a.py")
    read = working_tree_reader(root)
    assert read("escape.py") is None
    assert read("alias.py") == read("src/a.py") == "a = 1\n"


# --- bad input: each gets a clear message and the documented exit code ----------------------

def test_empty_diff_says_there_is_nothing_to_review(indexed, capsys):
    _repo, _shas, common = indexed
    assert main(["pr-comments", *common, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["suggestions"] == [] and data["notices"] == [
        "No changes between base and head: nothing to review."]


def test_binary_only_diff(indexed, capsys):
    repo, _shas, common = indexed
    repo.write("logo.png", b"\x89PNG\r\n\x1a\n\0\0\0binary")
    assert main(["pr-comments", *common]) == 0
    out = capsys.readouterr().out
    assert "Only binary files changed (1): nothing to review." in out


def test_a_huge_diff_is_capped_with_a_message(indexed, capsys):
    repo, _shas, common = indexed
    _touch_put(repo)
    repo.write("generated/big.py", "".join(f"VALUE_{i} = {i}\n" for i in range(100_000)))
    assert main(["pr-comments", *common, "--format", "sarif"]) == 0
    log = json.loads(capsys.readouterr().out)
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert "changes 100,002 lines in 2 text files; reviewed the first" in notes[0]["message"]["text"]
    assert log["runs"][0]["results"]  # the file before the huge one was still reviewed


def test_base_equal_to_head_says_so(indexed, capsys):
    """Not an error (an agent or a CI job may ask it on purpose): an empty review that says why."""
    _repo, _shas, common = indexed
    assert main(["pr-comments", *common, "--base", "main", "--head", "main", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["suggestions"] == [] and "are the same commit" in data["notices"][0]


def test_unknown_revision_is_bad_input(indexed, capsys):
    _repo, _shas, common = indexed
    assert main(["pr-comments", *common, "--head", "no-such-branch"]) == 2
    assert "unknown revision 'no-such-branch'" in capsys.readouterr().err


def test_a_head_that_does_not_descend_from_base(indexed, capsys):
    repo, shas, common = indexed
    _touch_put(repo)
    repo.commit("Count twice")
    assert main(["pr-comments", *common, "--base", "feature", "--head", shas["strict"]]) == 2
    err = capsys.readouterr().err
    assert "does not descend from the base feature" in err
    assert f"pass --base {shas['strict'][:12]}" in err  # their merge base


def test_unmerged_paths_in_the_working_tree(indexed, capsys):
    repo, shas, common = indexed
    repo.write("src/pool.py", POOL_V5.replace("self.count += 1", "self.count += 2"))
    repo.commit("Count by two on the feature")
    repo.git("checkout", "-q", "main")
    repo.write("src/pool.py", POOL_V5.replace("self.count += 1", "self.count += 3"))
    repo.commit("Count by three on main")
    repo.git("checkout", "-q", "feature")
    who = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}
    with pytest.raises(subprocess.CalledProcessError):
        repo.git("merge", "-q", "main", env=who)
    assert "UU src/pool.py" in repo.git("status", "--porcelain")  # unmerged now
    assert main(["pr-comments", *common, "--base", "main"]) == 2
    err = capsys.readouterr().err
    assert "unmerged paths (src/pool.py)" in err
    assert main(["pr-comments", *common, "--base", shas["never_block"], "--head", "HEAD"]) == 0


def test_a_gate_outside_zero_to_one_is_bad_input(indexed, capsys):
    _repo, _shas, common = indexed
    assert main(["pr-comments", *common, "--gate", "1.5"]) == 2
    assert "--gate must be between 0 and 1" in capsys.readouterr().err
