"""A hand-made GitHub export (shaped like the REST API) merged into records from a real history."""

from __future__ import annotations

import json

import pytest

from whylens.models import SymbolEvent
from whylens.records.github import TrackerExportError, load_export, merge_tracker
from whylens.records.history import build_records
from whylens.records.outcome import outcome_status

from .conftest import mine

API = "https://api.github.com/repos/octo/pool"
WEB = "https://github.com/octo/pool"


def user(login, kind="User"):
    return {"login": login, "id": hash(login) % 10_000, "type": kind}


def issue(number, title, body, login="reporter", state_reason="completed", pr=None):
    item = {
        "url": f"{API}/issues/{number}", "html_url": f"{WEB}/issues/{number}", "number": number,
        "title": title, "body": body, "user": user(login), "state": "closed",
        "state_reason": state_reason, "comments": 0, "created_at": "2023-11-01T10:00:00Z",
        "closed_at": "2023-11-20T10:00:00Z", "labels": [],
    }
    if pr is not None:
        item["pull_request"] = {"url": f"{API}/pulls/{number}", "html_url": f"{WEB}/pull/{number}",
                                "merged_at": pr}
        item["html_url"] = f"{WEB}/pull/{number}"
    return item


def pull(number, title, body, merge_sha, merged_at="2023-11-18T09:00:00Z", login="ada"):
    return {
        "url": f"{API}/pulls/{number}", "html_url": f"{WEB}/pull/{number}", "number": number,
        "state": "closed", "title": title, "body": body, "user": user(login),
        "merged_at": merged_at, "merge_commit_sha": merge_sha,
        "head": {"ref": "fix", "sha": "0" * 40}, "base": {"ref": "main", "sha": "1" * 40},
    }


def comment(number, body, login, created, kind="User"):
    return {"url": f"{API}/issues/comments/{abs(hash(body)) % 10**6}", "html_url":
            f"{WEB}/issues/{number}#issuecomment-1", "issue_url": f"{API}/issues/{number}",
            "body": body, "user": user(login, kind), "created_at": created}


def review(number, body, login, created):
    return {"url": f"{API}/pulls/comments/{abs(hash(body)) % 10**6}", "pull_request_review_id": 77,
            "diff_hunk": "@@ -1,3 +1,4 @@", "path": "pool.py", "body": body, "user": user(login),
            "created_at": created, "html_url": f"{WEB}/pull/{number}#discussion_r1",
            "pull_request_url": f"{API}/pulls/{number}"}


@pytest.fixture
def history(make_repo):
    repo = make_repo()
    repo.commit("Add the connection pool", {"pool.py": "class Pool:\n    pass\n"})
    squash = repo.commit("Retry once on connection reset (#34)", {"pool.py": "class Pool:\n    x = 1\n"})
    closer = repo.commit("Close sockets on shutdown", {"pool.py": "class Pool:\n    x = 2\n"})
    bump = repo.commit("Bump urllib3 from 1.0.0 to 2.0.0 (#70)", {"req.txt": "urllib3\n"},
                       author="dependabot[bot] <support@github.com>")
    return {"commits": mine(repo), "squash": squash, "closer": closer, "bump": bump}


def write_export(folder, h):
    folder.mkdir()
    page1 = [issue(12, "Connection reset after idle period", "Requests fail with "
                   "ConnectionResetError after the client sat idle for a while.\n\nSeen on 2.31."),
             issue(34, "Retry once on connection reset", "", login="ada", pr="2023-11-18T09:00:00Z")]
    page2 = [issue(50, "Sockets leak on shutdown", "The pool leaves sockets open at exit."),
             issue(60, "How do I use a proxy?", "Question.", state_reason="not_planned"),
             issue(61, "Docs mention the wrong default", "The docs say 10 but it is 5.")]
    # `gh api --paginate` without --slurp writes pages back to back
    (folder / "issues.json").write_text(json.dumps(page1) + "\n" + json.dumps(page2))
    (folder / "pulls.json").write_text(json.dumps([
        pull(34, "Retry once on connection reset", "Fixes #12\n\nWe now retry a request once "
             "when the pooled connection was reset by the server.", h["squash"]),
        pull(35, "Retry forever", "An earlier attempt.", None, merged_at=None),
        pull(70, "Bump urllib3", "Bumps urllib3.", h["bump"], login="dependabot[bot]"),
    ]))
    (folder / "comments.json").write_text(json.dumps([
        comment(12, "The reset happens because the server closes idle keep-alive connections "
                "after 5 seconds.", "maintainer", "2023-11-02T10:00:00Z"),
        comment(12, "Thanks for the report! I am a bot.", "helper[bot]", "2023-11-02T11:00:00Z", "Bot"),
        comment(34, "Looks good to me, merging.", "maintainer", "2023-11-18T08:00:00Z"),
    ]))
    (folder / "review_comments.json").write_text(json.dumps([
        review(34, "Rather than retrying forever, cap it at one retry so errors still surface.",
               "maintainer", "2023-11-17T10:00:00Z"),
    ]))
    (folder / "events.json").write_text(json.dumps([
        {"id": 1, "event": "closed", "commit_id": h["closer"], "issue": {"number": 50}},
        {"id": 2, "event": "labeled", "commit_id": None, "issue": {"number": 12}},
    ]))


