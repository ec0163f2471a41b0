"""Definitions carried back through hunks give the events parsing both versions gives; what a
formatting-only, annotation-only or ignore-listed change makes; the states stay exact."""

from __future__ import annotations

from whylens.symbols.anchor import Anchorer
from whylens.symbols.extract import parse_outline
from whylens.symbols.formatting import formatting_only
from whylens.symbols.hunks import diff_hunks
from whylens.symbols.tracking import FileState, born_spans, track_back

from .gitcommits import blob_reader, events_by_commit, events_of_walk, walked

PY = '''\
import os


class Session:
    """A session."""

    timeout = 3

    def send(self, request):
        prepared = self.prepare(request)
        return self.adapter.send(prepared)

    @property
    def closed(self):
        return self._closed

    def close(self):
        self.adapter.close()


def helper(x):
    return x * 2


def other(values):
    total = 0
    for value in values:
        total += value
    return total
'''

C = '''\
#include <stdio.h>

static int parse(const char *s) {
    int n = 0;
    while (*s) n = n * 10 + (*s++ - '0');
    return n;
}

int main(int argc, char **argv) {
    printf("%d\\n", parse(argv[1]));
    return 0;
}
'''

EDITS = [  # (message, {path: text}) applied in order on top of PY and C
    ("body", {"s.py": PY.replace("x * 2", "x * 3")}),
    ("signature", {"s.py": PY.replace("x * 2", "x * 3").replace("def helper(x)",
                                                                   "def helper(x, y=1)")}),
    ("add a method", {"s.py": PY.replace("x * 2", "x * 3").replace("def helper(x)",
                                                                      "def helper(x, y=1)")
                      .replace("    def close(self):", "    def reset(self):\n        self.n = 0\n"
                               "\n    def close(self):")}),
    ("c body", {"m.c": C.replace("return 0;", "return parse(argv[2]);")}),
    ("c helper added", {"m.c": C.replace("return 0;", "return parse(argv[2]);").replace(
        "int main", "static void usage(void) {\n    puts(\"usage\");\n}\n\nint main")}),
]


def _history(repo):
    repo.commit("start", {"s.py": PY, "m.c": C})
    for message, files in EDITS:
        repo.commit(message, files)
    return repo


def test_carried_events_equal_parsed_events(make_repo):
    repo = _history(make_repo())
    reformatted = repo.commit("black", {"s.py": open_text(repo, "s.py").replace(
        "def other(values):", "def other(\n    values,\n):").replace("'", '"')})
    repo.commit("delete a method and rename a function", {"s.py": open_text(repo, "s.py")
               .replace("    @property\n    def closed(self):\n        return self._closed\n\n",
                        "").replace("def other(", "def summed(")})
    anchorer = Anchorer(blob_reader(repo))
    carried = events_of_walk(walked(repo), anchorer)
    assert anchorer.stats["carried"] >= 5  # most changes went without parsing the old side
    assert carried == events_by_commit(repo, Anchorer(blob_reader(repo)))
    assert carried[repo.shas[1]] == [("helper", "body", None)]
    assert carried[repo.shas[2]] == [("helper", "signature", None)]
    assert carried[repo.shas[3]] == [("Session.reset", "added", None)]
    assert carried[repo.shas[5]] == [("usage", "added", None)]
    assert carried[reformatted] == [("other", "formatting", None)]
    assert ("Session.closed", "deleted", None) in carried[repo.shas[-1]]
    assert ("summed", "renamed", "other") in carried[repo.shas[-1]]


def open_text(repo, path: str) -> str:
    return (repo.root / path).read_text()


def test_comments_and_blank_lines_make_no_event_typing_makes_a_formatting_one(make_repo):
    repo = make_repo()
    repo.commit("start", {"t.py": PY})
    commented = repo.commit("comment", {"t.py": PY.replace(
        "        total += value\n", "        # add it up\n        total += value\n\n")})
    typed = repo.commit("types", {"t.py": open_text(repo, "t.py").replace(
        "def other(values):", "def other(values: list[int]) -> int:")})
    events = events_of_walk(walked(repo), Anchorer(blob_reader(repo)))
    assert events[commented] == []
    assert events[typed] == [("other", "formatting", None)]


