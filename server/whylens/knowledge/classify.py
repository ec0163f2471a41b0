"""The learned sentence classifier: unit type (fact / skill / pattern / none) and record role
(problem / cause / decision / rejected / none) of one commit sentence.

Two multinomial logistic regressions over the sparse features of ``knowledge.features``, trained
by bench/train_sentences.py on the hand-labelled sentences of the tune repositories and shipped
as ``data/sentence_model.json`` (its sha256 in ``data/manifest.json``, checked on load). Pure
Python at run time: a prediction is a sum of the weights of the features present.

A class is only *chosen* when its probability reaches the class's threshold (picked in training
on cross-validated predictions, for precision first: a card shows one sentence alone); otherwise
the answer is ``none``. When the data is missing or corrupt, ``default_model()`` returns None,
logs it once, and callers fall back to today's rules (``heuristics``, ``records.extract``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

DATA_DIR = Path(__file__).resolve().parent / "data"
MODEL_FILE = "sentence_model.json"
MANIFEST_FILE = "manifest.json"
FORMAT = 1
TASKS = ("unit", "role")


class ModelDataError(Exception):
    """The shipped model file is missing, altered or unreadable."""


@dataclass(frozen=True)
class Head:
    """One task's classes, bias, sparse weights (feature → one weight per class), thresholds."""

    classes: tuple[str, ...]
    bias: tuple[float, ...]
    weights: dict[str, tuple[float, ...]]
    thresholds: dict[str, float]

    def probabilities(self, features) -> dict[str, float]:
        scores = list(self.bias)
        for name in features:
            row = self.weights.get(name)
            if row is not None:
                for i, w in enumerate(row):
                    scores[i] += w
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return {c: e / total for c, e in zip(self.classes, exps)}

    def choose(self, probs: dict[str, float]) -> str:
        """The most probable class that reaches its threshold, else ``none``. A threshold
        ``any`` gates on 1 - P(none) instead, then takes the most probable other class."""
        if "any" in self.thresholds:
            if 1.0 - probs.get("none", 0.0) < self.thresholds["any"]:
                return "none"
            return max((p, c) for c, p in probs.items() if c != "none")[1]
        ranked = sorted((p, c) for c, p in probs.items() if c != "none")
        for p, c in reversed(ranked):
            if p >= self.thresholds.get(c, 1.01):
                return c
        return "none"


@dataclass(frozen=True)
class Prediction:
    unit: str
    role: str
    unit_probs: dict[str, float]
    role_probs: dict[str, float]

    @property
    def unit_confidence(self) -> float:
        return self.unit_probs.get(self.unit, 0.0)


class SentenceModel:
    def __init__(self, heads: dict[str, Head], meta: dict) -> None:
        self.heads = heads
        self.meta = meta

    @classmethod
    def from_json(cls, data: dict) -> SentenceModel:
        if data.get("format") != FORMAT:
            raise ModelDataError(f"model format {data.get('format')!r}, expected {FORMAT}")
        heads = {}
        for task in TASKS:
            spec = data[task]
            classes = tuple(spec["classes"])
            weights = {name: tuple(float(w) for w in row) for name, row in spec["weights"].items()}
            if any(len(row) != len(classes) for row in weights.values()):
                raise ModelDataError(f"{task}: a weight row does not match the classes")
            heads[task] = Head(classes, tuple(float(b) for b in spec["bias"]), weights,
                               {k: float(v) for k, v in spec["thresholds"].items()})
        return cls(heads, data.get("meta", {}))

    @classmethod
    def load(cls, folder: Path = DATA_DIR) -> SentenceModel:
        path = folder / MODEL_FILE
        try:
            raw = path.read_bytes()
            manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelDataError(f"cannot read {path}: {exc}") from exc
        expected = (manifest.get(MODEL_FILE) or {}).get("sha256")
        if hashlib.sha256(raw).hexdigest() != expected:
            raise ModelDataError(f"{path} does not match its sha256 in {MANIFEST_FILE}")
        try:
            return cls.from_json(json.loads(raw))
        except (ValueError, KeyError, TypeError) as exc:
            raise ModelDataError(f"{path} is not a sentence model: {exc}") from exc

    def predict(self, features) -> Prediction:
        unit_probs = self.heads["unit"].probabilities(features)
        role_probs = self.heads["role"].probabilities(features)
        return Prediction(self.heads["unit"].choose(unit_probs),
                          self.heads["role"].choose(role_probs), unit_probs, role_probs)


_lock = threading.Lock()
_loaded: list[SentenceModel | None] = []  # empty: not tried yet


def default_model() -> SentenceModel | None:
    """The shipped model, loaded once per process; None (said once) when its data is unusable."""
    with _lock:
        if not _loaded:
            try:
                _loaded.append(SentenceModel.load(DATA_DIR))
            except ModelDataError as exc:
                log.warning("sentence classifier unavailable, using the rules instead: %s", exc)
                _loaded.append(None)
        return _loaded[0]
