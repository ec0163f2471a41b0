"""Which of the symbols a commit changed one sentence of its message is about.

A commit that changed several definitions often explains one of them in a sentence ("the
32-bit ``size_t`` bound in ``jvp_string_append``"); shown on every definition the commit changed,
that sentence is noise on all but one. A sentence is *tied* to the changed symbols it names:
- the symbol's name (``confidence.names_symbol``: its qualified tail, an identifier-shaped bare
  name, a call ``name(``), or whole parts of its bare name spelled as code (``string_append``
  of ``jvp_string_append``; single English words such as "content" of
  ``prepare_content_length`` do not count: they tied sentences to the wrong function on tune
  cards);
- a code-shaped name (``size_t``, ``maxRedirects``, ``NULL``, ``req.query``, ``parse()``) that
  appears in that symbol's changed lines (``SymbolEvent.names``, ``symbols.mentions``).
A sentence naming such a thing for some, not all, of the symbols is tied to those
(``tied_symbols``); a card of another symbol never shows it (``confidence.never_shown``). One
that names none of them is tied to none, ``()``: every changed symbol may show it, as the card
gate decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from whylens.knowledge.confidence import names_symbol
from whylens.knowledge.features import path_kind
from whylens.models import FORMATTING_KIND, SymbolEvent

_TOKEN = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)*(\()?")
_SHAPED = re.compile(r"_|[A-Za-z]\d|[a-z][A-Z]|\.|::|->|#|^[A-Z]{3,}$")
_PIECE = re.compile(r"[A-Za-z_$][\w$]*")
# A symbol its commit added or deleted takes no sentence from the others: "This adds a SkipClean
# option so that ..." explains the function that reads the option as much as the new one.
_NO_TIES = ("added", "deleted", FORMATTING_KIND)


def names_by_symbol(events: Iterable[SymbolEvent]) -> dict[str, frozenset[str]]:
    """symbol -> the identifiers of its changed lines, over ``events`` (deletions left out;
    so are tests: a test named after what it checks, ``test_invalid_ssl_certificate_files``,
    would take the sentence from the code it tests)."""
    out: dict[str, frozenset[str]] = {}
    for event in events:
        if event.kind not in _NO_TIES and path_kind(event.path) != "tests":
            out[event.symbol] = out.get(event.symbol, frozenset()) | event.names
    return out


def tied_symbols(text: str, names: Mapping[str, Iterable[str]]) -> tuple[str, ...]:
    """The symbols of ``names`` (symbol -> its changed lines' identifiers) that ``text`` is
    tied to; () when it names none of them, or all of them, or there is only one."""
    if len(names) < 2:
        return ()
    code = code_words(text)
    owners: dict[str, list[str]] = {}
    for symbol, changed in names.items():
        for word in code.intersection(changed):
            owners.setdefault(word, []).append(symbol)
    # a name of one symbol's changed lines only (one that several share says no more than
    # the commit does)
    distinct = {found[0] for found in owners.values() if len(found) == 1}
    tied = {symbol for symbol in names
            if symbol in distinct or names_symbol(text, symbol)
            or any(_part_of(word, symbol) for word in code if "_" in word)}
    # a type named is tied with its members ("routeRegexp" and "(*routeRegexp).Match")
    tied |= {symbol for symbol in names if _qualifiers(symbol) & {_bare(t) for t in tied}}
    return tuple(s for s in names if s in tied) if 0 < len(tied) < len(names) else ()


def code_words(text: str) -> set[str]:
    """The identifiers prose spells as code: with an underscore, a digit, an inner capital, in
    capitals (``NULL``, ``EINTR``), a member access or a call (each piece of ``a.b`` and the
    name of ``f(``)."""
    out: set[str] = set()
    for match in _TOKEN.finditer(text):
        token = match.group().rstrip("(")
        if match.group(1) or _SHAPED.search(token):
            out.update(piece for piece in _PIECE.findall(token) if len(piece) >= 3)
    return out


def _part_of(word: str, symbol: str) -> bool:
    """``string_append`` names ``jvp_string_append``: whole parts of its bare name."""
    bare = _bare(symbol)
    return bare != word and re.search(rf"(?:^|_){re.escape(word)}(?:_|$)", bare) is not None


def _bare(symbol: str) -> str:
    return _names(symbol)[-1]


def _qualifiers(symbol: str) -> set[str]:
    return set(_names(symbol)[:-1])


def _names(symbol: str) -> list[str]:
    return [p for p in re.split(r"[.:]+", re.sub(r"[()*&]", "", symbol)) if p] or [symbol]
