"""Line blame worked out during the walk: the commit that last substantively changed a line."""

from __future__ import annotations

import subprocess

from whylens.history.merges import MergeFiles
from whylens.history.repo import open_repository
from whylens.symbols.blame import LineBlame

from .gitcommits import blob_reader, walked

V1 = "def f(x):\n    a = x + 1\n    b = 'two'\n    return a, b\n"


def _blame(repo, ignore_revs=None) -> dict[tuple[str, int], str]:
    head = {}
    for line in repo.git("ls-tree", "-r", "HEAD").splitlines():
        meta, path = line.split("\t", 1)
        head[path] = meta.split()[2]
    blame = LineBlame(head, blob_reader(repo))
    out = {}
    with open_repository(repo.root) as opened, MergeFiles(opened) as merges:
        runs = [blame.merge(c, merges.changed(c.sha, c.parents)) if len(c.parents) > 1
                else blame.commit(c) for c in walked(repo, ignore_revs=ignore_revs)]
    for claimed in runs:
        for run in claimed:
            for line in range(run.start, run.end + 1):
                assert (run.path, line) not in out, "a line is claimed once"
                out[(run.path, line)] = run.commit
    return out


def test_formatting_and_ignored_commits_pass_lines_on(make_repo):
    repo = make_repo()
    c1 = repo.commit("one", {"f.py": V1})
    c2 = repo.commit("body", {"f.py": V1.replace("x + 1", "x + 2")})
    c3 = repo.commit("quotes", {"f.py": V1.replace("x + 1", "x + 2").replace("'two'", '"two"')})
    c4 = repo.commit("ignored", {"f.py": V1.replace("x + 1", "x + 2").replace("'two'", '"two"')
                                 .replace("return a, b", "return b, a")})
    c5 = repo.commit("more", {"f.py": V1.replace("x + 1", "x + 2").replace("'two'", '"two"')
                              .replace("return a, b", "return b, a") + "\n\ndef g():\n    pass\n"})
    blame = _blame(repo, ignore_revs={c4})
    assert blame[("f.py", 1)] == c1
    assert blame[("f.py", 2)] == c2
    assert blame[("f.py", 3)] == c1  # the quotes commit only reformatted it
    assert blame[("f.py", 4)] == c1  # c4 is in .git-blame-ignore-revs
    assert {blame[("f.py", n)] for n in range(6, 8)} == {c5}
    assert c3 not in blame.values()


def test_lines_from_a_merged_branch_are_claimed_by_the_branch(make_repo):
    repo = make_repo()
    base = "".join(f"line{i} = {i}\n" for i in range(1, 21))
    c1 = repo.commit("base", {"m.py": base})
    repo.git("checkout", "-q", "-b", "topic")
    topic = repo.commit("topic edits line 3", {"m.py": base.replace("line3 = 3", "line3 = 33")})
    repo.git("checkout", "-q", "main")
    main = repo.commit("main edits line 18", {"m.py": base.replace("line18 = 18", "line18 = 1818")})
    who = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}
    repo.git("merge", "-q", "--no-ff", "-m", "Merge topic", "topic", env=who)
    after = repo.commit("after the merge", {"m.py": (repo.root / "m.py").read_text()
                                            + "line21 = 21\n"})
    blame = _blame(repo)
    assert blame[("m.py", 3)] == topic
    assert blame[("m.py", 18)] == main
    assert blame[("m.py", 21)] == after
    assert blame[("m.py", 1)] == c1
    truth = subprocess.run(["git", "blame", "-s", "-l", "--root", "HEAD", "--", "m.py"], cwd=repo.root,
                           capture_output=True, text=True, check=True).stdout.splitlines()
    assert [blame[("m.py", n)] for n in range(1, len(truth) + 1)] == [
        row.split()[0].lstrip("^") for row in truth]


def test_a_rewrap_cut_by_hunk_boundaries_passes_lines_on(make_repo):
    """flask 54e05a28 ("use ruff linter and formatter") re-wrapped an argument list with a magic
    trailing comma: its hunk ends before the bracket, so the hunk alone reads as a new tuple.
    The whole file decides, as a definition does for symbol history: the rewrapped lines keep
    the commit that wrote them; a real trailing comma later is claimed."""
    from .test_tracking import RESPONSE, RUFFED

    repo = make_repo()
    start = repo.commit("start", {"app.py": RESPONSE})
    ruffed = repo.commit("use ruff linter and formatter", {"app.py": RUFFED})
    blame = _blame(repo)
    assert ruffed not in blame.values()
    assert set(blame.values()) == {start}
    tupled = repo.commit("a real trailing comma", {"app.py": RUFFED.replace(
        "        return rv\n", "        return rv,\n")})
    blame = _blame(repo)
    assert ruffed not in blame.values() and tupled in blame.values()


def test_lines_deleted_from_the_end_are_never_claimed(make_repo):
    """A file that lost its last lines: the blame covers the revision's lines, none past its
    end (the open end of the file once pointed past it: 3% of flask's claimed lines)."""
    repo = make_repo()
    long = "".join(f"line{i} = {i}\n" for i in range(1, 31))
    c1 = repo.commit("thirty lines", {"m.py": long})
    c2 = repo.commit("drop the last ten", {"m.py": "".join(long.splitlines(True)[:20])})
    blame = _blame(repo)
    assert sorted(line for _, line in blame) == list(range(1, 21))
    assert set(blame.values()) == {c1} and c2 not in blame.values()
