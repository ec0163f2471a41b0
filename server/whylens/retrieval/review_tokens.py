"""Code lines → normalised tokens → winnowed k-gram fingerprints (for "this brings back X").

Tokens keep identifiers, numbers and string literals (quotes normalised: ``'a'`` and ``"a"`` are
one token) and operators; whitespace and comments are dropped, so re-indenting or re-commenting
the lines of a reverted change still matches them. Fingerprints are the winnowing selection
(Schleimer, Wilkerson, Aiken 2003) of hashed k-grams of tokens, taken per run of consecutive lines:
every shared run of at least ``K + WINDOW - 1`` tokens is guaranteed to share a fingerprint.
Context lines (unchanged neighbours of a hunk) only shape the k-grams that reach into a changed
line, so a one-token change is still recognised by where it sits.
A line of its own (at least ``MIN_LINE_TOKENS`` tokens with a name or a literal in it) is also a
fingerprint, so a one-line revert (``timeout=5``) can be matched too.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

K = 5  # tokens per k-gram
WINDOW = 4  # winnowing window (k-grams)
MIN_LINE_TOKENS = 3
CONTEXT_LINES = 2  # neighbouring lines (with tokens) around each block of changed lines
# The token of a block string's opening or closing quotes. It starts like a string literal (it
# names something) but never ends like one, so a string of one quote ('"' → ``"""``) is not it.
BLOCK = '"<block>'

_HASH_COMMENT_ENDINGS = frozenset(
    "py pyi pyx rb sh bash zsh pl pm r yml yaml toml cfg ini conf cmake mk coffee nim ex exs".split())
_NO_LINE_COMMENTS = frozenset("md rst txt json html htm xml svg csv".split())
_TRIPLE = "(?P<block>{d}.*?{d}|{s}.*?{s})|(?P<tri>{d}|{s})|".format(d='"' * 3, s="'" * 3)
_REST = r"""
      (?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`)
    | (?P<slash>//.*|/\*.*?(?:\*/|$))
    | (?P<hash>\#.*)
    | (?P<num>\d[\w.]*)
    | (?P<name>[A-Za-z_$][\w$]*)
    | (?P<op>\S)
"""
_TOKEN = re.compile(_REST, re.X)  # most languages: three quotes in a row are two strings
_TOKEN_BLOCKS = re.compile(_TRIPLE + _REST, re.X)  # Python: ''' and """ open a block string
# Words that occur in every file of a language: a k-gram of only these (and operators) says nothing.
_KEYWORDS = frozenset("""
    if else elif for while return def class function var let const import from as in is not and or
    try except catch finally raise throw new this self true false none null nil undefined pass
    break continue end do then fi done case switch default with yield async await func package
    public private protected static void int str bool string type struct impl fn pub use mod
""".split())


def comment_style(path: str) -> str:
    """``hash`` (# comments), ``none`` (prose and data files), else ``slash`` (// and /* */).
    ``lex_style`` is the style the tokens of a file are read with."""
    name = path.rsplit("/", 1)[-1].lower()
    ending = name.rsplit(".", 1)[-1] if "." in name else name
    if ending in _HASH_COMMENT_ENDINGS or name in ("makefile", "dockerfile", "gemfile", "rakefile"):
        return "hash"
    if ending in _NO_LINE_COMMENTS:
        return "none"
    return "slash"


def lex_style(path: str) -> str:
    """How the lines of ``path`` are read: ``python`` (# comments and block strings between three
    quotes: only Python has them), else its ``comment_style``."""
    if path.rsplit(".", 1)[-1].lower() in _BLOCK_STRING_ENDINGS:
        return "python"
    return comment_style(path)


def tokens(line: str, style: str = "slash") -> list[str]:
    """The normalised tokens of one line (comments of ``style`` dropped). Only the ``python``
    style reads three quotes as a block string's (``BLOCK``); elsewhere ``'"' + x`` is a string
    and a name, and three double quotes two strings."""
    lexer = _TOKEN_BLOCKS if style == "python" else _TOKEN
    if style == "python":
        style = "hash"
    stripped = line.strip()
    if style == "slash" and stripped.startswith("*") and not stripped.startswith("*/") \
            and not stripped.startswith("**"):
        return []  # the middle of a /* ... */ block
    out: list[str] = []
    for match in lexer.finditer(line):
        kind = match.lastgroup
        text = match.group(0)
        if kind == "str":
            out.append('"' + text[1:-1] + '"')
        elif kind == "block":
            out.append('"' + text[3:-3] + '"')
        elif kind == "tri":
            out.append(BLOCK)  # a block string (a docstring) opens or closes on this line
        elif kind == "slash" and style == "slash":
            continue
        elif kind == "hash" and style == "hash":
            break
        elif kind in ("slash", "hash"):
            out.extend(t for t in _split_ops(text))
        else:
            out.append(text)
    return out


