"""What a change says it does on purpose: a removal its message names ("remove requests.async",
"remove app.locals.use and res.locals.use").

A fix's lines taken out by a change that says it removes the feature the fix is about are the
removal the author meant, not a fix undone: ``rewrites-fix`` goes ``REMOVAL_SHIFT`` lower there
(review10: on review9's tune replays, 2 of the 6 ``rewrites-fix`` noise comments at the gate were
such removals, and none of the useful ones had such a message).
"""

from __future__ import annotations

import re

from whylens.models import Symbol

REMOVAL_SHIFT = 0.15
_REMOVAL = re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?:remove[sd]?|removing|delete[sd]?|deleting|drop(?:s|ped)?|dropping)"
                      r"[ \t]+(.+)$", re.I | re.M)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
# Words a removal names that say nothing of which feature goes ("remove unused code from tests").
_VAGUE = frozenset({
    "also", "call", "calls", "check", "checks", "code", "comment", "comments", "dead", "debug",
    "dependency", "dependencies", "deprecated", "docs", "duplicate", "extra", "file", "files", "from",
    "function", "import", "imports", "line", "lines", "method", "methods", "needless", "option",
    "options", "print", "redundant", "some", "support", "test", "tests", "that", "their", "them",
    "there", "this", "unnecessary", "unused", "useless", "warning", "warnings", "when", "with",
})


def removed_names(message: str) -> set[str]:
    """The words (lower case, four letters or more) of what the message's lines say they remove."""
    return {w.lower() for m in _REMOVAL.finditer(message or "") for w in _WORD.findall(m.group(1))} - _VAGUE


def says_removed(message: str, path: str, symbol: Symbol | str | None, subject: str) -> bool:
    """The message says it removes something the fix is about: a name of the file (its stem),
    of the symbol, or of the fix's subject."""
    names = removed_names(message)
    if not names:
        return False
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    name = symbol.name if isinstance(symbol, Symbol) else symbol or ""
    about = {w.lower() for w in _WORD.findall(f"{stem} {name} {subject}")}
    return bool(names & about)
