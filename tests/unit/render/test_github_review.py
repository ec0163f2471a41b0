"""The GitHub side: the review body matches the create-a-review API's shape, every comment sits on
a line of the diff, and the ready workflow in docs/ parses and runs the right commands."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

from whylens.cli import main
from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.pipeline import run_index

from retrieval.retry_history import CLIENT_V5, FIXED_DELAY, build_retry_history

DOCS = Path(__file__).resolve().parents[3] / "docs"
SCHEMA = json.loads((DOCS / "github-review-schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


@pytest.fixture
def pull_request(make_repo, index_dir):
    """A branch that brings back the reverted fixed delay and drops the fix's timeout."""
    repo = make_repo("pr")
    build_retry_history(repo)
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature")
    head = repo.commit("Simplify fetch\n", {"src/client.py": CLIENT_V5.replace(
        "            time.sleep(backoff(attempt))\n", FIXED_DELAY).replace(
        "session.get(url, timeout=10)", "session.get(url)")})
    return repo, head, ["--repo", str(repo.root), "--index-dir", str(index_dir)]


def test_the_review_body_matches_the_api_and_every_line_is_in_the_diff(pull_request, capsys):
    repo, head, common = pull_request
    assert main(["pr-comments", *common, "--base", "main", "--head", head, "--format", "github"]) == 0
    body = json.loads(capsys.readouterr().out)
    VALIDATOR.validate(body)
    assert body["commit_id"] == head and body["event"] == "COMMENT"
    assert {c["body"].split("**")[1] for c in body["comments"]} >= {
        "Brings back a reverted change", "Brings back code a fix replaced"}
    with open_repository(repo.root) as git:
        changes = diff_changes(git, "main", head)
    lines = {("RIGHT", c.path, n) for c in changes for h in c.hunks
             for n in range(h.new_start, h.new_start + h.new_count)}
    lines |= {("LEFT", c.path, n) for c in changes for h in c.hunks
              for n in range(h.old_start, h.old_start + h.old_count)}
    for comment in body["comments"]:
        assert (comment["side"], comment["path"], comment["line"]) in lines
        assert "start_line" not in comment or comment["start_line"] < comment["line"]


@pytest.mark.parametrize("broken", [
    {"event": "MERGE", "body": "x", "comments": []},
    {"event": "COMMENT", "comments": []},  # a COMMENT review needs a body
    {"event": "COMMENT", "body": "x", "comments": [{"path": "a.py", "line": 3, "side": "UP", "body": "b"}]},
    {"event": "COMMENT", "body": "x", "comments": [{"path": "a.py", "line": 3, "side": "RIGHT"}]},
    {"event": "COMMENT", "body": "x", "comments": [{"path": "a.py", "body": "b"}]},  # no line
    {"event": "COMMENT", "body": "x", "comments": [{"path": "a.py", "line": 3, "start_side": "LEFT",
                                                  "body": "b"}]},  # start_side needs start_line
    {"event": "COMMENT", "body": "x", "commit_id": "HEAD", "comments": []},
    {"event": "COMMENT", "body": "x", "comments": [], "unknown": 1},
])
def test_the_schema_rejects_what_github_rejects(broken):
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(broken)


def _workflow() -> dict:
    return yaml.safe_load((DOCS / "github-action-review.yml").read_text(encoding="utf-8"))


def test_the_workflow_parses_and_runs_pr_comments_on_the_pull_request():
    flow = _workflow()
    on = flow.get("on", flow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "pull_request" in on and "pull_request_target" not in on
    assert flow["permissions"] == {"contents": "read", "pull-requests": "write"}
    steps = flow["jobs"]["review"]["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    runs = [s["run"] for s in steps if "run" in s]
    review = next(r for r in runs if "whylens pr-comments" in r and "--format github" in r)
    assert '--head "$HEAD_SHA"' in review and "git merge-base" in review
    assert any("whylens index" in r and '--rev "$BASE_SHA"' in r for r in runs)
    post = next(s for s in steps if "gh api" in s.get("run", ""))
    assert 'pulls/$PR_NUMBER/reviews" --input "$REVIEW_JSON"' in post["run"]
    assert post["env"]["GH_TOKEN"] == "${{ secrets.GITHUB_TOKEN }}"


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_the_workflow_scripts_are_valid_bash_and_splice_no_event_values():
    for step in _workflow()["jobs"]["review"]["steps"]:
        if "run" not in step:
            continue
        assert "${{" not in step["run"], f"{step.get('name')}: pass event values through env"
        checked = subprocess.run(["bash", "-n"], input=step["run"], text=True, capture_output=True)
        assert checked.returncode == 0, checked.stderr
