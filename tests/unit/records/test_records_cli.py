"""`whylens records …` end to end: a real repository, a real index, a loopback model endpoint."""

from __future__ import annotations

import json

import pytest

from whylens.cli import main

from .test_github_export import comment, issue, pull
from .test_model_ladder import Replay

SESSION = "class Session:\n    def send(self, request):\n        return self.adapter.send(request)\n"
SESSION_FIXED = ("class Session:\n    def send(self, request):\n"
                 "        return self.adapter.send(request, timeout=self.timeout)\n")


@pytest.fixture
def indexed(make_repo, index_dir, capsys):
    repo = make_repo()
    repo.commit("Add a Session that sends requests", {"session.py": SESSION})
    fix = repo.commit("Pass the session timeout to the adapter (#34)\n\nRequests hung forever "
                      "because the adapter never got a timeout.\n\nFixes #12",
                      {"session.py": SESSION_FIXED})
    undo = repo.commit(f'Revert "Pass the session timeout to the adapter (#34)"\n\nThis reverts '
                       f"commit {fix}.", {"session.py": SESSION})
    assert main(["index", "--repo", str(repo.root), "--index-dir", str(index_dir)]) == 0
    capsys.readouterr()
    return repo, fix, undo


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_list_and_show(indexed, index_dir, capsys):
    repo, fix, _ = indexed
    where = ["--repo", str(repo.root), "--index-dir", str(index_dir)]
    code, out, _ = run(capsys, "records", "list", "--json", *where)
    assert code == 0
    rows = {r["id"]: r for r in json.loads(out)}
    assert set(rows) == {"issue-12"}
    assert rows["issue-12"]["outcome_status"] == "reverted" and rows["issue-12"]["partner"] == 34

    code, out, _ = run(capsys, "records", "show", "issue-12", "--json", *where)
    data = json.loads(out)
    assert code == 0 and data["fixing_commits"] == [fix] and data["anchors"] == ["Session.send"]
    stated = [c["text"] for c in [data["problem"]] + data["cause"] if c]
    assert any(t.startswith("Requests hung forever because") for t in stated)
    assert data["label"] == "distilled, unreviewed" and data["fix_edge_source"] == "text"

    code, out, _ = run(capsys, "records", "show", "issue-12", *where)
    assert code == 0 and "reverted · fix edge: text" in out and "[U2] Requests hung forever" in out

    code, _, err = run(capsys, "records", "show", "pr-99", *where)
    assert code == 2 and "no record 'pr-99'" in err


def test_import_github_coalesces_and_gives_provider_edges(indexed, index_dir, tmp_path, capsys):
    repo, fix, _ = indexed
    tweak = repo.commit("Tweak the adapter call", {"session.py": SESSION_FIXED})  # no rationale: no record
    assert main(["index", "--repo", str(repo.root), "--index-dir", str(index_dir)]) == 0
    capsys.readouterr()
    export = tmp_path / "export"
    export.mkdir()
    (export / "events.json").write_text(json.dumps([{"event": "closed", "commit_id": tweak,
                                                      "issue": {"number": 50}}]))
    (export / "issues.json").write_text(json.dumps([
        issue(12, "Requests hang without a timeout", "A request to a dead host never returns."),
        issue(50, "Adapter call is odd", "The adapter call drops the session timeout, so "
              "Session.send blocks forever when the host is dead and the caller never "
              "gets an error."),
    ]))
    (export / "pulls.json").write_text(json.dumps([pull(34, "Pass the session timeout", "Fixes #12", fix)]))
    (export / "comments.json").write_text(json.dumps([comment(
        12, "It hangs because no socket timeout is set by default.", "m", "2023-11-02T10:00:00Z")]))
    where = ["--repo", str(repo.root), "--index-dir", str(index_dir)]
    code, out, _ = run(capsys, "records", "import-github", str(export), "--json", *where)
    assert code == 0 and json.loads(out)["records"] == 2
    code, _, err = run(capsys, "records", "show", "pr-34", *where)
    assert code == 2  # the PR is issue-12's partner: the same work never answers twice
    code, out, _ = run(capsys, "records", "show", "issue-12", "--json", *where)
    data = json.loads(out)
    assert data["title"] == "Requests hang without a timeout" and data["fix_edge_source"] == "provider"
    assert data["anchors"] == ["Session.send"] and data["partner"] == 34
    assert any(u["kind"] == "comment" for u in data["thread"])
    code, out, _ = run(capsys, "records", "show", "issue-50", "--json", *where)
    # closed by a commit that had no record: anchored on import, as its thread explains the
    # symbol (a thread that explains nothing is no decision of it: knowledge.confidence)
    data = json.loads(out)
    assert data["fixing_commits"] == [tweak] and data["anchors"] == ["Session.send"]
    assert data["fix_edge_source"] == "provider" and data["outcome_status"] == "landed"

    code, _, err = run(capsys, "records", "import-github", str(tmp_path / "missing"), *where)
    assert code == 2 and "is not a folder" in err


