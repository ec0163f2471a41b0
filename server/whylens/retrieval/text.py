"""Small text helpers shared by why, pitfalls and review: words, identifiers, ages, paths."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

# Words too common in error text and commit prose to say anything about a failure.
STOP_WORDS = frozenset(
    """
    a about after again all also an and any are as at be been before being but by can cannot
    could did do does doing done for from had has have having he her here his how i if in into
    is it its itself just like may me more most must my no nor not now of off on once only or
    other our out over own same she should so some such than that the their them then there these
    they this those through to too under until up very was we were what when where which while
    who why will with would you your
    error errors exception exceptions failed fail fails failure line lines file files call called
    calls most recent last traceback thread main value values type object none null true false
    undefined unknown use used using get got set new old make made fix fixed fixes add added
    change changed changes update updated remove removed instead now see
    """.split()
)

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]{2,}")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_NOT_CODE = frozenset({"e.g", "i.e", "etc", "vs"})
_FILE_ENDINGS = frozenset("py js ts tsx jsx go rs java kt kts rb php c h cc cpp cs md rst txt json yml yaml "
                          "toml cfg ini com org net io html".split())
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_identifier(name: str) -> list[str]:
    """``getHTTPResponse_code`` → ``["get", "http", "response", "code"]``."""
    parts: list[str] = []
    for chunk in re.split(r"[._\W]+", name):
        parts.extend(p.lower() for p in _CAMEL.findall(chunk))
    return parts


def content_words(text: str, stop: frozenset[str] = STOP_WORDS) -> set[str]:
    """Lower-cased words of three letters or more, identifiers split, ``stop`` words removed."""
    words: set[str] = set()
    for match in _WORD.finditer(text or ""):
        token = match.group(0)
        words.add(token.lower())
        words.update(split_identifier(token))
    return {w for w in words if len(w) >= 3 and w not in stop and not w.isdigit()}


def identifiers(text: str, distinct_only: bool = False) -> set[str]:
    """Code-looking tokens: dotted names, snake_case, camelCase, calls; lower-cased.

    ``distinct_only``: only names that point at one thing (see ``distinctive``)."""
    found: set[str] = set()
    for match in _IDENT.finditer(text or ""):
        token = match.group(0)
        looks_like_code = (
            "." in token or "_" in token
            or re.search(r"[a-z][A-Z]", token) is not None
            or text[match.end(): match.end() + 1] == "("
        )
        lowered = token.lower()
        if looks_like_code and len(token) >= 3 and lowered not in _NOT_CODE \
                and lowered.rsplit(".", 1)[-1] not in _FILE_ENDINGS \
                and (not distinct_only or distinctive(token)):
            found.add(lowered)
    return found


def overlap(query: set[str], target: set[str]) -> float:
    """Share of ``target`` found in ``query`` (0 when target is empty)."""
    if not target:
        return 0.0
    return len(query & target) / len(target)


def relative_age(timestamp: int, now: float) -> str:
    """``3 days ago``, ``2 months ago``; coarse on purpose."""
    seconds = max(0, int(now) - int(timestamp))
    days = seconds // 86_400
    if days < 1:
        return "under a day ago"
    for size, unit in ((365, "year"), (30, "month"), (7, "week"), (1, "day")):
        if days >= size:
            count = days // size
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return "today"  # pragma: no cover


def path_suffix_match(frame_path: str, repo_path: str) -> bool:
    """True when ``repo_path`` (repo-relative) is a trailing part of ``frame_path``.

    Stack traces carry absolute or build-relative paths; the index keeps repo-relative ones.
    """
    frame = PurePosixPath(frame_path.replace("\\", "/")).parts
    repo = PurePosixPath(repo_path).parts
    return bool(repo) and len(frame) >= len(repo) and tuple(frame[-len(repo):]) == tuple(repo)


def identifier_hits(named: set[str], used: set[str]) -> list[str]:
    """Identifiers of ``named`` that ``used`` holds, up to a dotted prefix:
    ``pool.get`` is used by ``self.pool.get``; a bare ``get`` never matches a longer name."""
    hits = []
    for name in named:
        if name in used or ("." in name and any(u.endswith("." + name) for u in used)):
            hits.append(name)
        elif any("." in u and name.endswith("." + u) for u in used):
            hits.append(name)
    return sorted(hits)


_CODE_SPAN = re.compile(r"`([^`\n]{1,200})`")


def code_span_identifiers(text: str) -> set[str]:
    """Identifiers written inside inline code spans (`pool.get()`): prose naming code on purpose."""
    found: set[str] = set()
    for span in _CODE_SPAN.findall(text or ""):
        found |= identifiers(span, distinct_only=True)
    return found


# Words every piece of code has; they say nothing about what a change is about.
CODE_WORDS = frozenset("""
    self cls def class return returns import from elif else raise pass lambda async await yield
    function const var let this super args kwargs none true false null nil int str dict list
    tuple bool bytes string object len isinstance print assert try except finally with while
    break continue global nonlocal public private static void new func package struct impl
""".split())
_FAILURE_NAME = re.compile(r"(error|exception|warning|timeout|fault)$")


def distinctive(identifier: str) -> bool:
    """A name that points at one thing: dotted, snake_case or camelCase, and not a failure class
    (code mentioning ``ValueError`` is not reintroducing a failure)."""
    bare = identifier.strip("_")
    return ("." in bare or "_" in bare or re.search(r"[a-z][A-Z]", identifier) is not None) \
        and not _FAILURE_NAME.search(identifier.lower())
