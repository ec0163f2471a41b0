"""Semantic vectors of the searchable documents: written with them, scored by brute force.

Each Whoosh document (unit, record, commit document) gets one vector of the default encoder
(``semantic``: a static table shipped in the package), stored int8 with one float scale in the
sidecar's ``vectors`` table, in the same transaction as the document. The encoder's name goes
into the index meta; a reader whose encoder differs (or whose data is missing or corrupt) does
not use the vectors, and search stays lexical (``VectorIndex.unavailable`` says why, once).

A reader loads the whole table into one int8 matrix on first use (256 bytes + 4 per document:
26 MB at 100k documents) and scores every row per query (``QuantisedVectors.scores``).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from typing import Any

import numpy as np

from whylens.errors import WhyLensError

log = logging.getLogger(__name__)

DDL = "CREATE TABLE IF NOT EXISTS vectors (id TEXT PRIMARY KEY, code BLOB, scale REAL);"
CENTROID_CHUNK = 4_096
# Of a document's text, what is embedded: the static encoder sums token rows, so a long tail of
# a message dilutes what its first paragraphs say. Measured on the tune half (answer commit by
# meaning alone, MRR): 150 chars 0.30, 300 0.40, 600 0.42, 1200 0.41, all 0.41 (pooled).
EMBED_CHARS = 600


def encoder() -> tuple[Any | None, str | None]:
    """(the default encoder, None) or (None, why there is none: a message naming the fix)."""
    try:
        from whylens import semantic
    except ImportError as exc:  # numpy or the package data missing from a broken install
        return None, f"semantic matching is unavailable ({exc}); reinstall WhyLens"
    try:
        return semantic.default_encoder(), None
    except WhyLensError as exc:  # SemanticDataError: a data file missing or corrupt
        return None, str(exc)


def write(conn: sqlite3.Connection, ids: Sequence[str], texts: Sequence[str], enc: Any) -> None:
    """Embed ``texts`` and store them under ``ids`` (replacing earlier vectors)."""
    if not ids:
        return
    from whylens.semantic import quantise

    vectors = quantise(enc.embed([t[:EMBED_CHARS] for t in texts]))
    conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", [
        (doc_id, vectors.codes[i].tobytes(), float(vectors.scales[i]))
        for i, doc_id in enumerate(ids)])


def delete(conn: sqlite3.Connection, ids: Sequence[str]) -> None:
    conn.executemany("DELETE FROM vectors WHERE id = ?", [(i,) for i in ids])


class VectorIndex:
    """Every stored vector of one snapshot, for brute-force cosine scoring."""

    def __init__(self, ids: np.ndarray, codes: np.ndarray, scales: np.ndarray, enc: Any) -> None:
        from whylens.semantic import QuantisedVectors

        self.ids = ids  # sorted, dtype "U": row i holds the vector of ids[i]
        self.vectors = QuantisedVectors(codes, scales)
        self.encoder = enc
        self._centroid: np.ndarray | None = None

    @classmethod
    def load(cls, conn: sqlite3.Connection, meta: dict) -> VectorIndex | str:
        """The vectors of this snapshot, or why search must stay lexical."""
        enc, problem = encoder()
        if enc is None:
            return problem or "semantic matching is unavailable"
        stored = meta.get("semantic_encoder")
        if stored != enc.name:
            return (f"this index has no vectors of the current semantic model ({stored or 'none'},"
                    f" current {enc.name}); `whylens index` rebuilds it")
        rows = conn.execute("SELECT id, code, scale FROM vectors ORDER BY id").fetchall()
        dims = enc.dims
        if any(len(code) != dims for _, code, _ in rows):
            return "the index's vectors do not fit the semantic model; `whylens index` rebuilds it"
        ids = np.array([r[0] for r in rows], dtype=str)
        codes = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.int8).reshape(len(rows), dims)
        scales = np.array([r[2] for r in rows], dtype=np.float32)
        return cls(ids, codes, scales, enc)

    def __len__(self) -> int:
        return len(self.ids)

    def embed_query(self, text: str) -> np.ndarray:
        return self.encoder.embed([text])[0]

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine of ``query`` with every row (rows are unit vectors quantised)."""
        return self.vectors.scores(query)

    def domain(self, query: np.ndarray) -> float:
        """Cosine of ``query`` with the mean direction of every document (the project's topic)."""
        if self._centroid is None:
            total = np.zeros(self.vectors.codes.shape[1], dtype=np.float64)
            for start in range(0, len(self), CENTROID_CHUNK):
                part = self.vectors.codes[start:start + CENTROID_CHUNK].astype(np.float32)
                total += (part * self.vectors.scales[start:start + CENTROID_CHUNK, None]).sum(0)
            norm = float(np.linalg.norm(total))
            self._centroid = (total / norm if norm > 0 else total).astype(np.float32)
        return float(self._centroid @ query)

    def rows_of(self, ids: Sequence[str]) -> np.ndarray:
        """Row numbers of ``ids`` (-1 for an id without a vector)."""
        wanted = np.array(list(ids), dtype=str)
        if not len(wanted) or not len(self.ids):
            return np.full(len(wanted), -1, dtype=np.int64)
        pos = np.searchsorted(self.ids, wanted)
        pos = np.minimum(pos, len(self.ids) - 1)
        return np.where(self.ids[pos] == wanted, pos, -1)

    def cosine_of(self, query: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """Cosine of ``query`` with the vectors of ``ids`` (0 for ids without one)."""
        rows = self.rows_of(ids)
        out: dict[str, float] = {}
        for doc_id, row in zip(ids, rows):
            if row < 0:
                out[doc_id] = 0.0
                continue
            codes = self.vectors.codes[row].astype(np.float32)
            out[doc_id] = float(codes @ query) * float(self.vectors.scales[row])
        return out
