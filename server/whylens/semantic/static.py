"""The default encoder: a static token table, pooled. numpy only, ~20k sentences per second.

A sentence vector is the sum of its tokens' rows (the rows already carry the token weights:
frequent, contentless tokens weigh little), scaled to unit length. The table was distilled from
all-MiniLM-L6-v2 and fitted to its sentence vectors (``bench/semantic/build_static_table.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from whylens.semantic.table import DATA_DIR, StaticTable, load_table
from whylens.semantic.tokenizer import WordPieceTokenizer, split_identifiers
from whylens.semantic.vectors import normalise

MAX_TOKENS = 512  # per text; commit sentences are far shorter
_ROWS_PER_CHUNK = 8_192  # token rows gathered at a time: the temporary float copy is 8 MB (256 dims)


class StaticEncoder:
    """``embed(texts)`` → (n, dims) float32 unit rows; zero rows for texts with no known token."""

    def __init__(self, table: StaticTable) -> None:
        self.table = table
        self.tokenizer = WordPieceTokenizer.from_file(table.vocab_path)
        if len(self.tokenizer) != table.codes.shape[0]:
            raise ValueError("vocabulary and table disagree on the number of tokens")
        self._skip = np.zeros(len(self.tokenizer), dtype=bool)  # rows that carry no meaning
        for token in ("[PAD]", "[CLS]", "[SEP]", "[MASK]", "[UNK]"):
            self._skip[self.tokenizer.ids[token]] = True
        self.name = table.name
        self.dims = table.dims

    @classmethod
    def load(cls, folder: Path = DATA_DIR) -> StaticEncoder:
        """The shipped table, hash-checked; raises ``SemanticDataError``."""
        return cls(load_table(folder))

    def token_ids(self, text: str) -> list[int]:
        if self.table.split_identifiers:
            text = split_identifiers(text)
        return self.tokenizer.encode(text, max_length=MAX_TOKENS)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one string")
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        ids: list[np.ndarray] = [np.asarray(self.token_ids(t), dtype=np.int64) for t in texts]
        ids = [a[~self._skip[a]] for a in ids]
        start = 0
        while start < len(ids):
            stop, rows = start, 0
            while stop < len(ids) and (rows == 0 or rows + len(ids[stop]) <= _ROWS_PER_CHUNK):
                rows += len(ids[stop])
                stop += 1
            self._pool(ids[start:stop], out[start:stop])
            start = stop
        return normalise(out)

    def _pool(self, ids: list[np.ndarray], out: np.ndarray) -> None:
        lengths = np.array([len(a) for a in ids])
        present = np.flatnonzero(lengths)
        if present.size == 0:
            return
        flat = np.concatenate([ids[i] for i in present])
        offsets = np.concatenate(([0], np.cumsum(lengths[present])[:-1]))
        out[present] = np.add.reduceat(self.table.rows(flat), offsets, axis=0)
