"""The token lexer formatting checks share, and a fast exact comparison of two whole files.

``lexer(language)`` is one regex whose named groups split source into comments, strings, line
continuations, newlines, blanks and other tokens (``formatting.raw_tokens`` walks it).

``raw_verdict(language, old, new)`` compares two versions of a file that differ in a few places
(a commit's old and new blob) without lexing both whole: the lexing of their common head is the
same in both, and once the two lexings meet at the same place of their common tail they stay
the same, so only the stretch between is lexed in both. Where the head's lexing must resume is
found without lexing it when the lexer's only constructs spanning lines are block comments and
backslash-continued strings (C, C++, Java, C#, PHP ...): the last line start before the edit
that no block comment and no continued line may cover. Otherwise the head is lexed once.
"""

from __future__ import annotations

import re

from whylens.symbols.hunks import common_length

HASH_COMMENTS = frozenset({"python", "ruby"})
BOTH_COMMENTS = frozenset({"php"})
BACKTICK = frozenset({"javascript", "typescript", "tsx", "go"})
QUOTE_EQUIVALENT = frozenset({"python", "javascript", "typescript", "tsx", "php", "ruby"})
# Where raw tokens that differ may still normalise alike: quote styles, and Kotlin, whose
# normalising rewrites expression bodies (``formatting.normalise``).
_NORMALISED = QUOTE_EQUIVALENT | {"kotlin"}
# Lexers with more constructs spanning lines than block comments and continued strings.
_MULTILINE = frozenset({"python", "ruby", "rust"}) | BACKTICK
_MARGIN = 16  # bytes a lexer match may read past its end (rust raw strings aside)
_DROPPABLE = frozenset({b",", b";", b"(", b")"})  # all the tokens ``normalise`` may drop


_LEXERS: dict[str, re.Pattern[bytes]] = {}


def lexer(language: str) -> re.Pattern[bytes]:
    """One regex whose named groups are: c comment, s string, k continuation, n newline,
    w blank, t any other token."""
    found = _LEXERS.get(language)
    if found is not None:
        return found
    comments = []
    if language in HASH_COMMENTS or language in BOTH_COMMENTS:
        comments.append(rb"\#[^\n]*")
    if language == "ruby":
        comments.append(rb"^=begin\b.*?(?:^=end\b[^\n]*|\Z)")
    if language not in HASH_COMMENTS:
        comments += [rb"//[^\n]*", rb"/\*.*?(?:\*/|\Z)"]
    strings = []
    if language == "python":
        prefix = rb"(?:[rRbBuUfF]{1,2})?"
        strings += [prefix + rb"'''(?:\\.|[^\\])*?(?:'''|\Z)",
                    prefix + rb'"""(?:\\.|[^\\])*?(?:"""|\Z)']
    elif language == "rust":
        # raw strings: r"…", r#"…"# (a named group: inside the whole pattern a number would be
        # another group's, and the string would run to the end of the file)
        strings.append(rb'b?r(?P<hashes>\#*)".*?(?:"(?P=hashes)|\Z)')
        strings.append(rb"b?'(?:\\.|[^\\'\n])'")  # char literals; a lone ' is a lifetime
    if language in BACKTICK:
        strings.append(rb"`(?:\\.|[^\\`])*(?:`|\Z)")
    single = rb"'(?:\\.|[^\\'\n])*(?:'|(?=\n)|\Z)"
    double = rb'"(?:\\.|[^\\"\n])*(?:"|(?=\n)|\Z)'
    if language == "python":
        single, double = rb"(?:[rRbBuUfF]{1,2})?" + single, rb"(?:[rRbBuUfF]{1,2})?" + double
    if language != "rust":
        strings.append(single)
    strings.append(double)
    token = (rb"[A-Za-z_$\x80-\xff][\w$\x80-\xff]*|\d[\w.]*|\.\d\w*|->|=>|::|\*\*=?|//=?|"
             rb">>=?|<<=?|[-+*/%&|^@<>!=:]=|\.\.\.|\S")
    pattern = re.compile(
        b"(?P<c>" + b"|".join(comments) + b")|(?P<s>" + b"|".join(strings) + b")"
        + rb"|(?P<k>\\\r?\n)|(?P<n>\r?\n)|(?P<w>[ \t\f\r]+)|(?P<t>" + token + b")",
        re.DOTALL | re.MULTILINE)
    _LEXERS[language] = pattern
    return pattern


