"""Commit prose → clean prose: what is left is sentences a person wrote.

Two stages, so extraction can keep the raw sentence as ``context``:

- ``structural_paragraphs(text)`` drops whole blocks and lines that are not prose (fenced and
  indented code, tracebacks, pasted shell sessions, quoted diff lines, ``>`` quotes, trailers, HTML comments, markdown
  headers, checklists, PR-template boilerplate, ``---`` rules) and returns paragraphs, each
  unwrapped onto one line; a list item is a paragraph of its own. Inline markup is still there.
- ``clean_inline(text)`` cleans inside a paragraph or sentence: HTML tags, markdown links and
  emphasis, bare URLs, and inline code spans.

Inline code spans, decided: a short span that names something (at most 3 words and 40
characters, e.g. ``TimeoutError``, ``Session.send``, ``stream=True``) is kept as a plain word,
because "fixed by passing stream=True" means nothing once "stream=True" is gone; a longer span
is a code snippet and is dropped. Backticks never survive, and no placeholder is inserted.

``clean_prose(text)`` is both stages: paragraphs separated by a blank line.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Trailer keys (git interpret-trailers style and common PR tooling); matched case-insensitively.
TRAILER_KEYS = (
    "signed-off-by", "co-authored-by", "co-authored", "reviewed-by", "acked-by", "tested-by",
    "reported-by", "suggested-by", "helped-by", "requested-by", "original-author", "cc",
    "change-id", "reviewed-on", "pr-url", "pull-request", "see-also", "depends-on",
    "backport-of", "cherry-picked-from", "former-commit-id", "git-svn-id", "bug-url",
    "differential revision", "pr-close", "upstream-commit",
)
_TRAILER = re.compile(
    r"^\s*(?:(?:" + "|".join(re.escape(k) for k in TRAILER_KEYS) + r")"
    # any other "X-by:" / "Co-Authored By:" naming a person ("Caused by: ..." is prose)
    r"|(?:[A-Za-z]+[- ]){1,3}by\s*:\s*(?:[^<>\n]{0,80}<[^>\s]+@[^>\s]+>|@[\w-]+))\s*:?",
    re.IGNORECASE,
)
# Lines that are process, not prose.
_BOILERPLATE = re.compile(
    r"""^\s*(?:
        \(cherry\ picked\ from\ commit\ [0-9a-f]{7,40}\)
      | this\ reverts\ commit\ [0-9a-f]{7,40}\.?
      | (?:conflicts|updated-dependencies)\s*:
      | (?:git-svn-id|svn\ path=)\b.*
      | thanks?\ (?:you\ )?for\ (?:contributing|your\ (?:pull\ request|contribution)).*
      | please\ (?:describe|include|make\ sure|link|add\ tests|read|check|fill).*
      | (?:describe|summary\ of)\ (?:your\ )?changes?.*
      | (?:before\ opening\ a\ pr|checklist)\b.*
      | --hg-- | (?:hg:|extra\s*:)\ .*
      | \[?(?:ci\ skip|skip\ ci|no\ tests|ignore|skip\ changelog)\]?
      | (?:summary|description|motivation(?:\ and\ context)?|context|types?\ of\ changes?
        |how\ (?:has\ this\ been|was\ this|to)\ test(?:ed)?\??|test(?:ing)?\ plan|testing\ done
        |screenshots?|additional\ (?:context|notes|information)|related\ (?:issues?|prs?)
        |files?\ changed|changes?\ made|what\ (?:does\ this\ (?:pr|change)\ do|is\ the
        \ (?:current|new)\ behaviou?r)\??|(?:pr|pull\ request)\ (?:type|description|summary)
        |breaking\ changes?|release\ notes?|(?:fix(?:es)?|close[sd]?|resolve[sd]?|related(?:\ to)?)
        \ \#?)\s*[:.?]?\s*(?:\#\s*)?
      | tests?\ (?:have|has)\ (?:not\ )?been\ (?:added|included|updated)_?\.?
      | (?:\^\d+|\[\^\d+\])
      | (?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?|see|issue|bug|link|related(?:\ to)?)\s*:?\s*
        (?:(?:[\w.-]+/[\w.-]+)?\#\d+|https?://\S+)(?:[\s,]+(?:and\s+)?(?:[\w.-]+/[\w.-]+)?\#\d+)*\.?
    )\s*$""",
    re.IGNORECASE | re.VERBOSE,
)
_FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_HEADER = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_SETEXT_RULE = re.compile(r"^\s*(?:[-=*_]\s*){3,}$")  # ---, ===, ***, ---------
_CHECKLIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[ xX]\]")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+(?=\S)")
# A diff line: +/- directly followed by code, or by indentation (a markdown list item is "- "
# and one space before its text).
_DIFF_LINE = re.compile(
    r"^(?:[+-](?:(?![\s+-])|\t| {2,})|[+-]{3}\s|@@\s|diff --git |index [0-9a-f]{7,}\.\.)")
_QUOTE = re.compile(r"^\s*>")
_TRACEBACK = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|File \"[^\"]*\", line \d+|\$ |>>> |\.\.\. )")
# "TypeError: unicode() argument 2 must be string": the error line a reader pastes into a search.
# Kept as a paragraph of its own, even as the last line of a traceback.
# A shell prompt ("bash-5.1$ ", "ada@box:~/src$ ", "$ "): a pasted session, its command and
# its output, up to the next blank line.
_PROMPT = re.compile(r"^\s*(?:[\w.-]+(?:@[\w.-]+)?(?::[\w~/.-]*)?[$#]|\$)\s+\S")
_ERROR_LINE = re.compile(r"^\s*[A-Za-z_][\w.]{0,80}(?:Error|Exception|Warning|Panic)\b:? \S")
MAX_ERROR_LINE = 240
_INDENTED = re.compile(r"^(?: {4,}|\t)")

# Inline markup.
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_IMAGE = re.compile(r"!\[([^\]]{0,200})\]\([^)\s]{0,500}\)")
_LINK = re.compile(r"\[([^\]]{1,200})\]\([^)\s]{0,500}\)")
_REF_LINK = re.compile(r"\[([^\]]{1,200})\]\[[^\]]{0,50}\]")
# Only the tags people put in PR descriptions: ``<input>`` or ``Box<dyn Error>`` are words.
_HTML_TAG = re.compile(
    r"</?(?:a|b|i|em|strong|code|pre|br|p|div|span|img|sub|sup|details|summary|ul|ol|li|dl|dt|dd"
    r"|table|thead|tbody|tr|td|th|kbd|tt|hr|h[1-6]|blockquote|del|ins|s|u|small|big|center|font"
    r"|picture|source|video|samp|var|mark|abbr|cite|q)(?:\s[^<>]{0,300})?/?>", re.I)
_URL = re.compile(r"<?\b(?:https?|ftp)://[^\s<>()]+>?|\bwww\.[^\s<>()]+")
# **bold**, *em*; underscores only around several words, so __init__ and _private survive.
_EMPHASIS = re.compile(
    r"(\*\*|\*)(?=\S)([^*]+?)(?<=\S)\1|(?<!\w)(__|_)(?=\S)([^_]*? [^_]*?)(?<=\S)\3(?!\w)")
# Issue/PR references that are not part of the sentence: "(#123)", "(fixes #1, #2)", and a
# trailing "Fixes #12." / "closes gh-3" (the history layer keeps the numbers).
_REF_ITEM = r"(?:[\w.-]+/[\w.-]+)?#\d+|gh-\d+"
_REF_KEYWORD = r"(?:issues?|fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?|see|gh|pr|pull request)"
_PAREN_REFS = re.compile(
    rf"\s*[(\[]\s*(?:{_REF_KEYWORD}\s*:?\s*)?(?:{_REF_ITEM})"
    rf"(?:\s*(?:,|and|&)?\s*(?:{_REF_ITEM}))*\s*[)\]]", re.I)
_TRAILING_REFS = re.compile(
    rf"(?:[\s,;.]+(?:(?:this|and)\s+)?(?:{_REF_KEYWORD}\s*:?\s*)?(?:{_REF_ITEM})[.,;]?)+\s*$",
    re.I)
# A space before punctuation that ends a word is dropped; before one that starts a token
# (".travis.yml", ":scope", "?Sized") it stays.
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?)\]])(?![\w/~.*?:-])")
# Brackets emptied by removing a ref or URL; "f()" and "x[]" are code and stay.
_EMPTY_BRACKETS = re.compile(r"(?<![\w\]>)])\(\s*[,;:]?\s*\)|(?<![\w\]>)])\[\s*\]")
_GITMOJI = re.compile(r"(?<![\w:]):[a-z0-9_+-]{2,30}:(?![\w:])")
# A credit list closing a line: "[cowboy, jddalton]".
_CREDITS = re.compile(r"\s*\[[\w.-]+(?:,\s*[\w.-]+)+\]\s*$")
_PLACEHOLDER = re.compile("\x00(\\d+)\x00")
_SPACES = re.compile(r"[ \t\u00a0]+")

MAX_INPUT_CHARS = 50_000  # a body longer than this is cut first (huge generated messages)
SHORT_LINE = 40  # a line shorter than this that is followed by another ends its paragraph
# A line ended this many columns or more before its block's longest line, although the next
# line's first word would have fitted there, was ended by its author (see ``_ended_early``).
WRAP_SLACK = 15
_RUNS_ON = re.compile(r"(?:[,\-(/&+=|.!?:;]|\b(?:a|an|the|of|to|in|on|for|with|and|or|but|by|from|at"
                      r"|as|is|are|was|were|be|that|which|when|if|not|no)\b)\s*$", re.I)
SPAN_KEEP_CHARS = 60
SPAN_KEEP_WORDS = 8


def clean_prose(text: str) -> str:
    """The prose of a commit message: paragraphs (one line each) separated by a blank line."""
    cleaned = (clean_inline(p) for p in structural_paragraphs(text))
    return "\n\n".join(p for p in cleaned if p)


def structural_paragraphs(text: str) -> list[str]:
    """Paragraphs of prose with non-prose blocks and lines removed; inline markup kept."""
    if not text:
        return []
    text = text[:MAX_INPUT_CHARS].replace("\r\n", "\n").replace("\r", "\n")
    text = _HTML_COMMENT.sub("", text)
    paragraphs: list[str] = []
    current: list[str] = []
    in_fence: str | None = None
    in_code = False  # inside an indented code block, a diff or a traceback
    in_session = False  # inside a pasted shell session (until a blank line)
    lines = text.split("\n")
    widths = _block_widths(lines)

    def close() -> None:
        if current:
            paragraphs.append(" ".join(current))
            current.clear()

    for number, line in enumerate(lines):
        fence = _FENCE.match(line)
        if in_fence is not None:
            if fence and fence.group(1)[0] == in_fence[0] and len(fence.group(1)) >= len(in_fence):
                in_fence = None
            continue
        if fence:
            close()
            in_fence = fence.group(1)
            continue
        stripped = line.strip()
        if not stripped:
            close()
            in_code = in_session = False
            continue
        if _ERROR_LINE.match(line) and len(stripped) <= MAX_ERROR_LINE and (
                in_code or not current):
            close()
            paragraphs.append(stripped)
            in_code = False
            continue
        if in_session or _PROMPT.match(line):
            close()
            in_session = True
            continue
        if in_code and (_INDENTED.match(line) or _DIFF_LINE.match(line)):
            continue
        if _TRACEBACK.match(line) or _DIFF_LINE.match(line):
            close()
            in_code = True
            continue
        if _INDENTED.match(line) and not current and not _LIST_ITEM.match(line):
            in_code = True  # indented code starts a block; indented continuation lines don't
            continue
        in_code = False
        if _is_noise_line(stripped):
            close()
            continue
        item = _LIST_ITEM.match(line)
        if item:
            close()
            stripped = line[item.end():].strip()
        elif current and not line[:1].isspace() and (
                _is_deliberate_break(current[-1])
                or (_ended_early(current[-1], stripped, widths[number])
                    and " ".join(current).count("`") % 2 == 0)):  # not inside a code span
            close()  # a list written one item per line, without bullets
        current.append(stripped)
    close()
    return [p for p in (_SPACES.sub(" ", p).strip() for p in paragraphs) if p]


def _is_deliberate_break(previous: str) -> bool:
    """A short line that does not run on: the author ended it there (hard-wrapped prose fills
    its lines to ~72 columns; a line of a bullet-less list does not)."""
    return len(previous) < SHORT_LINE and not previous.endswith((",", "-", "(", "/"))


def _ended_early(previous: str, line: str, width: int) -> bool:
    """The author ended ``previous`` although the next line, which opens like a sentence,
    could have gone on it: hard-wrapped prose fills its lines (a wrapper moves a word down only
    when it does not fit), so a line this much shorter than its block's longest one is a line
    of its own ("Error on nan codepoint" / "Replace negative codepoint ...")."""
    if not line[:1].isupper() or _RUNS_ON.search(previous):
        return False
    return len(previous) + 1 + len(line.split(" ", 1)[0]) <= width - WRAP_SLACK


def _block_widths(lines: list[str]) -> list[int]:
    """For each line, the length of the longest line of its block (lines between blank ones)."""
    widths = [0] * len(lines)
    start = 0
    for end in range(len(lines) + 1):
        if end == len(lines) or not lines[end].strip():
            width = max((len(ln.strip()) for ln in lines[start:end]), default=0)
            widths[start:end] = [width] * (end - start)
            start = end + 1
    return widths


def _is_noise_line(stripped: str) -> bool:
    return bool(
        _QUOTE.match(stripped)
        or _TRAILER.match(stripped)
        or _HEADER.match(stripped)
        or _SETEXT_RULE.match(stripped)
        or _CHECKLIST.match(stripped)
        or _BOILERPLATE.match(stripped)
        or stripped in ("...", "…")
    )


@lru_cache(maxsize=4_096)
def clean_inline(text: str) -> str:
    """Inline cleaning of one paragraph or sentence (see the module docstring). Cached: unit
    extraction, the decision records and commit documents clean the same subjects and
    paragraphs (on psf/requests 16,196 calls for 6,236 distinct texts). Each pass runs only
    when the text holds a character its pattern cannot match without (most prose has no
    markup: redis's 33,492 distinct texts cost 0.89 s with every pass searched)."""
    spans: list[str] = []  # kept code spans, protected from the passes below
    if "`" in text:
        text = _CODE_SPAN.sub(lambda m: _code_span(m, spans), text)
        text = text.replace("`", "")
    if "[" in text:
        text = _IMAGE.sub("", text)
        text = _LINK.sub(r"\1", text)
        text = _REF_LINK.sub(r"\1", text)
    if "<" in text:
        text = _HTML_TAG.sub(" ", text)
    if "://" in text or "www." in text:
        text = _URL.sub("", text)
    if _may_hold_refs(text):
        text = _PAREN_REFS.sub("", text)
        text = _TRAILING_REFS.sub(
            lambda m: "." if m.group(0).lstrip(" ,;")[:1] == "." else "", text)
    if "*" in text or "_" in text:
        text = _EMPHASIS.sub(lambda m: m.group(2) or m.group(4) or "", text)
    if ":" in text:
        text = _GITMOJI.sub("", text)
    if "[" in text:
        text = _CREDITS.sub("", text)
    if ")" in text or "]" in text:
        text = _EMPTY_BRACKETS.sub("", text)
    text = _SPACES.sub(" ", text)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    if "\x00" in text:
        text = _PLACEHOLDER.sub(lambda m: spans[int(m.group(1))], text)
    text = text.strip(" ,;-").lstrip(":").strip()
    lead_in = text.endswith(":")  # "The following cases fail:" keeps saying that it leads in
    text = text.rstrip(" ,;:-")
    return f"{text}:" if lead_in and text else text


def _may_hold_refs(text: str) -> bool:
    """An issue or PR reference (``#12``, ``gh-3``, any case) may be in the text."""
    return "#" in text or ("-" in text and "gh-" in text.lower())


def _code_span(match: re.Match, spans: list[str]) -> str:
    """A short span stays as its text (behind a placeholder); a long one is a snippet: dropped."""
    body = " ".join(match.group(2).split())
    if len(body) <= SPAN_KEEP_CHARS and len(body.split()) <= SPAN_KEEP_WORDS and "\n" not in match.group(2):
        spans.append(body)
        return f"\x00{len(spans) - 1}\x00"
    return ""
