"""Commit messages → the text search indexes and quotes (answer sentences).

Not the unit extractor's cleaning (``knowledge/clean.py`` keeps only prose a card can show alone):
search must find what a developer types or pastes, so this keeps
- inline code spans as plain text (``Session.send``, ``stream=True``, ``timeout=(3, 27)``);
- angle brackets, parentheses and leading dots that are part of the text (``List<T>``, ``.json()``);
- the error lines of pasted tracebacks and logs (``KeyError: 'HOME'``, ``panic: ...``), while the
  rest of a code block or traceback goes;
- issue and PR numbers (``#1234``).
It drops what nobody searches for: trailers (``Signed-off-by``, ``Former-commit-id``), PR-template
prompts and checklists, HTML comments and tags, markdown link targets and bare URLs, quoted diffs.
"""

from __future__ import annotations

import re

MAX_INPUT_CHARS = 50_000  # a longer body is cut first (generated messages)
MAX_PROSE_CHARS = 8_000  # what a search document keeps of one message
MAX_BLOCK_ERRORS = 3  # error lines kept from one code block or traceback

_TRAILER = re.compile(
    r"^\s*(?:signed-off-by|co-authored-by|co-authored|reviewed-by|acked-by|tested-by|reported-by|"
    r"suggested-by|helped-by|requested-by|original-author|cc|change-id|reviewed-on|pr-url|"
    r"pull-request|former-commit-id|git-svn-id|cherry-picked-from|backport-of|depends-on|"
    r"updated-dependencies|dependency-(?:name|type|version)|update-type|"
    r"(?:[a-z]+-){0,3}by)\s*:", re.I)
_TEMPLATE = re.compile(
    r"""^\s*(?:
        \#{1,6}\s.*                                   # markdown headers: template prompts
      | [-*+]\s+\[[ xX]\]\s.*                         # checklists
      | (?:\d+[.)]\s+)?\[[ xX]\]\s.*
      | \(cherry\ picked\ from\ commit\ [0-9a-f]{7,40}\)
      | this\ reverts\ commit\ [0-9a-f]{7,40}\.?
      | thanks?\ (?:you\ )?for\ (?:contributing|your\ (?:pull\ request|contribution)).*
      | please\ (?:describe|include|make\ sure|link|add\ tests|read|check|fill|provide).*
      | (?:describe|summary\ of)\ (?:your\ )?changes?.*
      | (?:before\ opening\ a\ pr|checklist|pull\ request\ checklist)\b.*
      | [-=*_]{3,}
      | conflicts:
    )\s*$""", re.I | re.X)
_FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")
_INDENTED = re.compile(r"^(?: {4,}|\t)")
_DIFF_LINE = re.compile(r"^(?:[+-](?![\s+-])|[+-]{3}\s|@@\s|diff --git |index [0-9a-f]{7,}\.\.)")
_QUOTE = re.compile(r"^\s*>\s?")
_TRACE_START = re.compile(r'^\s*(?:Traceback \(most recent call last\)|File "[^"]*", line \d+'
                          r"|at [\w$.<>]+\(|goroutine \d+ \[)")
# The lines of a code block or trace that are worth finding: the error itself.
_ERROR_LINE = re.compile(
    r"^\s*(?:[\w.]*(?:Error|Exception|Warning|Exit|Interrupt|Fault)\b[:(]?.*"
    r"|panic: .+|fatal(?: error)?: .+|error(?:\[E\d{4}\])?: .+|Uncaught .+|\w+Error \[\w+\]: .+"
    r"|E\s{2,}\w.+|AssertionError.*)$")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_HTML_TAG = re.compile(
    r"</?(?:a|b|i|p|br|hr|img|em|strong|code|pre|div|span|details|summary|sub|sup|ul|ol|li|kbd|"
    r"table|tr|td|th|h[1-6])(?:\s[^<>]{0,300})?/?>", re.I)
_IMAGE = re.compile(r"!\[([^\]]{0,200})\]\([^)\s]{0,500}\)")
_LINK = re.compile(r"\[([^\]]{1,200})\]\([^)\s]{0,500}\)")
_URL = re.compile(r"<?\b(?:https?|ftp)://[^\s<>()]+>?")
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_SPACES = re.compile(r"[ \t\u00a0]+")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+(?=\S)")


def search_prose(body: str) -> str:
    """The searchable text of a commit body: one sentence per line (split here, at index time,
    so that picking answer sentences at query time needs no sentence splitter)."""
    if not body:
        return ""
    text = _HTML_COMMENT.sub("", body[:MAX_INPUT_CHARS].replace("\r\n", "\n").replace("\r", "\n"))
    paragraphs: list[str] = []
    current: list[str] = []
    block_errors = 0
    in_fence: str | None = None
    in_code = False

    def close() -> None:
        if current:
            paragraphs.append(" ".join(current))
            current.clear()

    def keep_error(line: str) -> None:
        nonlocal block_errors
        if block_errors < MAX_BLOCK_ERRORS and _ERROR_LINE.match(line):
            block_errors += 1
            paragraphs.append(line.strip())

    for line in text.split("\n"):
        fence = _FENCE.match(line)
        if in_fence is not None:
            if fence and fence.group(1)[0] == in_fence[0]:
                in_fence = None
            else:
                keep_error(line)
            continue
        if fence:
            close()
            in_fence, block_errors = fence.group(1), 0
            continue
        stripped = line.strip()
        if not stripped:
            close()
            in_code = False
            continue
        quoted = _QUOTE.match(line)
        if quoted:
            line = line[quoted.end():]
            stripped = line.strip()
            if not stripped:
                continue
        if _DIFF_LINE.match(line):
            close()
            continue
        if _TRACE_START.match(line) or (_INDENTED.match(line) and not current) or \
                (in_code and _INDENTED.match(line)):
            if not in_code:
                close()
                in_code, block_errors = True, 0
            keep_error(line)
            continue
        if in_code and _ERROR_LINE.match(line):
            keep_error(line)  # the last line of a pasted traceback is not indented
            continue
        in_code = False
        if _TRAILER.match(stripped) or _TEMPLATE.match(stripped):
            close()
            continue
        item = _LIST_ITEM.match(line)
        if item:
            close()
            stripped = line[item.end():].strip()
        current.append(stripped)
    close()
    from whylens.knowledge.sentences import split_sentences  # pulls the unit rules in: index time

    cleaned = (clean_line(p) for p in paragraphs)
    lines = [s for p in cleaned if p for s in split_sentences(p) if s]
    return "\n".join(lines)[:MAX_PROSE_CHARS]


def clean_line(text: str) -> str:
    """Inline markup out, the words in: backticks, emphasis, link targets, URLs, HTML tags."""
    text = text.replace("`", "")
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _URL.sub("", text)
    text = _HTML_TAG.sub(" ", text)
    text = _EMPHASIS.sub(r"\2", text)
    return _SPACES.sub(" ", text).strip()


def sentences(subject: str, prose: str) -> list[str]:
    """The quotable sentences of a message: the subject, then the prose's (one per line)."""
    out = [clean_line(subject)] if subject and clean_line(subject) else []
    return out + [line for line in prose.split("\n") if line.strip()]