def code_only(text: str, path: str) -> str:
    """The lines of ``text`` (consecutive lines of ``path``) that hold code: comment lines and
    the lines of block strings (docstrings) and prose messages are left out."""
    lines = text.split("\n")
    return "\n".join(line for line, code in zip(lines, _code_tokens(lines, lex_style(path)))
                     if any(t[0].isalnum() or t[0] in '_$"' for t in code))  # not only operators


_LAYOUT = frozenset(",();\\")  # what formatters add and remove (trailing commas, wraps, semicolons)


def cosmetic(removed: Iterable[str], added: Iterable[str], path: str,
             removed_in_block: bool = False, added_in_block: bool = False) -> bool:
    """The removed and added lines are the same code: only layout, comments or prose strings
    (docstrings, messages of three words or more) differ. ``*_in_block``: the lines start inside
    a block string (a hunk in the middle of a docstring; ``block_starts`` tells)."""
    style = lex_style(path)
    return _shape(removed, style, removed_in_block) == _shape(added, style, added_in_block)


_BLOCK_STRING_ENDINGS = frozenset("py pyi pyx".split())  # where ''' and """ open a block string


def block_starts(lines: Sequence[str], path: str) -> list[bool]:
    """For each line of a file, whether it starts inside a block string (a docstring). Only
    Python's: elsewhere three quotes in a row are two strings side by side (``'"' + x``)."""
    style = lex_style(path)
    if style != "python":
        return [False] * len(lines)
    out = []
    in_block = False
    for line in lines:
        out.append(in_block)
        for token in tokens(line, style):
            if token == BLOCK:
                in_block = not in_block
    return out


def _shape(lines: Iterable[str], style: str, in_block: bool = False) -> list[str]:
    """The code tokens of ``lines`` less layout (``in_block``: they start inside a block string)."""
    return [t for code in _code_tokens(lines, style, in_block) for t in code if t not in _LAYOUT]


def _code_tokens(lines: Iterable[str], style: str, in_block: bool = False) -> Iterator[list[str]]:
    """Per line, its tokens that are code: not the quotes or the inside of a block string (a
    docstring; ``in_block``: the lines start inside one), not prose (a string of three words or
    more: a message)."""
    for line in lines:
        code = []
        for token in tokens(line, style):
            if token == BLOCK:
                in_block = not in_block
            elif not in_block and not (token.startswith('"') and token.count(" ") >= 2):
                code.append(token)
        yield code


def _split_ops(text: str) -> list[str]:
    return [m.group(0) for m in re.finditer(r"[A-Za-z_$][\w$]*|\d[\w.]*|\S", text)]


def meaningful(gram: Sequence[str]) -> bool:
    """A k-gram (or line) that names something: an identifier that is not a keyword, a number
    other than 0/1, or a string literal."""
    for token in gram:
        first = token[0]
        if first == '"' and len(token) > 2:
            return True
        if (first.isalpha() or first in "_$") and token.lower() not in _KEYWORDS:
            return True
        if first.isdigit() and token not in ("0", "1"):
            return True
    return False


def _hash(parts: Iterable[str]) -> int:
    return zlib.crc32("\x1f".join(parts).encode("utf-8", "replace"))


@dataclass(frozen=True)
class Fingerprints:
    """What one side of a change looks like: winnowed k-gram hashes and whole-line hashes,
    each mapped to the (first) line number it starts on."""

    grams: dict[int, int]
    lines: dict[int, int]

    def __len__(self) -> int:
        return len(self.grams) + len(self.lines)

    def keys(self) -> set[tuple[str, int]]:
        return {("g", h) for h in self.grams} | {("l", h) for h in self.lines}

    def line_of(self, key: tuple[str, int]) -> int:
        return (self.grams if key[0] == "g" else self.lines)[key[1]]


