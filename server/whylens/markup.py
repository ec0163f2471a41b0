"""Text from the history → markdown that shows it as text: the one place that escapes it.

Commit subjects, bodies, author names, unit and record text, file and symbol names come from the
repository, which anyone may have written. Where they enter markdown (hover cards, rationales,
``why``, review comments, search and explain-error answers, MCP answers) they go through
``inline`` (running text, table cells too) or ``code`` (names and paths as code spans), so
no image loads, no link or autolink forms (``command:`` URIs included), no raw HTML passes and no
line turns into a heading or a list. Links WhyLens builds itself (commit, PR and issue pages from
the remote, ``retrieval.citations``) go through ``link``, which accepts http(s) URLs only.

The escaping is CommonMark's backslash escape of ASCII punctuation, which renders as the
character itself in every CommonMark renderer (VS Code's hovers and preview, GitHub); only the
characters that can start markup are escaped, so the markdown source stays readable.
``unescape`` turns it back into plain text (SARIF's plain message).
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

# Characters that can open markup anywhere in a line: emphasis, code, links and images, HTML and
# autolinks, entities, tables, strikethrough, math ($ in VS Code's preview and GitHub). An
# underscore between two letters or digits (snake_case) can neither open nor close emphasis.
_INLINE = re.compile(r"([\\`*\[\]<>&|~$]|(?<![^\W_])_|_(?![^\W_]))")
# Literal autolinks (GFM, linkify): scheme://, www., e-mail addresses. Escaping one character of
# each breaks the pattern the renderer looks for; the text reads the same.
_AUTOLINK = re.compile(r"(?i)(?<=[a-z0-9+.-])(:)(?=//)|(?<![\w.-])(www)(\.)|(@)(?=[\w-])")
# A line that starts with one of these becomes a heading, a list, a quote, a rule or a setext
# underline: its first character is escaped.
_LINE_START = re.compile(r"^(?:[#+=>-]|\d{1,9}[.)])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")  # (ESC, CSI: no terminal codes)
_SAFE_URL_CHARS = "/:?#@!$&'*+,;=%-._~"


def flatten(text: str | None, limit: int | None = None) -> str:
    """Whitespace collapsed to single spaces (one line), cut at ``limit`` with an ellipsis."""
    flat = " ".join(_CONTROL.sub(" ", text or "").split())
    if limit is not None and len(flat) > limit:
        flat = flat[: max(limit - 1, 0)].rstrip() + "…"
    return flat


def _escape(flat: str) -> str:
    escaped = _INLINE.sub(r"\\\1", flat)
    escaped = _AUTOLINK.sub(lambda m: "".join(
        ("\\" + g if g in (":", ".", "@") else g) for g in m.groups() if g), escaped)
    if _LINE_START.match(escaped):
        head = re.match(r"\d+", escaped)
        at = head.end() if head else 0  # "1." → "1\.": a digit cannot be escaped
        escaped = escaped[:at] + "\\" + escaped[at:]
    return escaped


def inline(text: str | None, limit: int | None = None) -> str:
    """History text as one line of markdown that renders as exactly that text (cut at ``limit``
    characters of text, before escaping)."""
    return _escape(flatten(text, limit))


def code(text: str | None, limit: int | None = None, in_table: bool = False) -> str:
    """A name or path as a code span (nothing inside is markup), on one line: the fence is longer
    than any run of backticks inside. ``in_table``: ``|`` is escaped (GFM tables split cells on
    it even inside code spans, and read ``\\|`` there as ``|``)."""
    flat = flatten(text, limit) or " "
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    if in_table:
        flat = flat.replace("|", "\\|")
    return f"{fence}{pad}{flat}{pad}{fence}"


def safe_url(url: str | None) -> str | None:
    """``url`` when it is an http(s) URL, percent-encoded so it cannot end the link early or
    carry markup; None for anything else (``command:``, ``javascript:``, ``file:``, ...)."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return quote(url.strip(), safe=_SAFE_URL_CHARS).replace("(", "%28").replace(")", "%29")


def link(label: str, url: str | None) -> str:
    """``[label](url)`` for a URL WhyLens built; ``label`` alone when the URL is not http(s).
    ``label`` is markdown already (``#12``, a code span)."""
    safe = safe_url(url)
    return f"[{label}]({safe})" if safe else label


_UNESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def unescape(markdown: str) -> str:
    """Backslash escapes removed: what the text reads as (for plain-text fields)."""
    return _UNESCAPE.sub(r"\1", markdown)
