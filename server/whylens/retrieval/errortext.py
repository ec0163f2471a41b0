"""Error text and stack traces → the names a known failure can be matched by.

Python, JavaScript/TypeScript (Node traces and tsc output), Java (and other JVM traces), Go
panics and Rust (compiler errors, panics, backtraces). What comes out: exception names, error
codes (E0502, TS2345, ENOENT, CS0103), frames (function, file, line) innermost first, and the
content words of the messages.
"""

from __future__ import annotations

import errno
import re
from dataclasses import dataclass, field

from whylens.retrieval.text import content_words

MAX_ERROR_CHARS = 200_000  # a pasted terminal log is cut here; the end holds the error


@dataclass(frozen=True)
class Frame:
    function: str  # as the trace spells it, qualified when it is: "Session.send", "(*Server).Serve"
    file: str | None
    line: int | None
    language: str

    def candidate_names(self) -> list[str]:
        """Names to look the frame up by, most qualified first (index names use dots)."""
        name = self.function
        names: list[str] = []
        if self.language == "rust":
            parts = [p for p in re.sub(r"<.*?>|::\{\{closure\}\}|::h[0-9a-f]{16}$", "", name)
                     .split("::") if p]
            if len(parts) >= 2:
                names.append(".".join(parts[-2:]))
            if parts:
                names.append(parts[-1])
        elif self.language == "go":
            tail = name.rsplit("/", 1)[-1]  # github.com/x/pkg.(*T).M → pkg.(*T).M
            rest = tail.split(".", 1)[1] if "." in tail else tail  # drop the package
            names.append(rest)
            names.append(rest.rsplit(".", 1)[-1])
        else:
            clean = re.sub(r"^(?:async |new )", "", name).replace(".<anonymous>", "")
            alias = re.search(r"\s*\[as ([\w$]+)\]$", clean)  # V8: "Route.<computed> [as get]"
            if alias:
                clean = clean[:alias.start()].replace("<computed>", alias.group(1))
            clean = re.sub(r"\$\d+|\$lambda.*|<[^>]*>", "", clean)
            parts = [p for p in clean.split(".") if p]
            if len(parts) >= 2:
                names.append(".".join(parts[-2:]))
            if parts:
                names.append(parts[-1])
        seen: list[str] = []
        for item in names:
            if item and item not in seen and item not in ("<module>", "Object", "anonymous"):
                seen.append(item)
        return seen


@dataclass(frozen=True)
class ParsedError:
    exceptions: tuple[str, ...] = ()  # bare class names: TimeoutError, NullPointerException
    codes: tuple[str, ...] = ()  # E0502, TS2345, ENOENT
    frames: tuple[Frame, ...] = ()  # innermost (where it failed) first
    messages: tuple[str, ...] = ()  # the error messages themselves
    words: frozenset[str] = field(default_factory=frozenset)  # content words of the messages

    @property
    def empty(self) -> bool:
        return not (self.exceptions or self.codes or self.frames or self.words)


# --- frames, one regex per trace dialect -------------------------------------------------------

_PY_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>[^\s]+)', re.M)
# One line each: "at func (file:line:col)" or "at file:line:col" (an anonymous frame; its
# function part must not run on into the next line).
_JS_FRAME = re.compile(
    r"^[ \t]*at (?:(?P<func>[^\s(][^(\n]*?) \()?(?P<file>(?:file://)?[^\s()]+?):(?P<line>\d+):\d+\)?"
    r"[ \t]*$", re.M)
_JAVA_FRAME = re.compile(r"^\s*at (?P<func>[\w$.<>]+)\((?P<file>[\w$.-]+):(?P<line>\d+)\)", re.M)
_GO_FRAME = re.compile(
    r"^(?P<func>[\w./*()\-]+?)\((?:[^)]*)\)\n\s+(?P<file>[^\s:]+\.go):(?P<line>\d+)", re.M)
_RUST_BT = re.compile(
    r"^\s*\d+: (?P<func>[\w:<>{} ]+?)\n\s+at (?P<file>[^\s:]+\.rs):(?P<line>\d+)(?::\d+)?", re.M)
_RUST_LOC = re.compile(r"^\s*--> (?P<file>[^\s:]+\.rs):(?P<line>\d+):\d+", re.M)
_RUST_PANIC = re.compile(
    r"panicked at (?:'(?P<msg>[^']*)', )?(?P<file>[^\s:]+\.rs):(?P<line>\d+):\d+:?\s*(?P<msg2>.*)?")
_TSC = re.compile(
    r"^(?P<file>[^\s(:]+\.[cm]?[jt]sx?)(?:\((?P<l1>\d+),\d+\)|:(?P<l2>\d+):\d+)"
    r"\s*[-:]\s*error (?P<code>TS\d{4,5}):\s*(?P<msg>.*)$", re.M)

# --- failure names ----------------------------------------------------------------------------

_EXC_LINE = re.compile(
    r"^(?:Caused by: |Exception in thread \"[^\"]*\" |Uncaught |\s*)?"
    r"(?P<name>(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|Fault|Panic"
    r"|Timeout|Failure|Refused|Abort))(?::\s*(?P<msg>.*))?$", re.M)
