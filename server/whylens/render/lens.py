"""Code lens titles: "why: 2 decisions · 1 pitfall · changed 7×"."""

from __future__ import annotations


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def lens_title(counts) -> str:
    """``counts``: (records, pitfalls, changes) as ``IndexReader.knowledge_counts`` gives them,
    or a dict with those keys. Zero parts are left out."""
    if isinstance(counts, dict):
        records, pitfalls, changes = (int(counts.get(k) or 0) for k in ("records", "pitfalls", "changes"))
    else:
        records, pitfalls, changes = (int(x or 0) for x in tuple(counts)[:3])
    parts = []
    if records:
        parts.append(_plural(records, "decision"))
    if pitfalls:
        parts.append(_plural(pitfalls, "pitfall"))
    if changes:
        parts.append(f"changed {changes}×")
    return "why: " + (" · ".join(parts) if parts else "no recorded history")
