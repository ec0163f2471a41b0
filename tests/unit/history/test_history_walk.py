"""walk(): one git log process → Commits with changes, hunks, renames, verdicts."""

from __future__ import annotations

import os

import pytest

from whylens.history.repo import open_repository
from whylens.history.walk import log_arguments, walk
from whylens.models import FileChange, Hunk

LINES = "".join(f"line {i}\n" for i in range(1, 11))


def edit(text: str, **changes: str) -> str:
    """Replace ``line N`` by a new text (``l3="x"``); an empty text deletes the line."""
    lines = text.splitlines(keepends=True)
    for key, new in sorted(changes.items(), key=lambda kv: -int(kv[0][1:])):
        index = int(key[1:]) - 1
        lines[index:index + 1] = [new + "\n"] if new else []
    return "".join(lines)


def merge(repo, branch: str, message: str) -> str:
    """``git merge --no-ff`` with the fixture's fixed identity and clock."""
    repo.clock += 86_400
    stamp = f"{repo.clock} +0000"
    who = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
           "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_NAME": "Ada",
           "GIT_COMMITTER_EMAIL": "ada@example.com", "GIT_COMMITTER_DATE": stamp}
    repo.git("merge", "-q", "--no-ff", branch, "-m", message, env=who)
    return repo.git("rev-parse", "HEAD")


@pytest.fixture
def history(make_repo):
    """root → edit → rename+edit → binary → side branch merged as PR #7."""
    repo = make_repo("walk")
    shas = {}
    shas["root"] = repo.commit("Add the module", {"src/mod.py": LINES, "README.md": "# r\n"},
                               author="ada <ada@old.example>")
    shas["edit"] = repo.commit(
        "Guard the pool against exhaustion\n\nThe pool must never block forever.\n\n"
        "Signed-off-by: Ada Lovelace <ada@example.com>\nCo-authored-by: Bob <bob@example.com>\n",
        {"src/mod.py": edit(LINES, l3="changed 3", l7="", l10="line 10\nline 11")},
        author="Grace Hopper <grace@example.com>",
    )
    repo.mv("src/mod.py", "src/pool.py")
    shas["rename"] = repo.commit("Rename mod to pool",
                                 {"src/pool.py": edit(edit(LINES, l3="changed 3", l7="",
                                                           l10="line 10\nline 11"), l1="first")})
    shas["binary"] = repo.commit("Add the logo", {"logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x01"})
    repo.git("checkout", "-q", "-b", "feature")
    shas["side"] = repo.commit("Add docs page", {"docs/page.md": "page\n"})
    repo.git("checkout", "-q", "main")
    shas["main"] = repo.commit("Tune the pool size", {"src/pool.py": edit(
        edit(edit(LINES, l3="changed 3", l7="", l10="line 10\nline 11"), l1="first"),
        l2="line two")})
    merge(repo, "feature", "Merge pull request #7 from ada/feature")
    shas["merge"] = repo.git("rev-parse", "HEAD")
    repo.commit("Map old addresses",
                {".mailmap": "Ada Lovelace <ada@example.com> <ada@old.example>\n"})
    shas["mailmap"] = repo.shas[-1]
    return repo, shas


def test_order_parents_and_authors(history):
    repo, shas = history
    with open_repository(repo.root) as r:
        commits = list(walk(r))
    order = [c.sha for c in commits]
    assert order == [shas[k] for k in ("mailmap", "merge", "main", "side", "binary", "rename",
                                       "edit", "root")]
    by = {c.sha: c for c in commits}
    assert by[shas["merge"]].parents == (shas["main"], shas["side"])
    assert by[shas["root"]].parents == ()
    assert by[shas["edit"]].parents == (shas["root"],)
    root = by[shas["root"]]
    assert (root.author, root.email) == ("Ada Lovelace", "ada@example.com")  # .mailmap applied
    edit_commit = by[shas["edit"]]
    assert (edit_commit.author, edit_commit.email) == ("Grace Hopper", "grace@example.com")
    assert edit_commit.timestamp == root.timestamp + 86_400
    assert edit_commit.date.endswith("+00:00") and edit_commit.date.startswith("2023-11-")