def test_export_coalesces_issue_and_pr_with_provider_fix_edges(tmp_path, history):
    write_export(tmp_path / "export", history)
    export = load_export(tmp_path / "export")
    assert sorted(export.issues) == [12, 50, 60, 61] and sorted(export.pulls) == [34, 35, 70]
    assert export.pulls[34]["merge_commit_sha"] == history["squash"]

    commits = history["commits"]
    events = {history["squash"]: [SymbolEvent(history["squash"], "pool.py", "Pool", "body")]}
    from_history = build_records(commits, events)
    assert "pr-34" in {r.id for r in from_history}
    records = {r.id: r for r in merge_tracker(from_history, export, commits, events)}

    assert "pr-34" not in records  # the same work never answers twice
    rec = records["issue-12"]
    assert rec.kind == "issue" and rec.number == 12 and rec.partner == 34
    assert rec.title == "Connection reset after idle period"
    assert rec.fix_edge_source == "provider" and rec.fixing_commits == (history["squash"],)
    assert rec.anchors == ("Pool",) and rec.url == f"{WEB}/issues/12"
    kinds = [u.kind for u in rec.thread]
    assert kinds.count("comment") == 2 and kinds.count("review") == 1  # the bot's comment is gone
    # the problem as the thread states it, not the title again
    assert rec.problem.text.startswith("Requests fail with ConnectionResetError after the client")
    cause = rec.cause[0]
    assert "because the server closes idle keep-alive" in cause.text
    cited = next(u for u in rec.thread if u.id == cause.unit)
    assert cited.kind == "comment" and cited.author == "maintainer" and cited.url
    assert any("We now retry a request once" in c.text for c in rec.decision)
    # "rather than X, do Y" in a review names what the decision replaced, not a weighed option
    assert not any("Rather than retrying forever" in c.text for c in rec.rejected)
    assert rec.thread_shape == "investigation"
    assert outcome_status(rec, lambda s: False) == "landed"

    closed = records["issue-50"]  # closed by a commit, says the issue's event
    assert closed.fix_edge_source == "provider" and closed.fixing_commits == (history["closer"],)
    unfixed = records["issue-61"]
    assert unfixed.fix_edge_source == "none" and outcome_status(unfixed, lambda s: False) == "unresolved"
    assert "issue-60" not in records  # closed as not planned, no fix: no story to tell
    assert "pr-35" not in records and "pr-70" not in records  # unmerged; a bot's bump


def test_issue_owned_record_from_history_gets_the_tracker_thread(tmp_path, make_repo):
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": "a = 1\n"})
    fix = repo.commit("Drop dead sockets before reuse\n\nFixes #12", {"pool.py": "a = 2\n"})
    commits = mine(repo)
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "issues.json").write_text(json.dumps([[issue(12, "Dead sockets reused", "Reuse fails.")]]))
    records = {r.id: r for r in merge_tracker(build_records(commits, {}), load_export(folder), commits)}
    rec = records["issue-12"]
    assert rec.title == "Dead sockets reused" and rec.fixing_commits == (fix,)
    assert rec.fix_edge_source == "text"  # the link came from the commit message, not the tracker
    assert [u.kind for u in rec.thread] == ["description", "description", "commit"]


@pytest.mark.parametrize("content, message", [
    ('[{"number": 1, "title": "x"', "not valid JSON at line 1"),
    ('[{"login": "someone"}]', "no GitHub issues or pull requests"),
])
def test_bad_exports_give_clear_errors(tmp_path, content, message):
    (tmp_path / "issues.json").write_text(content)
    with pytest.raises(TrackerExportError, match=message):
        load_export(tmp_path)


def test_missing_folder_and_odd_bytes(tmp_path):
    with pytest.raises(TrackerExportError, match="is not a folder"):
        load_export(tmp_path / "nope")
    raw = json.dumps([issue(3, "Caf\u00e9 broken", "x")]).encode("utf-8").replace(b"Caf\\u00e9", b"Caf\xe9")
    (tmp_path / "issues.json").write_bytes(raw)
    assert load_export(tmp_path).issues[3]["title"] == "Caf\ufffd broken"