def test_an_ignore_listed_commit_only_makes_formatting_events(make_repo):
    repo = make_repo()
    repo.commit("start", {"t.py": PY})
    big = repo.commit("reformat everything", {"t.py": PY.replace("x * 2", "x * 2  # doubled")
                                              .replace("total = 0", "total = 0.0")})
    events = events_of_walk(walked(repo, ignore_revs={big}), Anchorer(blob_reader(repo)))
    assert events[big] == [("other", "formatting", None)]


def test_track_back_matches_a_parse_of_the_old_version():
    new_source = PY.replace("x * 2", "x * 3\n    # more\n    return x").replace(
        "        self.adapter.close()\n", "        self.adapter.close()\n        self.n = 0\n")
    old = FileState.from_outline(parse_outline(PY.encode(), "python"))
    new = FileState.from_outline(parse_outline(new_source.encode(), "python"))
    hunks = diff_hunks(PY.encode(), new_source.encode())
    born, named = born_spans(new, hunks)
    assert not born and not named
    derived, touches = track_back("python", new, hunks, born)
    assert [(s.name, s.start, s.end) for s in derived.spans] == [
        (s.name, s.start, s.end) for s in old.spans]
    assert sorted(new.spans[k].name for k in touches) == ["Session.close", "helper"]


def test_a_rewritten_last_header_line_keeps_the_header_where_the_body_starts():
    """A long signature gained a parameter line and its last line changed: the old version's
    header still ends just before the body (a header carried by offset from the start ended
    too late, and an old change to a default parameter read as a body change)."""
    old_source = PY.replace("def send(self, request):",
                            "def send(\n        self,\n        request,\n        stream=None):")
    new_source = PY.replace("def send(self, request):", "def send(\n        self,\n"
                            "        request,\n        timeout=None,\n        stream=False,\n"
                            "        verify=True):")
    old = FileState.from_outline(parse_outline(old_source.encode(), "python"))
    new = FileState.from_outline(parse_outline(new_source.encode(), "python"))
    hunks = diff_hunks(old_source.encode(), new_source.encode())
    born, _ = born_spans(new, hunks)
    derived, _ = track_back("python", new, hunks, born)
    assert [(s.name, s.start, s.end, s.header_end) for s in derived.spans] == [
        (s.name, s.start, s.end, s.header_end) for s in old.spans]


def test_a_commit_over_the_file_cap_is_anchored_at_file_level(make_repo):
    repo = make_repo()
    repo.commit("start", {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(3)})
    repo.commit("more", {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(3, 6)})
    wide = repo.commit("touch all", {f"m{i}.py": f"def f{i}():\n    return {i + 1}\n"
                                     for i in range(6)})
    narrow = repo.commit("touch one", {"m0.py": "def f0():\n    return 9\n"})
    anchorer = Anchorer(blob_reader(repo), max_files=5)
    events = events_of_walk(walked(repo), anchorer)
    assert events[wide] == []
    assert events[narrow] == [("f0", "body", None)]
    assert anchorer.stats["commits_file_level"] == 1
    assert anchorer.stats["files_file_level"] == 6


def test_a_one_line_function_edited_in_place_is_carried_not_parsed(make_repo):
    repo = make_repo()
    table = "".join(f"def f{n}(): return {n}\n" for n in range(50))
    repo.commit("table", {"t.py": table})
    edited = repo.commit("f7 returns 70", {"t.py": table.replace("return 7\n", "return 70\n")})
    anchorer = Anchorer(blob_reader(repo))
    events = events_of_walk(walked(repo), anchorer)
    assert events[edited] == [("f7", "body", None)]
    assert anchorer.stats["parsed"] == 1 and anchorer.stats["carried"] == 1


RESPONSE = '''\
class Flask:
    def make_response(self, rv):
        if not isinstance(rv, self.response_class):
            try:
                rv = self.response_class.force_type(
                    rv, request.environ  # type: ignore[arg-type]
                )
            except TypeError as e:
                raise TypeError("bad") from e
        return rv

    def do_teardown_request(
        self, exc=_sentinel  # type: ignore
    ) -> None:
        request_tearing_down.send(self, exc=exc)
'''
# flask 54e05a28 ("use ruff linter and formatter"): an argument list re-wrapped with a magic
# trailing comma, a comment moving with the first argument. The changed lines alone end before
# the closing bracket, so their trailing comma looks like a new tuple; the definitions do not.
RUFFED = RESPONSE.replace(
    "                    rv, request.environ  # type: ignore[arg-type]\n",
    "                    rv,  # type: ignore[arg-type]\n                    request.environ,\n",
).replace("        self, exc=_sentinel  # type: ignore\n",
          "        self,\n        exc=_sentinel,  # type: ignore[assignment]\n")


