"""Stable unit ids: the same knowledge gets the same id in every run and on every machine."""

from __future__ import annotations

import hashlib
import re

_SPACES = re.compile(r"\s+")
# Punctuation (and symbols) trimmed from both ends; inner punctuation is meaningful (2.31.0).
_EDGE_PUNCT = "\"'`.,;:!?()[]{}<>«»“”‘’*_-–—…/\\|#~ "


def normalise(content: str) -> str:
    """Lowercase, collapse whitespace, strip punctuation at both ends."""
    return _SPACES.sub(" ", content.lower()).strip(_EDGE_PUNCT)


def unit_id(type: str, content: str) -> str:
    """First 12 hex of sha1(``f"{type}::{normalised content}"``)."""
    key = f"{type}::{normalise(content)}"
    return hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]
