"""The token budget: an answer's markdown items, most useful first, cut at item boundaries.

An answer is a header line plus items, each tied to one entry of a list in the structured
content. Items are kept in the order given (most useful first) while the text fits; the first one
that does not fit ends the answer with "… N more (raise max_tokens)", and the structured content
keeps exactly the items the text shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from whylens.errors import InvalidInputError
from whylens.retrieval.citations import one_line

CHARS_PER_TOKEN = 4
DEFAULT_TOKENS = 800
MIN_TOKENS = 64  # the header and the "more" line always fit
MAX_TOKENS = 16_000  # larger requests are capped here (64,000 characters)
MORE = "… {n} more (raise max_tokens)"


def char_budget(max_tokens: int | None) -> int:
    """``max_tokens`` → characters; None is the default, below 1 an error, the rest clamped."""
    tokens = DEFAULT_TOKENS if max_tokens is None else max_tokens
    if tokens < 1:
        raise InvalidInputError(f"max_tokens must be 1 or more (got {tokens}); the default is "
                                f"{DEFAULT_TOKENS}, about {CHARS_PER_TOKEN} characters a token")
    return min(max(tokens, MIN_TOKENS), MAX_TOKENS) * CHARS_PER_TOKEN


@dataclass(frozen=True)
class Item:
    key: str  # the structured-content list it belongs to ("results", "history", …)
    index: int  # its position in that list
    text: str  # its markdown: a list item, maybe with an indented second line


@dataclass(frozen=True)
class Fitted:
    text: str
    kept: dict[str, list[int]]  # key → indices kept, ascending
    omitted: int


def fit(header: str, items: list[Item], limit: int,
        headings: dict[str, str] | None = None) -> Fitted:
    """Keep the longest prefix of ``items`` whose text fits in ``limit`` characters.

    The text shows kept items grouped by key in the order of ``headings`` (each group under its
    heading, when it has one), and in list order inside a group.
    """
    headings = headings or {}
    order = list(headings) + [i.key for i in items if i.key not in headings]
    head = one_line(header, max(limit - len(MORE) - 8, 40)) if len(header) > limit // 2 else header
    used = len(head)
    kept: list[Item] = []
    shown: set[str] = set()
    for position, item in enumerate(items):
        cost = len(item.text) + 1
        if item.key not in shown and headings.get(item.key):
            cost += len(headings[item.key]) + 2
        left = len(items) - position - 1
        reserve = len(MORE.format(n=left)) + 2 if left else 0
        if used + cost + reserve > limit:
            break
        used += cost
        kept.append(item)
        shown.add(item.key)
    lines = [head]
    for key in dict.fromkeys(order):
        group = sorted((i for i in kept if i.key == key), key=lambda i: i.index)
        if not group:
            continue
        if headings.get(key):
            lines += ["", headings[key]]
        lines += [i.text for i in group]
    omitted = len(items) - len(kept)
    if omitted:
        lines += ["", MORE.format(n=omitted)]
    by_key: dict[str, list[int]] = {}
    for item in kept:
        by_key.setdefault(item.key, []).append(item.index)
    return Fitted("\n".join(lines), {k: sorted(v) for k, v in by_key.items()}, omitted)


def trim(data: dict, fitted: Fitted, keys: tuple[str, ...]) -> dict:
    """The structured content with only the kept entries of each list in ``keys``."""
    out = dict(data)
    for key in keys:
        wanted = set(fitted.kept.get(key, ()))
        out[key] = [entry for i, entry in enumerate(data.get(key) or ()) if i in wanted]
    out["omitted"] = fitted.omitted
    return out