def test_drain_through_a_loopback_model(indexed, index_dir, capsys):
    repo, _, _ = indexed
    where = ["--repo", str(repo.root), "--index-dir", str(index_dir)]
    code, _, err = run(capsys, "records", "drain", "--limit", "5", *where)
    assert code == 2 and "[llm.distill]" in err  # opt-in: off until configured

    reply = {"problem": {"text": "Requests hung forever.", "unit": "U2"},
             "cause": [{"text": "The adapter never got a timeout.", "unit": "U2"}],
             "decision": [{"text": "Pass the session timeout to the adapter.", "unit": "U1"}],
             "rejected": [], "anchors": ["Session.send"]}
    server = Replay([(200, json.dumps(reply), 0)])
    try:
        (index_dir / "whylens.toml").write_text(
            f'[llm.distill]\nendpoint = "{server.settings.endpoint}"\nmodel = "m"\ntimeout = 5\n')
        code, out, _ = run(capsys, "records", "drain", "--limit", "5", "--json", *where)
        assert code == 0 and json.loads(out)["done"] == ["issue-12"]
        code, out, _ = run(capsys, "records", "show", "issue-12", "--json", *where)
        data = json.loads(out)
        assert data["distilled_by"] == "model" and data["cause"][0]["text"] == "The adapter never got a timeout."
        code, out, _ = run(capsys, "records", "drain", "--limit", "5", "--json", *where)
        assert code == 0 and json.loads(out)["requests"] == 0  # nothing new: the endpoint is idle
        assert len(server.requests) == 1
    finally:
        server.close()


def test_a_killed_drain_resumes(make_repo, index_dir, capsys):
    import os
    import signal
    import subprocess
    import sys
    import time

    repo = make_repo()
    repo.commit("Add a Session that sends requests", {"session.py": SESSION})
    repo.commit("Pass the timeout (#34)\n\nRequests hung because no timeout was set.", {"session.py": SESSION_FIXED})
    repo.commit("Keep the old adapter (#35)\n\nWe considered a new adapter instead.", {"session.py": SESSION})
    assert main(["index", "--repo", str(repo.root), "--index-dir", str(index_dir)]) == 0
    capsys.readouterr()
    answer = json.dumps({"problem": None, "cause": [], "decision": [{"text": "Distilled.", "unit": "U1"}],
                         "rejected": [], "anchors": []})
    argv = [sys.executable, "-m", "whylens", "records", "drain", "--limit", "5", "--json",
            "--repo", str(repo.root), "--index-dir", str(index_dir)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

    first = Replay([(200, answer, 0), (200, answer, 30)])  # the second answer never comes in time
    try:
        (index_dir / "whylens.toml").write_text(
            f'[llm.distill]\nendpoint = "{first.settings.endpoint}"\nmodel = "m"\ntimeout = 60\n')
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while len(first.requests) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert len(first.requests) == 2, proc.communicate()
        proc.send_signal(signal.SIGKILL)  # killed while the second record is in flight
        proc.wait()
    finally:
        first.close()

    second = Replay([(200, answer, 0)])
    try:
        (index_dir / "whylens.toml").write_text(
            f'[llm.distill]\nendpoint = "{second.settings.endpoint}"\nmodel = "m"\ntimeout = 60\n')
        code, out, _ = run(capsys, "records", "drain", "--limit", "5", "--json",
                           "--repo", str(repo.root), "--index-dir", str(index_dir))
        data = json.loads(out)
        assert code == 0 and len(data["done"]) == 1 and data["requests"] == 1  # only the unfinished one
        assert data["written"] == 2 and data["queue"] == {"done": 2}  # the first one's durable result too
    finally:
        second.close()
    code, out, _ = run(capsys, "records", "list", "--json", "--repo", str(repo.root), "--index-dir", str(index_dir))
    assert {r["distilled_by"] for r in json.loads(out)} == {"model"}