def test_dates_are_iso_and_unix(history):
    repo, shas = history
    with open_repository(repo.root) as r:
        root = next(c for c in walk(r) if c.sha == shas["root"])
    assert root.timestamp == 1_700_000_000 + 86_400
    assert root.date == "2023-11-15T22:13:20+00:00"


def test_message_parts_and_trailers(history):
    repo, shas = history
    with open_repository(repo.root) as r:
        c = next(c for c in walk(r) if c.sha == shas["edit"])
    assert c.subject == "Guard the pool against exhaustion"
    assert c.body.startswith("The pool must never block forever.")
    assert c.trailers == (("Signed-off-by", "Ada Lovelace <ada@example.com>"),
                          ("Co-authored-by", "Bob <bob@example.com>"))
    assert c.skip_reason is None and c.pr is None


def test_hunk_line_ranges_of_known_edits(history):
    repo, shas = history
    with open_repository(repo.root) as r:
        by = {c.sha: c for c in walk(r)}
    (root_mod,) = [ch for ch in by[shas["root"]].changes if ch.path == "src/mod.py"]
    assert root_mod.status == "A" and root_mod.old_blob is None and root_mod.new_blob
    assert root_mod.hunks == (Hunk(0, 0, 1, 10),)
    (change,) = by[shas["edit"]].changes
    assert change.path == "src/mod.py" and change.status == "M"
    assert change.hunks == (Hunk(3, 1, 3, 1), Hunk(7, 1, 6, 0), Hunk(10, 0, 10, 1))
    assert change.old_blob == root_mod.new_blob


def test_rename_with_edit(history):
    repo, shas = history
    with open_repository(repo.root) as r:
        c = next(c for c in walk(r) if c.sha == shas["rename"])
    (change,) = c.changes
    assert (change.status, change.path, change.old_path) == ("R", "src/pool.py", "src/mod.py")
    assert change.hunks == (Hunk(1, 1, 1, 1),)


def test_binary_file_is_flagged(history):
    repo, shas = history
    with open_repository(repo.root) as r:
        c = next(c for c in walk(r) if c.sha == shas["binary"])
    assert c.changes == (FileChange(path="logo.png", status="A", new_blob=c.changes[0].new_blob,
                                    binary=True),)


def test_merge_keeps_pr_number_and_no_changes(history):
    repo, shas = history
    with open_repository(repo.root) as r:
        merge = next(c for c in walk(r) if c.sha == shas["merge"])
    assert merge.pr == 7 and merge.changes == () and merge.skip_reason is None


def test_exclude_stops_at_last_indexed(history):
    repo, shas = history
    with open_repository(repo.root) as r:
        newer = [c.sha for c in walk(r, "HEAD", exclude=[shas["main"]])]
        assert newer == [shas["mailmap"], shas["merge"], shas["side"]]
        assert r.count("HEAD", exclude=[shas["main"]]) == 3
        assert list(walk(r, shas["edit"]))[0].sha == shas["edit"]


def test_without_hunks_same_changes(history):
    repo, shas = history
    with open_repository(repo.root) as r:
        full = list(walk(r))
        light = list(walk(r, hunks=False))
    assert [c.sha for c in full] == [c.sha for c in light]
    for a, b in zip(full, light):
        assert [(x.path, x.status, x.old_path, x.new_blob) for x in a.changes] == \
               [(x.path, x.status, x.old_path, x.new_blob) for x in b.changes]
        assert all(x.hunks == () for x in b.changes)


