"""Vector arithmetic the callers share: cosine similarity, int8 storage, top k, score fusion.

Every encoder returns float32 rows of unit length (a text with no known token gives a zero row),
so cosine similarity is a dot product. ``QuantisedVectors`` keeps many vectors in a quarter of
the memory (int8 codes and one float32 scale per row) and scores them in chunks, so scoring 100k
vectors never materialises a float copy of the whole matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SCORE_CHUNK = 1_024  # rows dequantised at a time: 1 MB of floats stays in cache (16k rows: 10× the CPU)


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero); float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def similarity(query: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Cosine similarity of ``query`` ((dims,) or (q, dims)) with each row of ``matrix``
    ((n, dims)): shape (n,) or (q, n). Inputs need not be normalised."""
    rows, q = normalise(matrix), normalise(query)
    return rows @ q if q.ndim == 1 else q @ rows.T


@dataclass(frozen=True)
class QuantisedVectors:
    """Rows stored as int8 ``codes`` (n, dims) times a float32 ``scales`` (n,)."""

    codes: np.ndarray
    scales: np.ndarray

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Dot product of a (dims,) query with every row: cosine for unit-length rows."""
        query = np.asarray(query, dtype=np.float32)
        out = np.empty(len(self), dtype=np.float32)
        for start in range(0, len(self), SCORE_CHUNK):
            stop = start + SCORE_CHUNK
            out[start:stop] = self.codes[start:stop].astype(np.float32) @ query
        out *= self.scales
        return out

    def dequantise(self) -> np.ndarray:
        return self.codes.astype(np.float32) * self.scales[:, None]


def quantise(vectors: np.ndarray) -> QuantisedVectors:
    """Symmetric int8 per row (scale = max |value| / 127); a zero row stays zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(vectors).max(axis=1) if vectors.size else np.zeros(len(vectors), np.float32)
    scales = (peak / 127.0).astype(np.float32)
    safe = np.where(scales > 0, scales, 1.0)[:, None]
    codes = np.clip(np.rint(vectors / safe), -127, 127).astype(np.int8)
    return QuantisedVectors(codes=codes, scales=scales)


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores, best first (ties: lower index first)."""
    k = min(k, len(scores))
    if k <= 0:
        return np.empty(0, dtype=np.int64)
    part = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    return part[np.lexsort((part, -scores[part]))]


def minmax(scores: np.ndarray) -> np.ndarray:
    """Scores mapped onto [0, 1] (all equal → all zero)."""
    scores = np.asarray(scores, dtype=np.float32)
    if scores.size == 0:
        return scores
    low, high = float(scores.min()), float(scores.max())
    return (scores - low) / (high - low) if high > low else np.zeros_like(scores)


def fuse(lexical: np.ndarray, semantic: np.ndarray, semantic_weight: float) -> np.ndarray:
    """Convex mix of min-max normalised scores over the same candidates."""
    if not 0.0 <= semantic_weight <= 1.0:
        raise ValueError("semantic_weight must be within [0, 1]")
    return (1 - semantic_weight) * minmax(lexical) + semantic_weight * minmax(semantic)
