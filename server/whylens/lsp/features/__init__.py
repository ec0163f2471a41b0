"""The editor features, registered in this order; each is a ``server.Feature`` subclass that
owns its state and registers thin handlers.

``whylens serve --exclude NAME`` leaves one out (tests exclude ``indexing`` to run against a
prepared index). Order matters only for readability of the capabilities; no feature depends on
another being loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from whylens.lsp.server import Feature


def feature_classes() -> tuple[type[Feature], ...]:
    """Every feature class (imported here, not at module level: they import the server)."""
    from whylens.lsp.features.code_lens import CodeLensFeature
    from whylens.lsp.features.hover import HoverFeature
    from whylens.lsp.features.indexing import IndexingFeature
    from whylens.lsp.features.pitfalls import PitfallFeature
    from whylens.lsp.features.requests import RequestsFeature

    return (
        IndexingFeature,  # child-process indexing, progress, commit watching, reindex command
        HoverFeature,  # textDocument/hover why-cards
        CodeLensFeature,  # textDocument/codeLens + codeLens/resolve, explainSymbol command
        PitfallFeature,  # whylens/errorsChanged → known-pitfall diagnostics; whylens/explainError
        RequestsFeature,  # whylens/search, whylens/why, whylens/prSuggestions
    )