_EXC_ANYWHERE = re.compile(
    r"\b(?:[a-z_]\w*\.)*(?P<name>[A-Z]\w*(?:Error|Exception|Timeout|Interrupt|Fault))\b")
_GO_PANIC = re.compile(r"^panic: (?P<msg>.+)$", re.M)
_RUST_ERROR = re.compile(r"^error(?:\[(?P<code>E\d{4})\])?: (?P<msg>.+)$", re.M)
_CODES = re.compile(r"\b(?:E\d{4}|TS\d{4,5}|CS\d{4}|SQLSTATE\[?\w+\]?|ORA-\d{5})\b")
_ERRNO_NAMES = frozenset(name for name in errno.errorcode.values() if len(name) >= 4)
_ERRNO = re.compile(r"\b(E[A-Z]{3,})\b")
_GENERIC = frozenset({"Error", "Exception", "RuntimeError", "Throwable", "BaseException",
                      "AssertionError", "Panic"})


def parse_error_text(text: str) -> ParsedError:
    """Everything nameable in ``text``; never raises (garbage in, empty ParsedError out)."""
    if not isinstance(text, str):
        text = (text or b"").decode("utf-8", "replace") if isinstance(text, bytes) else ""
    text = text.replace("\r\n", "\n")[-MAX_ERROR_CHARS:]
    frames: list[tuple[int, Frame]] = []  # (position in text, frame)
    innermost_last: list[tuple[int, Frame]] = []  # Python prints the failing frame last
    for m in _PY_FRAME.finditer(text):
        innermost_last.append((m.start(), Frame(m["func"], m["file"], int(m["line"]), "python")))
    for m in _JAVA_FRAME.finditer(text):
        frames.append((m.start(), Frame(m["func"], m["file"], int(m["line"]), "java")))
    java_spans = {pos for pos, _ in frames}
    for m in _JS_FRAME.finditer(text):
        if m.start() in java_spans or m["file"].endswith((".rs", ".go", ".py")):
            continue  # a Rust backtrace's "at file:line:col" continuation, not a JS frame
        func = (m["func"] or "").strip() or "<anonymous>"
        file = re.sub(r"^file://", "", m["file"])
        frames.append((m.start(), Frame(func, file, int(m["line"]), "javascript")))
    for m in _GO_FRAME.finditer(text):
        if m["func"].startswith(("goroutine", "panic(")):
            continue
        frames.append((m.start(), Frame(m["func"], m["file"], int(m["line"]), "go")))
    for m in _RUST_BT.finditer(text):
        func = m["func"].strip()
        if func.startswith(("std::", "core::", "alloc::", "rust_begin_unwind", "__rust")):
            continue
        frames.append((m.start(), Frame(func, m["file"], int(m["line"]), "rust")))

    messages: list[str] = []
    exceptions: list[str] = []
    codes: list[str] = []
    for m in _RUST_PANIC.finditer(text):
        frames.insert(0, (m.start(), Frame("", m["file"], int(m["line"]), "rust")))
        messages.append((m["msg"] or m["msg2"] or "").strip())
    for m in _RUST_ERROR.finditer(text):
        messages.append(m["msg"])
        if m["code"]:
            codes.append(m["code"])
    for m in _RUST_LOC.finditer(text):
        frames.append((m.start(), Frame("", m["file"], int(m["line"]), "rust")))
    for m in _TSC.finditer(text):
        line = int(m["l1"] or m["l2"])
        frames.append((m.start(), Frame("", m["file"], line, "typescript")))
        codes.append(m["code"])
        messages.append(m["msg"])
    for m in _GO_PANIC.finditer(text):
        messages.append(m["msg"])
    for m in _EXC_LINE.finditer(text):
        exceptions.append(m["name"].rsplit(".", 1)[-1])
        if m["msg"]:
            messages.append(m["msg"])
    for m in _EXC_ANYWHERE.finditer(text):
        exceptions.append(m["name"])
    codes.extend(_CODES.findall(text))
    codes.extend(c for c in _ERRNO.findall(text) if c in _ERRNO_NAMES)
    if not messages:  # plain text (a log line, a linter message): the whole text is the message
        messages = [line.strip() for line in text.splitlines() if line.strip()][-5:]

    ordered = [f for _, f in sorted(frames, key=lambda pair: pair[0])]
    ordered = [f for _, f in reversed(innermost_last)] + ordered
    exceptions = [e for e in dict.fromkeys(exceptions) if e not in _GENERIC] or [
        e for e in dict.fromkeys(exceptions)]
    words: set[str] = set()
    for message in messages:
        words |= content_words(message)
    return ParsedError(
        exceptions=tuple(exceptions),
        codes=tuple(dict.fromkeys(codes)),
        frames=tuple(dict.fromkeys(ordered)),
        messages=tuple(dict.fromkeys(m for m in messages if m)),
        words=frozenset(words),
    )
