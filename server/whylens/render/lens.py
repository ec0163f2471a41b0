"""Code lens titles: "why: 2 decisions · 1 pitfall · changed 7×"."""

from __future__ import annotations

from whylens.models import KnowledgeCounts


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def lens_title(counts: KnowledgeCounts) -> str:
    """The title of a symbol's lens; zero parts are left out."""
    records, pitfalls, changes = counts
    parts = []
    if records:
        parts.append(_plural(records, "decision"))
    if pitfalls:
        parts.append(_plural(pitfalls, "pitfall"))
    if changes:
        parts.append(f"changed {changes}×")
    return "why: " + (" · ".join(parts) if parts else "no recorded history")
