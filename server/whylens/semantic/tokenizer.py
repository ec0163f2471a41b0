"""BERT WordPiece tokenizer (uncased), pure Python: the ids all-MiniLM-L6-v2 was trained on.

Reproduces the reference tokenizer (``tokenizer.json``: BertNormalizer with lowercasing and accent
stripping, BertPreTokenizer, WordPiece with ``##`` continuations) id for id, checked by
``bench/semantic/check_tokenizer.py`` on commit sentences. ``split_identifiers`` is an optional
step before it: ``HTTPAdapter.sendRequest`` → ``HTTP Adapter.send Request``, so a code name is read
as the words it is made of instead of word pieces of a lowercased blob.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
MAX_CHARS_PER_WORD = 100  # a longer word is one [UNK], as in the reference
_SPECIAL = re.compile(r"(\[(?:PAD|UNK|CLS|SEP|MASK)\])")
# camelCase and ALLCapsWord boundaries inside a run of letters and digits
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9]*[a-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z]\w*")


def split_identifiers(text: str) -> str:
    """Spaces at the camelCase boundaries of code names (``getURLForName`` → ``get URL For
    Name``); ``_``, ``.`` and ``-`` already split as punctuation, plain words are untouched."""
    return _IDENT.sub(lambda m: _CAMEL.sub(" ", m.group(0)), text)


class WordPieceTokenizer:
    """Text → token ids of a BERT uncased vocabulary (one token per line, id = line number)."""

    def __init__(self, vocab: Sequence[str]) -> None:
        self.vocab: tuple[str, ...] = tuple(vocab)
        self.ids: dict[str, int] = {token: i for i, token in enumerate(self.vocab)}
        for token in SPECIAL_TOKENS:
            if token not in self.ids:
                raise ValueError(f"vocabulary lacks the special token {token}")
        self.unk_id = self.ids["[UNK]"]
        self.cls_id = self.ids["[CLS]"]
        self.sep_id = self.ids["[SEP]"]
        self.pad_id = self.ids["[PAD]"]
        self._word_ids = lru_cache(maxsize=200_000)(self._wordpiece)

    @classmethod
    def from_file(cls, path: Path) -> WordPieceTokenizer:
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return cls(lines)

    def __len__(self) -> int:
        return len(self.vocab)

    def tokenize(self, text: str) -> list[str]:
        """Word pieces of ``text`` (no [CLS]/[SEP])."""
        return [self.vocab[i] for i in self.encode(text)]

    def encode(self, text: str, *, special: bool = False, max_length: int | None = None) -> list[int]:
        """Ids of ``text``; with ``special`` wrapped in [CLS] … [SEP]; ``max_length`` counts
        them (the reference truncates the pieces, then adds the two)."""
        ids: list[int] = []
        for chunk in _SPECIAL.split(text):
            if chunk in SPECIAL_TOKENS:
                ids.append(self.ids[chunk])
                continue
            for word in _words(_normalise(chunk)):
                ids.extend(self._word_ids(word))
        if max_length is not None:
            ids = ids[: max_length - 2 if special else max_length]
        return [self.cls_id, *ids, self.sep_id] if special else ids

    def _wordpiece(self, word: str) -> tuple[int, ...]:
        if len(word) > MAX_CHARS_PER_WORD:
            return (self.unk_id,)
        out: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.ids.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self.unk_id,)
            out.append(found)
            start = end
        return tuple(out)


# ASCII control characters are dropped (category Cc), but tab, newline and return become spaces
_ASCII_NORMALISE = {cp: (" " if chr(cp) in "\t\n\r" else None) for cp in (*range(32), 127)}


def _normalise(text: str) -> str:
    """BertNormalizer: drop control characters, whitespace to spaces, space out CJK ideographs,
    strip accents (NFD, drop combining marks), lowercase — in the reference's order."""
    if text.isascii():  # the same steps, as one table (most of a history's text)
        return text.translate(_ASCII_NORMALISE).lower()
    chars: list[str] = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD:
            continue
        if ch in "\t\n\r":
            chars.append(" ")
            continue
        if unicodedata.category(ch).startswith("C"):
            continue
        if ch.isspace():
            chars.append(" ")
        elif _is_cjk(cp):
            chars.extend((" ", ch, " "))
        else:
            chars.append(ch)
    text = "".join(chars)
    if text.isascii():
        return text.lower()
    stripped = (c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    return "".join(c.lower() for c in stripped)  # per character: no final-sigma rule


def _words(text: str) -> Iterator[str]:
    """BertPreTokenizer: split at whitespace; every punctuation character is a word of its own."""
    for chunk in text.split():
        if chunk.isalnum():
            yield chunk
            continue
        start = 0
        for i, ch in enumerate(chunk):
            if _is_punctuation(ch):
                if start < i:
                    yield chunk[start:i]
                yield ch
                start = i + 1
        if start < len(chunk):
            yield chunk[start:]


@lru_cache(maxsize=4096)
def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)