def reformat_then_change(make_repo, path: str, start: str, reformatted: str, changed: str):
    """The events of a reformat and of a real change after it (carried and parsed agree)."""
    repo = make_repo()
    repo.commit("start", {path: start})
    reformat = repo.commit("reformat", {path: reformatted})
    change = repo.commit("a real change", {path: changed})
    carried = events_of_walk(walked(repo), Anchorer(blob_reader(repo)))
    assert carried == events_by_commit(repo, Anchorer(blob_reader(repo)))  # parsed: the same
    return carried.get(reformat, []), carried.get(change, [])


def test_a_rewrap_whose_changed_lines_end_before_the_bracket_is_formatting(make_repo):
    ruffed, tupled = reformat_then_change(make_repo, "app.py", RESPONSE, RUFFED, RUFFED.replace(
        "        return rv\n", "        return rv,\n"))  # a real trailing comma
    assert ruffed == [("Flask.do_teardown_request", "formatting", None),
                      ("Flask.make_response", "formatting", None)]
    assert tupled == [("Flask.make_response", "body", None)]


TIMEOUT = '''\
class RealCall(
  val client: Client,
  val forWebSocket: Boolean
) : Call {
  private val timeout = object : AsyncTimeout() {
    override fun timedOut() {
      this@RealCall.cancel()
    }
  }.apply {
    timeout(client.callTimeoutMillis.toLong(), MILLISECONDS)
  }

  fun cancel() {
    canceled = true
  }
}
'''
# okhttp a228fd6 ("Reformat with Spotless"): the block re-nested under its property, a trailing
# comma added. The diff pairs the old closing brace with another line, so the changed lines hold
# a brace more in one place and one less in another; the whole class is the same code.
SPOTLESS = TIMEOUT.replace("  val forWebSocket: Boolean\n", "  val forWebSocket: Boolean,\n") \
    .replace('''  private val timeout = object : AsyncTimeout() {
    override fun timedOut() {
      this@RealCall.cancel()
    }
  }.apply {
    timeout(client.callTimeoutMillis.toLong(), MILLISECONDS)
  }
''', '''  private val timeout =
    object : AsyncTimeout() {
      override fun timedOut() {
        this@RealCall.cancel()
      }
    }.apply {
      timeout(client.callTimeoutMillis.toLong(), MILLISECONDS)
    }
''')


def test_a_reformat_that_moves_a_closing_brace_is_formatting(make_repo):
    spotless, slower = reformat_then_change(make_repo, "RealCall.kt", TIMEOUT, SPOTLESS,
                                            SPOTLESS.replace("callTimeoutMillis.toLong()",
                                                             "callTimeoutMillis.toLong() * 2"))
    assert spotless == [("RealCall", "formatting", None)]
    assert slower == [("RealCall", "body", None)]


CONNECTION = '''\
class Http2Connection(builder: Builder) : Closeable {
  fun newStream(
    requestHeaders: List<Header>,
    out: Boolean,
  ): Http2Stream {
    return newStream(0, requestHeaders, out)
  }

  fun build(): Http2Connection {
    val connection = Http2Connection(this)
    return connection
  }
}
'''
# okhttp a51cfbf ("Update dependency spotless-plugin-gradle to v7" + "Reformat"): ktlint writes a
# function whose block only returns as an expression body; the same function.
EXPRESSION_BODY = CONNECTION.replace('''  ): Http2Stream {
    return newStream(0, requestHeaders, out)
  }
''', "  ): Http2Stream = newStream(0, requestHeaders, out)\n")


def test_a_block_that_only_returns_written_as_an_expression_body_is_formatting(make_repo):
    ktlint, other = reformat_then_change(make_repo, "Http2Connection.kt", CONNECTION,
                                         EXPRESSION_BODY, EXPRESSION_BODY.replace(
                                             "newStream(0,", "newStream(1,"))
    assert ktlint == [("Http2Connection.newStream", "formatting", None)]
    assert other == [("Http2Connection.newStream", "body", None)]
    # a block with more than its return is no expression body
    assert not formatting_only("kotlin", CONNECTION.encode(), CONNECTION.replace(
        '''  fun build(): Http2Connection {
    val connection = Http2Connection(this)
    return connection
  }''', "  fun build(): Http2Connection = Http2Connection(this)").encode())



