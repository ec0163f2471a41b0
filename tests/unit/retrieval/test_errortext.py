"""Error text → failure names, codes, frames and words, for five languages' traces."""

from __future__ import annotations

import pytest

from whylens.retrieval.errortext import parse_error_text

PYTHON = '''Traceback (most recent call last):
  File "/home/u/proj/src/requests/sessions.py", line 589, in request
    resp = self.send(prep, **send_kwargs)
  File "/home/u/proj/src/requests/adapters.py", line 501, in send
    raise ConnectTimeout(e, request=request)
requests.exceptions.ConnectTimeout: HTTPSConnectionPool(host='x', port=443): Max retries exceeded
'''
NODE = '''TypeError: Cannot read properties of undefined (reading 'headers')
    at Session.send (/app/src/session.ts:42:17)
    at async Client.request (/app/src/client.ts:10:5)
    at processTicksAndRejections (node:internal/process/task_queues:95:5)
'''
TSC = '''src/client.ts(12,5): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.
src/api.ts:3:1 - error TS2304: Cannot find name 'foo'.'''
JAVA = '''Exception in thread "main" java.lang.IllegalStateException: pool exhausted
\tat com.acme.pool.ConnectionPool.acquire(ConnectionPool.java:88)
\tat com.acme.http.Client.send(Client.java:42)
Caused by: java.net.SocketTimeoutException: Read timed out
\tat java.base/java.net.SocketInputStream.socketRead0(Native Method)
'''
GO = '''panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x10a3c5e]

goroutine 1 [running]:
github.com/acme/srv/server.(*Server).Serve(0x0, 0xc000010000)
\t/home/u/srv/server/server.go:42 +0x1e
main.main()
\t/home/u/srv/main.go:10 +0x25
exit status 2
'''
RUST_COMPILE = '''error[E0502]: cannot borrow `v` as mutable because it is also borrowed as immutable
 --> src/main.rs:4:5
  |
'''
RUST_PANIC = '''thread 'main' panicked at src/parser.rs:17:9:
index out of bounds: the len is 3 but the index is 5
stack backtrace:
   0: rust_begin_unwind
             at /rustc/abc/library/std/src/panicking.rs:645:5
   1: mycrate::parser::Parser::next_token
             at ./src/parser.rs:17:9
   2: mycrate::main
             at ./src/main.rs:5:5
'''

CASES = [
    # text, exceptions, codes, first frame (function, file, line), first frame's lookup names, words
    (PYTHON, ["ConnectTimeout"], [], ("send", "/home/u/proj/src/requests/adapters.py", 501),
     ["send"], {"retries", "exceeded"}),
    (NODE, ["TypeError"], [], ("Session.send", "/app/src/session.ts", 42),
     ["Session.send", "send"], {"headers", "properties"}),
    (TSC, [], ["TS2345", "TS2304"], ("", "src/client.ts", 12), [], {"assignable", "parameter"}),
    (JAVA, ["IllegalStateException", "SocketTimeoutException"], [],
     ("com.acme.pool.ConnectionPool.acquire", "ConnectionPool.java", 88),
     ["ConnectionPool.acquire", "acquire"], {"pool", "exhausted", "timed"}),
    (GO, [], [], ("github.com/acme/srv/server.(*Server).Serve", "/home/u/srv/server/server.go", 42),
     ["(*Server).Serve", "Serve"], {"nil", "pointer", "dereference"}),
    (RUST_COMPILE, [], ["E0502"], ("", "src/main.rs", 4), [], {"borrow", "mutable"}),
    (RUST_PANIC, [], [], ("", "src/parser.rs", 17), [], {"bounds", "index"}),
    ("Error: ENOENT: no such file or directory, open '/tmp/x.json'", [], ["ENOENT"], None, [],
     {"directory"}),
]


@pytest.mark.parametrize("text,exceptions,codes,frame,names,words", CASES,
                         ids=["python", "node", "tsc", "java", "go", "rustc", "rust-panic", "errno"])
def test_parse_table(text, exceptions, codes, frame, names, words):
    parsed = parse_error_text(text)
    assert list(parsed.exceptions[: len(exceptions)]) == exceptions
    assert [c for c in parsed.codes if c in codes] == codes
    if frame is None:
        assert parsed.frames == ()
    else:
        first = parsed.frames[0]
        assert (first.function, first.file, first.line) == frame
        assert first.candidate_names() == names
    assert words <= parsed.words


def test_python_frames_innermost_first_and_rust_backtrace_skips_std():
    py = parse_error_text(PYTHON)
    assert [f.function for f in py.frames] == ["send", "request"]
    rust = parse_error_text(RUST_PANIC)
    functions = [f.function for f in rust.frames if f.function]
    assert functions == ["mycrate::parser::Parser::next_token", "mycrate::main"]
    assert rust.frames[1].candidate_names() == ["Parser.next_token", "next_token"]
    assert all(not f.file.endswith("panicking.rs") for f in rust.frames)


def test_generic_names_dropped_when_a_specific_one_exists():
    parsed = parse_error_text("Error: something\nfoo.BarTimeoutError: took too long")
    assert parsed.exceptions == ("BarTimeoutError",)


@pytest.mark.parametrize("garbage", ["", "   \n", "\x00\x01binary\xff", "a" * 500_000, b"\xff\xfe"])
def test_garbage_never_raises(garbage):
    parsed = parse_error_text(garbage)
    assert parsed.frames == ()
