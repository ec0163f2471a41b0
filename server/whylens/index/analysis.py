"""Analyzers for the index: identifier-aware text, file paths, qualified symbols, authors.

The text analyzer keeps every whole token and adds its parts, so ``HTTPAdapter.send`` matches a
query for ``httpadapter.send``, ``adapter send`` or ``HTTPAdapter``. The same splitting
(``word_groups``) builds queries and checks which query words a hit covers, so index and query
always agree. Analyzers live in this importable module because Whoosh's multiprocessing writer
pickles the schema.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from whoosh.analysis import Token, Tokenizer
from whoosh.lang.porter import stem as _porter

from whylens.gitcli import text_of_os_path

# A word, an identifier, a dotted or kebab name, a version: runs of \w joined by "." or "-";
# first, a protocol and its version written with a slash ("HTTP/2", "HTTP/1.1"), one token.
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*/\d+(?:\.\d+)*(?![\w/])|\w+(?:[.\-]\w+)*")
# A name and its dotted version, as one token: "TLSv1.2", "TLS1.2", "python3.11" (name, version)
# — so that "TLS 1.2" finds "TLSv1.2"; the "v" is the version's when the name is in capitals.
_NAME_VERSION = re.compile(r"([A-Z]{2,})v(\d+(?:\.\d+)*)|([A-Za-z]+?)(\d+(?:\.\d+)+)")
_HEXISH = re.compile(r"^(?=.*\d)[0-9a-f]{7,40}$")
TOKEN_CACHE = 32_768  # tokens whose terms are kept (about 10 MB at most)
MAX_TOKEN = 64  # longer runs are base64, hashes or minified code: not words anyone searches

# English function words, question words, and commit boilerplate that says nothing about intent.
STOP_WORDS = frozenset(
    """
    a an and are as at be been but by can could did do does for from had has have how i if in into
    is it its may me my no not of on or our should so than that the their them then there these
    they this those to too us was we were what when where which who why will with would yet you
    your also just via about after before only please e g eg ie etc
    add adds added adding fix fixes fixed fixing update updates updated updating change changes
    changed changing remove removes removed removing commit commits merge merged merging pull
    request issue issues pr bump bumped patch minor small some more make makes made
    """.split()
)


@dataclass(frozen=True)
class WordGroup:
    """One word of a query: its whole lowercased form and its parts (empty for a plain word)."""

    whole: str
    parts: tuple[str, ...] = ()
    raw: str = ""  # as typed, case kept (for exact symbol matches)


@lru_cache(maxsize=65_536)
def stem(term: str) -> str:
    """Porter stem of a plain lowercase word (``downloads`` → ``download``); identifiers with
    dots, underscores, dashes or digits stay as they are, so exact names still match exactly."""
    if len(term) <= 3 or not term.isalpha():
        return term
    return _porter(term)


STOP_STEMS = STOP_WORDS | frozenset(stem(w) for w in STOP_WORDS)


def split_parts(token: str) -> list[str]:
    """The lowercased parts of one token: split at ``. _ -``, camelCase and digit runs; a name
    with a version (``TLSv1.2``, ``HTTP/1.1``) is the name and the version (``tls``, ``1.2``)."""
    token = token.replace("/", "")
    if _HEXISH.match(token.lower()) or not any(c.isalpha() for c in token):
        return []
    versioned = _NAME_VERSION.fullmatch(token)
    if versioned:
        name, version = versioned.group(1) or versioned.group(3), versioned.group(2) or \
            versioned.group(4)
        return [p for p in dict.fromkeys((name.lower(), version)) if len(p) >= 2]
    parts: list[str] = []
    for segment in re.split(r"[._\-]+", token):
        for piece in camel_split(segment):
            low = piece.lower()
            if len(low) >= 2 and low not in parts:
                parts.append(low)
    return parts


def camel_split(segment: str) -> list[str]:
    """``getURLForName`` → get URL For Name; ``utf8`` → utf 8 (upper/lower case of any script)."""
    pieces: list[str] = []
    start = 0
    for i in range(1, len(segment)):
        prev, cur = segment[i - 1], segment[i]
        nxt = segment[i + 1] if i + 1 < len(segment) else ""
        if (
            (prev.islower() and cur.isupper())
            or (prev.isdigit() != cur.isdigit())
            or (prev.isupper() and cur.isupper() and nxt.islower())
        ):
            pieces.append(segment[start:i])
            start = i
    pieces.append(segment[start:])
    return [p for p in pieces if p]


def dotted_suffixes(token: str) -> list[str]:
    """``a.b.c.d`` → ``b.c.d``, ``c.d`` (suffixes of two or more components)."""
    pieces = token.split(".")
    return [".".join(pieces[i:]) for i in range(1, len(pieces) - 1)]


def ident_tokens(token: str) -> list[str]:
    """Index terms for one token: the whole (lowercased; a protocol's slash dropped: ``HTTP/2``
    is ``http2``), its dotted suffixes, then its parts."""
    whole = stem(token.lower().replace("/", ""))
    out = [whole]
    for extra in dotted_suffixes(whole) + [stem(p) for p in split_parts(token)]:
        if extra not in out:
            out.append(extra)
    return out


def word_groups(text: str) -> list[WordGroup]:
    """The searchable words of a query, in order, stop words and duplicates dropped; each the
    way ``text_terms`` indexes it (stemmed whole, stemmed parts)."""
    groups: list[WordGroup] = []
    seen: set[str] = set()
    for match in _TOKEN.finditer(clean_text(text)):
        raw = match.group(0).strip(".-")
        if not raw or len(raw) > MAX_TOKEN or raw.lower() in STOP_WORDS:
            continue
        whole = ident_tokens(raw)[0]
        parts = tuple(dict.fromkeys(
            s for s in (stem(p) for p in split_parts(raw)) if s not in STOP_STEMS
        ))
        if len(parts) <= 1 or parts == (whole,):
            parts = ()
        if whole in seen or ((whole in STOP_STEMS or len(whole) < 2) and not parts):
            continue
        seen.add(whole)
        groups.append(WordGroup(whole=whole, parts=parts, raw=raw))
    return groups


def text_terms(text: str) -> Iterator[str]:
    """Every index term of ``text`` in order (what the text analyzer emits, stop words dropped)."""
    for match in _TOKEN.finditer(clean_text(text)):
        yield from _token_terms(match.group(0))


@lru_cache(maxsize=TOKEN_CACHE)
def _token_terms(token: str) -> tuple[str, ...]:
    """The index terms of one ``_TOKEN`` match (cached: a history repeats its words, and
    splitting and stemming each occurrence was most of the indexer's analysis time)."""
    raw = token.strip(".-")
    if not raw or len(raw) > MAX_TOKEN or raw.lower() in STOP_WORDS:
        return ()
    return tuple(term for term in ident_tokens(raw) if len(term) >= 2 and term not in STOP_STEMS)


def path_terms(value: str) -> Iterator[str]:
    """One path per line → the path and each ancestor folder (``a/b/c.py``, ``a/b``, ``a``)."""
    for line in value.splitlines():
        path = normalise_path(line)
        if not path:
            continue
        yield path
        pieces = path.split("/")
        for i in range(len(pieces) - 1, 0, -1):
            yield "/".join(pieces[:i])


def symbol_terms(value: str) -> Iterator[str]:
    """One qualified symbol per line → the name and every dotted suffix, case kept."""
    for line in value.splitlines():
        name = line.strip()
        if not name:
            continue
        pieces = name.split(".")
        for i in range(len(pieces)):
            tail = ".".join(pieces[i:])
            if tail:
                yield tail


def symbol_tails(name: str) -> list[str]:
    """Every dotted suffix of a qualified symbol, the full name first (for exact lookups)."""
    return list(dict.fromkeys(symbol_terms(clean_text(name))))


def author_terms(value: str) -> Iterator[str]:
    """An author name → the whole name lowercased and each of its words."""
    name = " ".join(value.lower().split())
    if name:
        yield name
        words = name.split()
        if len(words) > 1:
            yield from words


def clean_text(text: str) -> str:
    """Text safe for UTF-8 stores (Whoosh terms, sqlite): lone surrogates become U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


@lru_cache(maxsize=16_384)
def normalise_path(path: str) -> str:
    """``./a//b/`` → ``a/b``; backslashes become slashes; a byte that is not UTF-8 (a surrogate
    from the OS) becomes the character ``gitcli.path_text`` gives it, so an OS path finds it.
    Cached: a full index asks it for the same few thousand paths hundreds of thousands of
    times (every event, blame run and changed file)."""
    path = clean_text(text_of_os_path(path)).strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return _SLASHES.sub("/", path).strip("/")


_SLASHES = re.compile(r"/+")


class TermTokenizer(Tokenizer):
    """A Whoosh tokenizer over one of the term functions above (picklable: named by key)."""

    FUNCTIONS = {
        "text": text_terms,
        "path": path_terms,
        "symbol": symbol_terms,
        "author": author_terms,
    }

    def __init__(self, kind: str) -> None:
        if kind not in self.FUNCTIONS:
            raise ValueError(f"unknown term kind {kind!r}")
        self.kind = kind

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TermTokenizer) and other.kind == self.kind

    def __hash__(self) -> int:
        return hash(self.kind)

    def __call__(self, value, positions=False, chars=False, keeporiginal=False,
                 removestops=True, start_pos=0, start_char=0, tokenize=True, mode="", **kwargs):
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        terms = self.FUNCTIONS[self.kind](value) if tokenize else iter([value])
        for pos, term in enumerate(terms, start_pos):
            token.text = term
            token.boost = 1.0
            token.stopped = False
            if keeporiginal:
                token.original = term
            if positions:
                token.pos = pos
            if chars:
                token.startchar = start_char
                token.endchar = start_char
            yield token


def text_analyzer() -> TermTokenizer:
    return TermTokenizer("text")


def path_analyzer() -> TermTokenizer:
    return TermTokenizer("path")


def author_analyzer() -> TermTokenizer:
    return TermTokenizer("author")