GETSET = b"""\
void getsetCommand(redisClient *c) {
    server.dirty++;
    removeExpire(c->db,c->argv[1]);
}
"""


def test_a_neighbours_brace_given_to_a_definition_changes_nothing():
    """redis 3c1bf49 ("Add commands SETBIT/GETBIT") added functions right after getsetCommand;
    git's -U0 diff of the whole file adds "}", a blank line and the new functions before
    getsetCommand's own closing brace, so getsetCommand's changed lines are one added brace
    while its code is the same (this pairing needs the whole file: a short one diffs cleanly)."""
    from whylens.symbols.change_kind import classify
    from whylens.symbols.tracking import Touch

    touch = Touch(new_body=[b"}\n"])
    assert classify("c", touch, lambda: (GETSET, GETSET)) is None
    assert classify("c", touch) == "body"  # nothing to check it against: a change, as before
    reformatted = GETSET.replace(b"c->argv[1]);", b"c->argv[1],);")  # a trailing comma
    assert classify("c", touch, lambda: (GETSET, reformatted)) == "formatting"
    changed = GETSET.replace(b"dirty++", b"dirty--")
    assert classify("c", touch, lambda: (GETSET, changed)) == "body"


POOL = '''\
package okhttp3;

public final class ConnectionPool {
  /**
   * Create a new connection pool with tuning parameters appropriate for a
   * single-user application. The tuning parameters in this pool are subject
   * to change in future OkHttp releases.
   */
  public ConnectionPool() {
    this(5, 5);
  }

  public int idleConnectionCount() {

    return total;
  }
}
'''
# okhttp 98ae0fb ("Sort imports and wrap documentation at 100 columns"): the doc comment
# re-wrapped, a blank line dropped. The changed lines hold " * " lines of a comment that opens
# and closes outside them, so alone they read as code; the class's code is the same.
WRAPPED = POOL.replace('''   * Create a new connection pool with tuning parameters appropriate for a
   * single-user application. The tuning parameters in this pool are subject
   * to change in future OkHttp releases.
''', '''   * Create a new connection pool with tuning parameters appropriate for a single-user
   * application. The tuning parameters in this pool are subject to change in future OkHttp
   * releases.
''').replace("  public int idleConnectionCount() {\n\n", "  public int idleConnectionCount() {\n")


def test_a_rewrapped_doc_comment_changes_nothing(make_repo):
    wrapped, bigger = reformat_then_change(make_repo, "ConnectionPool.java", POOL, WRAPPED,
                                           WRAPPED.replace("this(5, 5);", "this(10, 5);"))
    assert wrapped == []
    assert bigger == [("ConnectionPool.ConnectionPool", "body", None)]


BUILD_URL = '''\
'use strict';

var utils = require('./../utils');

module.exports = function buildURL(url, params) {
  if (!params) {
    return url;
  }
  return url + '?' + utils.serialize(params);
};
'''


def test_a_commonjs_export_converted_to_an_es_module_keeps_its_history(make_repo):
    """axios bdf493c ("Axios ES2017") turned ``module.exports = function buildURL`` into
    ``export default function buildURL``: one function, named as its callers name it, whose
    history goes on (its card said "added" in 2022 for a function written in 2014)."""
    esm = BUILD_URL.replace("'use strict';\n\nvar utils = require('./../utils');",
                            "import utils from './../utils.js';").replace(
        "module.exports = function buildURL", "export default function buildURL").replace(
        "};\n", "}\n")
    converted, changed = reformat_then_change(make_repo, "lib/buildURL.js", BUILD_URL, esm,
                                              esm.replace("'?'", "'&'"))
    assert [(name, kind) for name, kind, _ in converted] == [("buildURL", "signature")]
    assert [(name, kind) for name, kind, _ in changed] == [("buildURL", "body")]


def test_a_change_inside_a_function_assigned_to_a_member_is_a_body_change(make_repo):
    """The function's own body is the body of ``module.exports = function …`` (and of
    ``obj.x = function …``): axios's cards listed every change of such a function as one of its
    signature."""
    body = BUILD_URL.replace("'?'", "'&'")
    inside, header = reformat_then_change(make_repo, "lib/buildURL.js", BUILD_URL, body,
                                          body.replace("(url, params)", "(url, params, options)"))
    assert [(name, kind) for name, kind, _ in inside] == [("buildURL", "body")]
    assert [(name, kind) for name, kind, _ in header] == [("buildURL", "signature")]