def raw_verdict(language: str, old: bytes, new: bytes) -> bool | None:
    """Whether two texts have the same normalised ``formatting.tokens``, when their raw
    tokens (strings as written) tell: True when those are the same; False when they differ
    even without the commas, semicolons and parentheses normalising may drop (not where
    ``_NORMALISED`` holds the language); None when normalising decides (the caller compares
    whole token lists then). Not for Python, whose logical lines carry
    indentation tokens, nor Rust (a raw string's ``#`` run)."""
    if language in ("python", "rust"):
        return None
    pattern = lexer(language)
    size = min(len(old), len(new))
    head = common_length(old, new, size, lambda text, n: text[:n])
    tail = common_length(old, new, size - head, lambda text, n: text[len(text) - n:])
    start = _resume_at(language, pattern, old, head - _MARGIN)
    ours, theirs = _tokens_until_met(pattern, old, new, start, tail)
    if ours == theirs:
        return True
    if language not in _NORMALISED and [t for t in ours if t not in _DROPPABLE] != [
            t for t in theirs if t not in _DROPPABLE]:
        return False
    return None


def _resume_at(language: str, pattern: re.Pattern[bytes], text: bytes, limit: int) -> int:
    """A position at most ``limit`` where a lexing of ``text`` from its start begins a match:
    every match before ends at or before ``limit`` (so it reads only the common head)."""
    if limit <= 0:
        return 0
    if language not in _MULTILINE:
        return _line_start_outside(text, limit)
    start = 0
    for match in pattern.finditer(text, 0, len(text)):
        if match.end() > limit:
            break
        start = match.end()
    return start


def _line_start_outside(text: bytes, limit: int) -> int:
    """The last line start at most ``limit`` that no block comment and no string continued
    by a backslash covers (0 when there is none): the newline before it ends no escaped line
    (nor follows a carriage return), and after the last ``/*`` before it a ``*/`` closes."""
    while limit > 0:
        line_start = text.rfind(b"\n", 0, limit) + 1
        if line_start <= 0:
            return 0
        if line_start >= 2 and text[line_start - 2:line_start - 1] in (b"\\", b"\r"):
            limit = line_start - 1
            continue
        opened = text.rfind(b"/*", 0, line_start)
        if opened >= 0 and text.find(b"*/", opened + 2, line_start) < 0:
            limit = opened  # maybe inside that comment: resume before it opened
            continue
        return line_start
    return 0


def _tokens_until_met(pattern: re.Pattern[bytes], old: bytes, new: bytes, start: int,
                      tail: int) -> tuple[list[bytes], list[bytes]]:
    """The string and other tokens each text's lexing from ``start`` yields before the two
    lexings reach a match at the same distance from their ends inside the common ``tail``
    (from there on the texts and so their lexings are the same), or to their ends."""
    texts = (old, new)
    scans = [pattern.finditer(text, start, len(text)) for text in texts]
    found: list[list[bytes]] = [[], []]
    current = [next(scan, None) for scan in scans]
    while current[0] is not None or current[1] is not None:
        left = [len(text) - m.start() if m is not None else -1
                for text, m in zip(texts, current)]
        if left[0] == left[1] and left[0] < tail:
            break  # same place in the same tail, and its previous byte too (``^``)
        side = 0 if left[0] >= left[1] else 1
        match = current[side]
        assert match is not None
        if match.lastgroup in ("s", "t"):
            found[side].append(match.group())
        current[side] = next(scans[side], None)
    return found[0], found[1]
