"""The model pass against a real loopback HTTP server replaying recorded replies."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from whylens.errors import InvalidInputError
from whylens.models import Claim, Record, ThreadUnit
from whylens.records.model.drain import drain, run_ladder
from whylens.records.model.prompt import input_hash, snapshot
from whylens.records.model.queue import DistillQueue
from whylens.records.model.settings import DistillSettings, load_settings
from whylens.records.model.validate import apply

RECORD = Record(
    id="pr-12", kind="pr", number=12, title="Use a lock around pool access",
    problem=Claim("Use a lock around pool access", "U1"),
    thread=(
        ThreadUnit("U1", "ada", "description", "Use a lock around pool access"),
        ThreadUnit("U2", "ada", "description", "Connections were handed out twice because pop "
                   "raced with release."),
        ThreadUnit("U3", "ada", "description", "We considered a queue instead, but it reorders "
                   "connections."),
    ),
    anchors=("Pool.get", "Pool.release"), fixing_commits=("a" * 40,), merged=True,
    fix_edge_source="text",
)

VALID = {
    "problem": {"text": "Connections were handed out twice.", "unit": "U2"},
    "cause": [{"text": "pop raced with release", "unit": "U2"},
              {"text": "pop raced with release", "unit": "U2"}],  # a duplicate, dropped
    "decision": [{"text": "Guard the pool with a lock.", "unit": "U1"}],
    "rejected": [{"text": "A queue, because it reorders connections.", "unit": "U3"}],
    "anchors": ["Pool.get", "Pool.get"],
}
FENCED = "Here you go:\n```json\n" + json.dumps(VALID) + "\n```\n"
MALFORMED = '{"problem": {"text": "x", "unit": "U1"}, "cause": ['
FABRICATED = json.dumps({**VALID, "cause": [{"text": "The moon was full.", "unit": "U9"}]})
OFF_LIST = json.dumps({**VALID, "anchors": ["Session.send"]})


class Replay:
    """A loopback OpenAI-compatible endpoint: answers from a script, records every request."""

    def __init__(self, script):
        self.script = list(script)
        self.requests: list[dict] = []
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                replay.requests.append({"path": self.path, "body": body})
                status, content, delay = replay.script.pop(0) if replay.script else (500, "empty", 0)
                time.sleep(delay)
                payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}) \
                    if status == 200 else json.dumps({"error": content})
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(payload.encode())
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,),
                                       daemon=True)
        self.thread.start()
        self.settings = DistillSettings(f"http://127.0.0.1:{self.server.server_port}/v1", "test-model",
                                        timeout=0.3)

    def close(self):
        if self.thread.is_alive():
            self.server.shutdown()
            self.server.server_close()


@pytest.fixture
def replay():
    servers = []

    def start(*script):
        server = Replay(script)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def ok(content):
    return (200, content if isinstance(content, str) else json.dumps(content), 0)


def test_valid_guided_reply_is_accepted_deduped_and_applied(replay):
    server = replay(ok(VALID))
    result = run_ladder(server.settings, snapshot(RECORD))
    assert result.steps == ["guided"] and len(server.requests) == 1
    sent = server.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["body"]["model"] == "test-model"
    schema = sent["body"]["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["anchors"]["items"]["enum"] == ["Pool.get", "Pool.release"]
    assert len(result.result["cause"]) == 1 and result.result["anchors"] == ["Pool.get"]
    distilled = apply(RECORD, result.result)
    assert distilled.distilled_by == "model" and distilled.anchors == ("Pool.get",)
    assert distilled.rejected == (Claim("A queue, because it reorders connections.", "U3"),)


def test_fenced_reply_passes_at_the_tolerant_rung(replay):
    server = replay(ok(FENCED), ok(FENCED))
    result = run_ladder(server.settings, snapshot(RECORD))
    assert result.steps == ["guided", "retry", "tolerant"] and result.result["decision"]
    assert "response_format" not in server.requests[1]["body"]  # the retry is unguided


def test_malformed_then_valid_retry(replay):
    server = replay(ok(MALFORMED), ok(VALID))
    result = run_ladder(server.settings, snapshot(RECORD))
    assert result.steps == ["guided", "retry"] and result.result is not None


@pytest.mark.parametrize("bad, reason", [
    (MALFORMED, "not JSON"),
    (FABRICATED, "cites U9, which is not a unit"),
    (OFF_LIST, "not in the candidate list: Session.send"),
], ids=["malformed", "fabricated-citation", "off-list-anchor"])
def test_bad_replies_fail_keep_the_raw_reply_and_requeue(replay, tmp_path, bad, reason):
    server = replay(ok(bad), ok(bad))
    with DistillQueue(tmp_path, server.settings.model) as queue:
        assert queue.enqueue([RECORD]) == 1
        summary = drain(queue, server.settings, limit=5)
        assert summary.failed == ["pr-12"] and not summary.done and summary.requests == 2
        row = queue.row("pr-12")
        assert row["status"] == "pending" and row["attempts"] == 1
        assert row["raw_reply"] == bad and reason in row["error"]


def test_timeout_stops_the_drain_and_leaves_the_record_pending(replay, tmp_path):
    server = replay((200, json.dumps(VALID), 0.8))
    other = Record(id="pr-13", kind="pr", number=13, title="Other",
                   thread=(ThreadUnit("U1", "", "description", "Other"),))
    with DistillQueue(tmp_path, server.settings.model) as queue:
        queue.enqueue([RECORD, other])
        summary = drain(queue, server.settings, limit=5)
        assert summary.stopped and "no answer" in summary.stopped and summary.requests == 1
        assert queue.counts() == {"pending": 2}
        assert queue.row(summary.done[0] if summary.done else "pr-12")["attempts"] == 0


def test_unchanged_input_is_never_resent_and_zero_work_touches_nothing(replay, tmp_path):
    server = replay(ok(VALID))
    with DistillQueue(tmp_path, server.settings.model) as queue:
        queue.enqueue([RECORD])
        seen = []
        assert drain(queue, server.settings, 10, on_done=lambda rid, res: seen.append(rid)).done == ["pr-12"]
        assert seen == ["pr-12"]
        digest = input_hash(snapshot(RECORD), server.settings.model)
        assert queue.result("pr-12", digest)["anchors"] == ["Pool.get"]
        assert queue.enqueue([RECORD]) == 0  # same input: not queued again
        assert drain(queue, server.settings, 10).requests == 0
    assert len(server.requests) == 1
    # the endpoint is not even reachable now: a zero-work run must not notice
    server.close()
    with DistillQueue(tmp_path, server.settings.model) as queue:
        assert drain(queue, server.settings, 10).as_dict() == {"done": [], "failed": [], "requests": 0,
                                                                "stopped": None}
        changed = RECORD.__class__(**{**RECORD.__dict__, "title": "Use a lock (edited)"})
        assert queue.enqueue([changed]) == 1  # a changed input resets its row


def test_a_killed_drain_resumes_with_what_is_pending(replay, tmp_path):
    second = Record(id="pr-13", kind="pr", number=13, title="Other",
                    thread=(ThreadUnit("U1", "", "description", "Other thing"),))
    answer13 = {"problem": None, "cause": [], "decision": [{"text": "Other thing.", "unit": "U1"}],
                "rejected": [], "anchors": []}
    server = replay(ok(VALID), ok(answer13))
    with DistillQueue(tmp_path, server.settings.model) as queue:
        queue.enqueue([RECORD, second])
        assert drain(queue, server.settings, limit=1).done == ["pr-12"]  # "killed" after one
    with DistillQueue(tmp_path, server.settings.model) as queue:  # a new process
        assert drain(queue, server.settings, limit=10).done == ["pr-13"]
        assert queue.counts() == {"done": 2}


def test_settings_file_lookup(tmp_path):
    index_dir, repo_root = tmp_path / "index", tmp_path / "repo"
    index_dir.mkdir()
    repo_root.mkdir()
    assert load_settings(index_dir, repo_root) is None
    # A repository may suggest a model, never an endpoint or a credential.
    (repo_root / "whylens.toml").write_text('[llm.distill]\nmodel = "m"\ntimeout = 5\n')
    assert load_settings(index_dir, repo_root) is None  # not turned on by the user
    (repo_root / "whylens.toml").write_text('[llm.distill]\nendpoint = "http://evil.example/v1"\n'
                                            'model = "m"\napi_key_env = "GITHUB_TOKEN"\n')
    with pytest.raises(InvalidInputError, match="never decides where your data goes"):
        load_settings(index_dir, repo_root)
    (repo_root / "whylens.toml").write_text('[llm.distill]\nmodel = "m"\ntimeout = 5\n')
    (index_dir / "whylens.toml").write_text('[llm.distill]\nendpoint = "http://127.0.0.1:9/v1"\n')
    found = load_settings(index_dir, repo_root)
    assert found.model == "m" and found.timeout == 5.0 and found.endpoint == "http://127.0.0.1:9/v1"
    assert found.source.endswith("index/whylens.toml") and found.api_key_env is None
    (index_dir / "whylens.toml").write_text('[llm.distill]\nendpoint = "ftp://x"\nmodel = "m"\n')
    with pytest.raises(InvalidInputError, match="must be an http"):
        load_settings(index_dir, repo_root)
    (index_dir / "whylens.toml").write_text("[llm.distill\n")
    with pytest.raises(InvalidInputError, match="not valid TOML"):
        load_settings(index_dir, repo_root)


def test_an_endpoint_without_guided_decoding_falls_back_to_the_unguided_retry(replay):
    server = replay((400, "response_format json_schema is not supported", 0), ok(VALID))
    result = run_ladder(server.settings, snapshot(RECORD))
    assert result.steps == ["guided", "retry"] and result.result["anchors"] == ["Pool.get"]
    assert "response_format" in server.requests[0]["body"] and "response_format" not in server.requests[1]["body"]


def test_an_unreachable_endpoint_stops_the_drain(tmp_path):
    settings = DistillSettings("http://127.0.0.1:9/v1", "m", timeout=0.5)  # discard port: refused
    with DistillQueue(tmp_path, "m") as queue:
        queue.enqueue([RECORD])
        summary = drain(queue, settings, 5)
        assert summary.stopped and "cannot reach" in summary.stopped
        assert queue.row("pr-12")["status"] == "pending" and queue.row("pr-12")["attempts"] == 0