def fingerprint(numbered_lines: Iterable[tuple[int, str]], path: str,
                winnow: bool = True, loose: bool = False) -> Fingerprints:
    """Fingerprints of ``(line number, text)`` pairs, all of them changed lines; a gap in the
    numbering starts a new run (k-grams never span two hunks). ``winnow=False`` keeps every
    k-gram: the side a winnowed set is looked up in. ``loose``: also the k-grams and lines that
    name nothing (``return None``), for a past change too small to be told apart otherwise."""
    runs: list[list[tuple[int, str, bool]]] = []
    previous = None
    for number, text in numbered_lines:
        if previous is None or number != previous + 1:
            runs.append([])
        runs[-1].append((number, text, True))
        previous = number
    return _prints(runs, lex_style(path), winnow, loose)


def fingerprint_in_context(changed: Iterable[tuple[int, str]], around: Mapping[int, str],
                           path: str, winnow: bool = True, context: int = CONTEXT_LINES,
                           loose: bool = False) -> Fingerprints:
    """Fingerprints of changed lines, each block of them with up to ``context`` neighbouring
    lines that carry tokens (from ``around``: line number → text) on either side. The
    neighbours only shape the k-grams that reach into a changed line; blank and comment lines
    are skipped, so an added blank line next to the change does not hide it."""
    style = lex_style(path)
    lines = dict(changed)
    runs = []
    for block in consecutive_blocks(sorted(lines)):
        before = _neighbours(block[0], -1, lines, around, style, context)
        after = _neighbours(block[-1], 1, lines, around, style, context)
        runs.append([(n, around[n], False) for n in reversed(before)]
                    + [(n, lines[n], True) for n in block] + [(n, around[n], False) for n in after])
    return _prints(runs, style, winnow, loose)


def consecutive_blocks(numbers: list[int]) -> list[list[int]]:
    """Sorted line numbers grouped into runs of consecutive ones (one run a hunk)."""
    blocks: list[list[int]] = []
    for n in numbers:
        if blocks and n == blocks[-1][-1] + 1:
            blocks[-1].append(n)
        else:
            blocks.append([n])
    return blocks


def _neighbours(start: int, step: int, changed: Mapping[int, str], around: Mapping[int, str],
                style: str, context: int) -> list[int]:
    found: list[int] = []
    n = start + step
    while len(found) < context and n in around and n not in changed:
        if tokens(around[n], style):
            found.append(n)
        n += step
    return found


def _prints(runs: list[list[tuple[int, str, bool]]], style: str, winnow: bool,
            loose: bool = False) -> Fingerprints:
    grams: dict[int, int] = {}
    lines: dict[int, int] = {}
    for run in runs:
        stream: list[tuple[str, int, bool]] = []
        for number, text, is_changed in run:
            line_tokens = tokens(text, style)
            if is_changed and line_tokens and (loose or (
                    len(line_tokens) >= MIN_LINE_TOKENS and meaningful(line_tokens))):
                lines.setdefault(_hash(line_tokens), number)
            stream.extend((t, number, is_changed) for t in line_tokens)
        _winnow(stream, grams, winnow, loose)
    return Fingerprints(grams, lines)


def _winnow(run: list[tuple[str, int, bool]], out: dict[int, int], winnow: bool = True,
            loose: bool = False) -> None:
    if len(run) < K:
        return
    hashes: list[tuple[int, int]] = []  # (hash, line) of each k-gram; -1: not one to keep
    for i in range(len(run) - K + 1):
        span = run[i:i + K]
        gram = [t for t, _, _ in span]
        changed = [n for _, n, c in span if c]
        keep = changed and (loose or meaningful(gram))
        hashes.append((_hash(gram), changed[0]) if keep else (-1, 0))
    if not winnow:
        for value, line in hashes:
            if value >= 0:
                out.setdefault(value, line)
        return
    if len(hashes) <= WINDOW:
        best = min((h for h in hashes if h[0] >= 0), default=None)
        if best is not None:
            out.setdefault(best[0], best[1])
        return
    for start in range(len(hashes) - WINDOW + 1):
        window = [h for h in hashes[start:start + WINDOW] if h[0] >= 0]
        if window:
            chosen = min(reversed(window), key=lambda h: h[0])  # rightmost minimum
            out.setdefault(chosen[0], chosen[1])
