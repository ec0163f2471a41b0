"""Is a question's word foreign to both this history and everyday English?

A question about something the project never did names it: "zstd", "GraphQL", "WebSocket",
"JWT", "brotli". Such a word is in no document of the index (as a whole word: ``WebSocket``'s
parts *web* and *socket* may well be) and it is no common English word either. A user's own
wording of a real question ("why does the expiry get truncated", "the header is bogus") also
misses the index, but its words are plain English. Common English is the semantic encoder's
WordPiece vocabulary (BERT's, from Wikipedia and books: ~22k whole words), matched by Porter
stem, so "truncates" is English because "truncated" is there. Identifiers, versions and numbers
("url.ParseQuery", "1.22", "9421") are never foreign: they are code, checked as such elsewhere.
A protocol with its version ("HTTP/3", "HTTP/2") is a word for this: no everyday English, and
foreign when no document names it (``HTTP/2`` and ``http2`` are one word in the index).
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from whylens.index.analysis import stem

_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_PROTOCOL = re.compile(r"[A-Za-z]+/\d+(?:\.\d+)*")  # as index.analysis tokenises it
PREFIX = 4  # vocabulary words sharing this many first letters are stem-compared


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[tuple[str, ...], frozenset[str]] | None:
    """The encoder's whole-word tokens, sorted; None when the semantic data is unusable."""
    from whylens.index.vectors import encoder

    enc, _problem = encoder()  # the reader says the problem once, when search goes lexical
    tokenizer = getattr(enc, "tokenizer", None)
    if tokenizer is None:
        return None
    words = sorted(w for w in tokenizer.vocab if w.isalpha() and w.isascii())
    return tuple(words), frozenset(words)


def available() -> bool:
    return _vocabulary() is not None


@lru_cache(maxsize=4096)
def is_english(word: str) -> bool:
    """``word`` (or a word of the same Porter stem) is in the everyday vocabulary; True when
    the vocabulary is unavailable (nothing is called foreign then)."""
    loaded = _vocabulary()
    if loaded is None:
        return True
    words, known = loaded
    low = word.lower()
    if low in known:
        return True
    if not low.isalpha() or len(low) < PREFIX:
        return False
    target = stem(low)
    i = bisect.bisect_left(words, low[:PREFIX])
    while i < len(words) and words[i].startswith(low[:PREFIX]):
        if stem(words[i]) == target:
            return True
        i += 1
    return False


def is_foreign(raw: str, whole_df: int) -> bool:
    """A query word (as typed) that no document holds whole and that is not everyday English."""
    if whole_df != 0:
        return False
    return _PROTOCOL.fullmatch(raw) is not None or (_WORD.fullmatch(raw) is not None
                                                     and not is_english(raw))