def test_delete_mode_change_type_change_and_odd_paths(make_repo):
    repo = make_repo("odd")
    odd = {"tab\there.txt": "a\n", 'quote"d.txt': "b\n", "späce é.txt": "c\n",
           "back\\slash.txt": "d\n", "gone.txt": "1\n2\n3\n", "link.txt": "x\n", "run.sh": "r\n"}
    repo.commit("Add odd names", odd)
    os.chmod(repo.root / "run.sh", 0o755)
    (repo.root / "link.txt").unlink()
    os.symlink("run.sh", repo.root / "link.txt")
    second = repo.commit("Edit odd names", {"tab\there.txt": "a\nA\n", 'quote"d.txt': "B\n",
                                            "späce é.txt": "c\nC\n", "back\\slash.txt": "D\n",
                                            "gone.txt": None})
    with open_repository(repo.root) as r:
        (c, _) = list(walk(r))
    assert c.sha == second
    by = {ch.path: ch for ch in c.changes}
    assert by["tab\there.txt"].hunks == (Hunk(1, 0, 2, 1),)
    assert by['quote"d.txt'].hunks == (Hunk(1, 1, 1, 1),)
    assert by["späce é.txt"].hunks == (Hunk(1, 0, 2, 1),)
    assert by["back\\slash.txt"].hunks == (Hunk(1, 1, 1, 1),)
    gone = by["gone.txt"]
    assert (gone.status, gone.new_blob, gone.hunks) == ("D", None, (Hunk(1, 3, 0, 0),))
    assert gone.old_blob is not None
    assert (by["run.sh"].status, by["run.sh"].hunks) == ("M", ())
    assert by["link.txt"].status == "T"
    assert by["link.txt"].hunks == (Hunk(1, 1, 0, 0), Hunk(0, 0, 1, 1))


def test_non_utf8_messages_are_decoded(make_repo):
    raw_repo = make_repo("undeclared")
    raw_repo.commit("Start", {"a": "1\n"})
    # `git commit` converts invalid UTF-8 itself, so write the commit object by hand.
    tree = raw_repo.git("rev-parse", "HEAD^{tree}")
    obj = (f"tree {tree}\nparent {raw_repo.shas[-1]}\n"
           "author Ada <ada@example.com> 1700000000 +0000\n"
           "committer Ada <ada@example.com> 1700000000 +0000\n\n").encode() + \
        b"Caf\xe9 au lait: fix na\xefve parsing\n\nBody \xff\xfe bytes\n"
    sha = raw_repo.git("hash-object", "-t", "commit", "-w", "--stdin", input=obj)
    raw_repo.git("update-ref", "refs/heads/main", sha)
    with open_repository(raw_repo.root) as r:
        raw, _ = list(walk(r))
    assert raw.sha == sha
    assert raw.subject == "Caf\ufffd au lait: fix na\ufffdve parsing"
    assert raw.body == "Body \ufffd\ufffd bytes"
    declared_repo = make_repo("declared")
    declared_repo.git("config", "i18n.commitEncoding", "ISO-8859-1")
    declared_repo.commit("Crème brûlée".encode("latin-1"), {"a": "2\n"})
    assert "encoding ISO-8859-1" in declared_repo.git("cat-file", "commit", "HEAD")
    with open_repository(declared_repo.root) as r:
        (declared,) = list(walk(r))
    assert declared.subject == "Crème brûlée"  # re-encoded by git from its declared encoding


def test_huge_commit_streams(make_repo):
    repo = make_repo("huge")
    repo.commit("Small start", {"start.txt": "s\n"})
    files = {f"gen/file_{i:04}.txt": f"value {i}\nsecond\n" for i in range(2000)}
    big = repo.commit("Generate two thousand files", files)
    repo.commit("Small end", {"start.txt": "t\n"})
    with open_repository(repo.root) as r:
        stream = walk(r)
        first = next(stream)  # newest first, before the rest is read
        assert first.subject == "Small end"
        huge = next(stream)
        assert huge.sha == big and len(huge.changes) == 2000
        assert all(ch.hunks == (Hunk(0, 0, 1, 2),) for ch in huge.changes)
        assert huge.changes[1999].path == "gen/file_1999.txt"
        stream.close()  # stopping early kills git quietly
        early = walk(r)
        next(early)
        early.close()


def test_filter_verdicts_are_filled_in(make_repo):
    repo = make_repo("verdicts")
    fmt = repo.commit("Reformat with black", {"a.py": "x=1\n"})
    repo.commit("Bump requests from 2.31.0 to 2.32.0", {"req.txt": "requests\n"},
                author="dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>")
    repo.commit("v2.34.2", {"v.txt": "2.34.2\n"})
    repo.commit("fix typo", {"a.py": "x = 1\n"})
    repo.commit("Add retries to the adapter (#42)", {"b.py": "retries = 3\n"})
    repo.commit("Ignore the formatting commit", {".git-blame-ignore-revs": f"{fmt}\n"})
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit("Topic work", {"t.py": "t\n"})
    repo.git("checkout", "-q", "main")
    repo.commit("Main work", {"m.py": "m\n"})
    merge(repo, "topic", "Merge branch 'topic'")
    with open_repository(repo.root) as r:
        verdicts = [(c.subject, c.skip_reason, c.pr) for c in walk(r)]
    assert verdicts == [
        ("Merge branch 'topic'", "merge", None),
        ("Main work", None, None),
        ("Topic work", None, None),
        ("Ignore the formatting commit", None, None),
        ("Add retries to the adapter (#42)", None, 42),
        ("fix typo", "trivial", None),
        ("v2.34.2", "release", None),
        ("Bump requests from 2.31.0 to 2.32.0", "bot", None),
        ("Reformat with black", "ignored", None),
    ]
    with open_repository(repo.root) as r:
        assert [c.skip_reason for c in walk(r, ignore_revs=())][-1] is None


