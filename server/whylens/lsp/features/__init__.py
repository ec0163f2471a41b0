"""Feature modules, registered in this order; each has ``register(server)``.

``whylens serve --exclude NAME`` leaves one out (tests exclude ``indexing`` to run against a
prepared index). Order matters only for readability of the capabilities; no module depends on
another being loaded.
"""

from __future__ import annotations

import importlib
from types import ModuleType

FEATURES = (
    "indexing",  # child-process indexing, progress, commit watching, reindex command
    "hover",  # textDocument/hover why-cards
    "code_lens",  # textDocument/codeLens + codeLens/resolve, explainSymbol command
    "pitfalls",  # whylens/errorsChanged → known-pitfall diagnostics; whylens/explainError
    "requests",  # whylens/search, whylens/why, whylens/prSuggestions
)


def load(name: str) -> ModuleType:
    return importlib.import_module(f"whylens.lsp.features.{name}")
