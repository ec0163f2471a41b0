"""A branch reviewed with an index of the branch itself (an editor indexes its working branch):
the branch's own commits (``base..head``) are not its history (``review_own``, review29)."""

from __future__ import annotations

import json

from whylens.cli import main
from whylens.pipeline import run_index

from retrieval.test_review_fragile import _parser


def _branch_of_fixes(repo) -> dict[str, str]:
    """``parse`` changed five times on main (no fix); then a branch of four "Fix …" commits,
    each rewriting its split line, and a last one changing the line two under it."""
    repo.commit("Add the parser\n", {"parse.py": _parser(0)}, days=40)
    for i in range(1, 6):
        repo.commit(f"Teach parse comment form {i}\n", {"parse.py": _parser(i)}, days=10)
    shas = {"base": repo.git("rev-parse", "HEAD").strip()}
    repo.git("checkout", "-q", "-b", "feature")
    text = _parser(5)
    for i, sep in enumerate(";:|/"):
        text = text.replace(text.split("text.split(")[1].split(")")[0], repr(sep), 1)
        repo.commit(f"Fix crash in parse on separator {i}\n", {"parse.py": text}, days=3)
    # two lines under the split line: the base's split line is next to it, and the index reads
    # it where the branch's fixes rewrote it
    repo.commit("Lower case with casefold\n", {"parse.py": text.replace("p.lower()", "p.casefold()")},
                days=1)
    shas["head"] = repo.git("rev-parse", "HEAD").strip()
    return shas


def _comments(repo, index_dir, shas) -> None:
    common = ["--repo", str(repo.root), "--index-dir", str(index_dir)]
    assert main(["pr-comments", *common, "--base", shas["base"], "--head", shas["head"],
                 "--format", "json", "--gate", "0"]) == 0


def test_a_branch_indexed_at_its_tip_is_not_reviewed_against_its_own_fixes(
        make_repo, index_dir, capsys):
    repo = make_repo("own")
    shas = _branch_of_fixes(repo)
    run_index(repo.root, index_dir)  # at the branch tip: its four fixes are in the index
    own = set(repo.git("rev-list", f"{shas['base']}..{shas['head']}").split())
    _comments(repo, index_dir, shas)
    found = json.loads(capsys.readouterr().out)["suggestions"]
    cited = [s for s in found if set(s["evidence"]) & own
             or any(sha[:7] in s["body"] for sha in own)]
    assert cited == []
    assert not [s for s in found if s["kind"] == "fragile"]


def test_the_same_fixes_before_the_base_still_make_it_fragile(make_repo, index_dir, capsys):
    """The check is not silenced: reviewed from the last fix, the four fixes are history."""
    repo = make_repo("own-before")
    shas = _branch_of_fixes(repo)
    run_index(repo.root, index_dir)
    shas["base"] = repo.git("rev-parse", "HEAD^").strip()
    _comments(repo, index_dir, shas)
    found = json.loads(capsys.readouterr().out)["suggestions"]
    assert [s["symbol"] for s in found if s["kind"] == "fragile"] == ["parse"]