def test_bare_and_shallow_clones(history, clone_repo):
    repo, shas = history
    bare = clone_repo(repo.root, "h.git", "--bare")
    with open_repository(bare) as r:
        assert [c.sha for c in walk(r)][:2] == [shas["mailmap"], shas["merge"]]
        root = list(walk(r))[-1]
        assert (root.author, root.email) == ("Ada Lovelace", "ada@example.com")  # mailmap in bare
    shallow = clone_repo(repo.root, "h-shallow", "--depth", "2")
    with open_repository(shallow) as r:
        commits = list(walk(r))
    # depth 2 from the merge-topped tip: the tip, the merge and the merge's parents
    assert commits[0].sha == shas["mailmap"]
    assert {c.sha for c in commits} <= set(shas.values())
    assert len(commits) < 8
    boundary = [c for c in commits if c.parents == ()]
    assert boundary and all(c.changes == () for c in boundary)  # parents missing: diff unknown


def test_walking_writes_nothing(history, snapshot_of):
    repo, _ = history
    (repo.root / "README.md").write_text("# unsaved edit\n")
    os.utime(repo.root / "src" / "pool.py", ns=(1, 1))  # stat-dirty: tempts git to refresh
    before = snapshot_of(repo.root)
    with open_repository(repo.root) as r:
        assert len(list(walk(r))) == 8
        r.ignore_revs(), r.gitattributes("HEAD"), r.count("HEAD"), r.is_empty
    assert snapshot_of(repo.root) == before


def test_user_config_cannot_change_what_is_parsed(history):
    repo, shas = history
    with open_repository(repo.root) as r:
        expected = list(walk(r))
    for key, value in (("diff.noprefix", "true"), ("diff.mnemonicPrefix", "true"),
                       ("diff.interHunkContext", "5"), ("color.ui", "always"),
                       ("diff.external", "false"), ("diff.renames", "false"),
                       ("core.quotePath", "true"), ("log.showRoot", "false"),
                       ("diff.context", "7"), ("format.pretty", "oneline")):
        repo.git("config", key, value)
    with open_repository(repo.root) as r:
        assert list(walk(r)) == expected


def test_detached_head_walks_from_the_detached_commit(history):
    repo, shas = history
    repo.git("checkout", "-q", "--detach", shas["rename"])
    with open_repository(repo.root) as r:
        assert [c.sha for c in walk(r)] == [shas["rename"], shas["edit"], shas["root"]]


def test_old_git_gets_no_newer_options():
    old, new = log_arguments(True, (2, 25, 0)), log_arguments(True, (2, 39, 5))
    assert "--diff-merges=off" not in old and "--no-relative" not in old
    assert "--diff-merges=off" in new and "--no-relative" in new
    assert "-p" not in log_arguments(False, (2, 39))


def test_big_files_are_diffed_as_binary(make_repo, monkeypatch):
    import whylens.history.walk as walk_module

    monkeypatch.setattr(walk_module, "BIG_FILE_THRESHOLD", "1k")
    repo = make_repo("big")
    repo.commit("Add a generated table and a small file",
                {"table.txt": "row\n" * 1000, "small.txt": "s\n"})
    with open_repository(repo.root) as r:
        (c,) = list(walk(r))
    by = {ch.path: ch for ch in c.changes}
    assert by["table.txt"].binary and by["table.txt"].hunks == ()
    assert by["small.txt"].hunks == (Hunk(0, 0, 1, 1),) and not by["small.txt"].binary
