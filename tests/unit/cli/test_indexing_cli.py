"""`whylens index/search/stats/export`: the exact contract, and bad input handled clearly."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from whylens.cli import main

from histories import age_index, build_session_history


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def indexed(make_repo, index_dir, capsys):
    repo = make_repo()
    shas = build_session_history(repo)
    code, out, err = run(capsys, "index", "--repo", repo.root, "--index-dir", index_dir)
    assert code == 0, err
    return repo, shas


def test_search_json_contract(indexed, index_dir, capsys):
    repo, shas = indexed
    code, out, _ = run(capsys, "search", "deadlock when the pool is exhausted", "--repo", repo.root,
                       "--index-dir", index_dir, "--json", "-k", "3")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"query", "abstained", "results"}
    assert data["abstained"] is False and 1 <= len(data["results"]) <= 3
    hit = data["results"][0]
    assert set(hit) - {"problem", "cause", "decision", "rejected", "outcome"} == {
        "id", "type", "title", "content", "score", "commit", "author", "date", "files",
        "symbols", "source", "url", "snippet"}
    assert hit["snippet"] and len(hit["snippet"]) <= 256
    assert hit["commit"] == shas["deadlock"]
    assert hit["type"] in ("fact", "skill", "pattern", "decision")


def test_search_prints_the_answer_sentences_under_the_title(indexed, index_dir, capsys):
    repo, shas = indexed
    code, out, _ = run(capsys, "search", "why would send hang forever?", "--repo", repo.root,
                       "--index-dir", index_dir, "-k", "1")
    assert code == 0
    title, snippet, citation = out.splitlines()[:3]
    assert title.startswith("[") and snippet.startswith("    ")
    shown = title + snippet  # a fact's title is its sentence: the snippet then says the rest
    assert "blocked forever" in shown or "hang forever" in shown
    assert shas["deadlock"][:12] in citation or shas["timeout"][:12] in citation
    code, out, _ = run(capsys, "search", "why would send hang forever?", "--repo", repo.root,
                       "--index-dir", index_dir, "-k", "1", "--json", "--budget", "40")
    assert code == 0 and 0 < len(json.loads(out)["results"][0]["snippet"]) <= 40


def test_search_spends_the_snippet_on_what_the_title_line_does_not_say(make_repo, index_dir,
                                                                       capsys):
    """The title is printed above the snippet: a snippet that quoted the subject again (or
    "subject (#42)") had that much less room for the sentence that explains, and a line of
    issue references is no answer. Here the explaining sentence only fits without the subject."""
    repo = make_repo()
    subject = "Escape the URL printed in the plain text body of redirect responses"
    repo.commit(f"{subject} (#42)\n\n{subject}\n\nThis prevents old browsers from sniffing "
                "the plain text body as markup and running the script a crafted location holds, "
                "which made redirects a cross-site scripting hole.\n\ncloses #4802 closes #4803",
                {"lib/response.js": "res.redirect = function () {}\n"})
    repo.commit("Add a changelog entry for the next release",
                {"History.md": "unreleased\n"})
    code, _, err = run(capsys, "index", "--repo", repo.root, "--index-dir", index_dir)
    assert code == 0, err
    query = "why escape the URL printed in the plain text body of redirect responses?"
    code, out, _ = run(capsys, "search", query, "--repo", repo.root, "--index-dir", index_dir,
                       "--json", "-k", "1", "--budget", "200")
    hit = json.loads(out)["results"][0]
    assert code == 0 and hit["title"].startswith(subject)
    assert "cross-site scripting hole" in hit["snippet"], hit["snippet"]
    assert subject not in hit["snippet"] and "closes #" not in hit["snippet"]
    code, out, _ = run(capsys, "search", query, "--repo", repo.root, "--index-dir", index_dir,
                       "-k", "1", "--budget", "200")
    assert code == 0 and out.count(subject) == 1 and "cross-site scripting hole" in out


@pytest.mark.parametrize("args, message", [
    (["   "], "the query is empty"),
    (["timeout", "--budget", "-1"], "--budget must be 0 or more"),
    (["timeout", "-k", "0"], "-k must be at least 1"),
])
def test_search_bad_input(indexed, index_dir, capsys, args, message):
    repo, _ = indexed
    code, _, err = run(capsys, "search", *args, "--repo", repo.root, "--index-dir", index_dir)
    assert code == 2 and message in err


@pytest.mark.parametrize("query", ["the and of", "?!...", "ünïcödé 😀", "x" * 10_000])
def test_search_odd_queries_answer_or_stay_silent(indexed, index_dir, capsys, query):
    repo, _ = indexed
    code, out, err = run(capsys, "search", query, "--repo", repo.root, "--index-dir", index_dir,
                         "--json")
    assert code == 0 and err == ""
    assert isinstance(json.loads(out)["abstained"], bool)


def test_search_on_an_index_of_another_version_rebuilds_it_once(indexed, index_dir, capsys,
                                                                caplog):
    repo, shas = indexed
    age_index(index_dir)
    argv = ("search", "deadlock when the pool is exhausted", "--repo", repo.root, "--index-dir",
            index_dir, "--json")
    with caplog.at_level(logging.WARNING):
        code, out, _ = run(capsys, *argv)
        assert code == 0 and json.loads(out)["results"][0]["commit"] == shas["deadlock"]
        code, _, _ = run(capsys, *argv)
        assert code == 0
    said = [r.getMessage() for r in caplog.records if "rebuilding it" in r.getMessage()]
    assert len(said) == 1 and "another WhyLens version" in said[0]


def test_search_type_filter_and_bad_type(indexed, index_dir, capsys):
    repo, _ = indexed
    code, out, _ = run(capsys, "search", "timeout", "--repo", repo.root, "--index-dir", index_dir,
                       "--json", "--type", "fact")
    assert code == 0
    assert all(h["type"] == "fact" for h in json.loads(out)["results"])
    code, _, err = run(capsys, "search", "timeout", "--repo", repo.root, "--index-dir", index_dir,
                       "--type", "rumour")
    assert code == 2 and "unknown --type rumour" in err


def test_stats_and_export(indexed, index_dir, capsys):
    repo, shas = indexed
    code, out, _ = run(capsys, "stats", "--repo", repo.root, "--index-dir", index_dir, "--json")
    assert code == 0
    stats = json.loads(out)
    assert stats["commits"] == 4 and stats["filtered"] == {"trivial": 1}
    assert stats["units_total"] == sum(stats["units"].values()) > 0
    assert stats["units_per_1k_commits"] == round(stats["units_total"] * 1000 / 4, 1)
    assert stats["last_commit"] == shas["timeout"] and stats["shallow"] is False
    assert stats["index_bytes"] > 0
    code, out, _ = run(capsys, "export", "--repo", repo.root, "--index-dir", index_dir,
                       "--strip-attribution")
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines and all(line["author"] == "" for line in lines)
    code2, out2, _ = run(capsys, "export", "--repo", repo.root, "--index-dir", index_dir,
                         "--strip-attribution")
    assert out2 == out  # stable order


def test_not_a_repository(tmp_path, capsys):
    code, _, err = run(capsys, "index", "--repo", tmp_path, "--index-dir", tmp_path / "ix")
    assert code == 1 and "not inside a git repository" in err


def test_empty_repository(make_repo, index_dir, capsys):
    repo = make_repo()
    code, _, err = run(capsys, "index", "--repo", repo.root, "--index-dir", index_dir)
    assert code == 1 and "no commits" in err


def test_unknown_revision(indexed, tmp_path, capsys):
    repo, _ = indexed
    code, _, err = run(capsys, "index", "--repo", repo.root, "--index-dir", tmp_path / "other",
                       "--rev", "no-such-branch")
    assert code == 1 and "unknown revision" in err


def test_bare_and_shallow_clones(indexed, tmp_path, capsys):
    repo, shas = indexed
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.root), str(bare)], check=True)
    code, _, err = run(capsys, "index", "--repo", bare, "--index-dir", tmp_path / "ix-bare")
    assert code == 0, err
    code, out, _ = run(capsys, "search", "deadlock pool exhausted", "--repo", bare,
                       "--index-dir", tmp_path / "ix-bare", "--json")
    assert json.loads(out)["results"][0]["commit"] == shas["deadlock"]

    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{repo.root}", str(shallow)],
                   check=True)
    code, out, err = run(capsys, "index", "--repo", shallow, "--index-dir", tmp_path / "ix-sh")
    assert code == 0, err
    assert "shallow" in out
    code, out, _ = run(capsys, "stats", "--repo", shallow, "--index-dir", tmp_path / "ix-sh",
                       "--json")
    assert json.loads(out)["shallow"] is True


def test_detached_head_and_non_utf8_message(make_repo, index_dir, capsys):
    repo = make_repo()
    build_session_history(repo)
    repo.git("checkout", "-q", "--detach", "HEAD~1")
    sha = repo.commit("Caf\xe9 encoding: fail when the header is latin-1".encode("latin-1") +
                      b"\n\nThe parser raises UnicodeDecodeError when a caf\xe9 header is not UTF-8.\n",
                      {"src/headers.py": "def parse(raw):\n    return raw.decode('latin-1')\n"})
    code, _, err = run(capsys, "index", "--repo", repo.root, "--index-dir", index_dir)
    assert code == 0, err
    code, out, _ = run(capsys, "search", "UnicodeDecodeError header", "--repo", repo.root,
                       "--index-dir", index_dir, "--json")
    assert json.loads(out)["results"][0]["commit"] == sha
    code, out, _ = run(capsys, "export", "--repo", repo.root, "--index-dir", index_dir)
    texts = [line for line in out.splitlines() if sha in line]
    # Bytes that are not UTF-8 are decoded (as Latin-1 or with U+FFFD), never a crash.
    assert texts and any("caf\u00e9 header" in t or "caf\ufffd header" in t for t in texts)


def test_huge_commit(make_repo, index_dir, capsys):
    repo = make_repo()
    files = {f"pkg/mod{i}.py": f"def f{i}():\n    return {i}\n" for i in range(1500)}
    repo.commit("Generate the module table\n\nEvery module must export f so the loader can "
                "find it.", files)
    code, out, err = run(capsys, "index", "--repo", repo.root, "--index-dir", index_dir, "--json")
    assert code == 0, err
    assert json.loads(out)["commits_indexed"] == 1


def test_missing_index_and_corrupt_index(indexed, index_dir, tmp_path, capsys):
    repo, _ = indexed
    code, _, err = run(capsys, "search", "x", "--repo", repo.root, "--index-dir", tmp_path / "none")
    assert code == 1 and "whylens index" in err
    for path in index_dir.rglob("*"):
        if path.is_file():
            path.write_bytes(b"\0garbage")
    code, _, err = run(capsys, "search", "deadlock", "--repo", repo.root, "--index-dir", index_dir)
    assert code == 1 and "rebuild" in err


def test_git_missing(indexed, index_dir, tmp_path):
    repo, _ = indexed
    empty_bin = tmp_path / "nobin"
    empty_bin.mkdir()
    env = {**os.environ, "PATH": str(empty_bin)}
    proc = subprocess.run([sys.executable, "-m", "whylens", "index", "--repo", str(repo.root),
                           "--index-dir", str(tmp_path / "ix2")], env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 1
    assert "git was not found" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_killed_indexer_leaves_a_readable_index_and_resumes(make_repo, tmp_path):
    """SIGKILL a real `whylens index` at several points; the next run always completes."""
    repo = make_repo()
    build_session_history(repo)
    for i in range(120):
        repo.commit(f"Handle case {i}\n\nParsing must reject a header longer than {i} bytes, "
                    f"otherwise it raises OverflowError{i}.",
                    {f"src/mod{i % 7}.py": f"def parse_{i}(raw):\n    return raw[:{i}]\n"},
                    days=0)
    clean = tmp_path / "clean"
    subprocess.run([sys.executable, "-m", "whylens", "index", "--repo", str(repo.root),
                    "--index-dir", str(clean)], check=True, capture_output=True)
    expected = subprocess.run([sys.executable, "-m", "whylens", "export", "--repo",
                               str(repo.root), "--index-dir", str(clean)],
                              check=True, capture_output=True, text=True).stdout
    for kill_after_lines in (1, 2, 4, "worker"):  # "worker": once the anchor worker runs
        target = tmp_path / f"killed{kill_after_lines}"
        # Through the anchor worker process, tagged so that a surviving one can be found.
        env = {**os.environ, "WHYLENS_ANCHOR_WORKER_MIN_COMMITS": "1",
               "WHYLENS_TEST_TAG": str(target)}
        proc = subprocess.Popen([sys.executable, "-m", "whylens", "index", "--repo", str(repo.root),
                                 "--index-dir", str(target), "--progress", "json"],
                                stdout=subprocess.PIPE, text=True, env=env)
        if kill_after_lines == "worker":
            assert _wait_for_worker(str(target), proc.pid), "the anchor worker never started"
        for _ in range(0 if kill_after_lines == "worker" else kill_after_lines):
            if not proc.stdout.readline():
                break
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert _no_process_tagged(str(target)), "a child of the killed indexer survived it"
        # Whatever it left opens (or is reported missing) without a traceback.
        left = subprocess.run([sys.executable, "-m", "whylens", "stats", "--repo", str(repo.root),
                               "--index-dir", str(target)], capture_output=True, text=True)
        assert left.returncode in (0, 1) and "Traceback" not in left.stderr
        subprocess.run([sys.executable, "-m", "whylens", "index", "--repo", str(repo.root),
                        "--index-dir", str(target)], check=True, capture_output=True)
        resumed = subprocess.run([sys.executable, "-m", "whylens", "export", "--repo",
                                  str(repo.root), "--index-dir", str(target)],
                                 check=True, capture_output=True, text=True).stdout
        assert resumed == expected
    shutil.rmtree(clean)


def _tagged(tag: str) -> dict[int, bytes]:
    """Live processes (pid → command line) with WHYLENS_TEST_TAG=tag in their environment."""
    needle = f"WHYLENS_TEST_TAG={tag}".encode() + b"\0"
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as environ:
                if needle not in environ.read():
                    continue
            with open(f"/proc/{pid}/stat") as stat:  # a zombie is dead already
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                found[int(pid)] = cmdline.read()
        except OSError:
            continue
    return found


def _wait_for_worker(tag: str, parent: int, wait_seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        if any(b"spawn_main" in cmd for pid, cmd in _tagged(tag).items() if pid != parent):
            return True
        time.sleep(0.01)
    return False


def _no_process_tagged(tag: str, wait_seconds: float = 10.0) -> bool:
    """True once no live process has WHYLENS_TEST_TAG=tag in its environment."""
    deadline = time.monotonic() + wait_seconds
    while _tagged(tag):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_locked_index_says_how_to_fix_and_loses_nothing(indexed, index_dir, capsys):
    from whylens.index.store import IndexStore

    repo, shas = indexed
    repo.commit("Retry once on ConnectionResetError\n\nA reset connection fails when the server "
                "restarts; retry once instead of failing.", {"NOTES.md": "retry\n"})
    with IndexStore(index_dir).writer():  # another whylens process is writing
        code, _, err = run(capsys, "index", "--repo", repo.root, "--index-dir", index_dir)
        assert code == 1 and "being written by another whylens process" in err
        code, out, _ = run(capsys, "search", "deadlock pool exhausted", "--repo", repo.root,
                           "--index-dir", index_dir, "--json")
        assert code == 0 and json.loads(out)["results"][0]["commit"] == shas["deadlock"]
    code, out, err = run(capsys, "index", "--repo", repo.root, "--index-dir", index_dir, "--json")
    assert code == 0, err
    assert json.loads(out)["commits_indexed"] == 1


def test_index_rebuilds_an_index_whose_generation_vanished(indexed, index_dir, capsys, caplog):
    """A cache cleaner deleting part of the index folder: `index` rebuilds, it does not loop."""
    repo, shas = indexed
    for generation in index_dir.glob("gen-*"):
        shutil.rmtree(generation)
    code, _, err = run(capsys, "search", "deadlock", "--repo", repo.root, "--index-dir", index_dir)
    assert code == 1 and "rebuild" in err
    code, out, err = run(capsys, "index", "--repo", repo.root, "--index-dir", index_dir, "--json")
    assert code == 0, err
    assert json.loads(out)["mode"] == "full" and "rebuilding it from git" in caplog.text
    code, out, _ = run(capsys, "search", "deadlock pool exhausted", "--repo", repo.root,
                       "--index-dir", index_dir, "--json")
    assert json.loads(out)["results"][0]["commit"] == shas["deadlock"]
