"""The changed lines of a file change, read from its ``-U0`` patch text, and the definitions a
hunk's removed or added lines may hold.

``HunkText`` pairs one hunk's line numbers with its removed ("-") and added ("+") lines (bytes,
newline kept, git's "\\ No newline at end of file" markers dropped). ``defined_names`` finds the
names that definition headers in some lines introduce, with one permissive pattern per language
family: it may find too much (then the anchorer parses the old version to be sure), but a
definition header it does not see must be rare, since the anchorer then keeps tracking the
enclosing symbol's lines instead.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_left
from collections import Counter, OrderedDict
from dataclasses import dataclass

from whylens.models import FileChange, Hunk

DIFF_MAX_LINES = 20_000  # differing lines a diff computed here may have on either side
SMALL_GAP_CELLS = 10_000  # a gap with no unique line is diffed with difflib up to this size
_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class HunkText:
    """One hunk: ``@@ -old_start,old_count +new_start,new_count @@`` and its lines."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    removed: tuple[bytes, ...]
    added: tuple[bytes, ...]

    @property
    def removed_text(self) -> bytes:
        return b"".join(self.removed)

    @property
    def added_text(self) -> bytes:
        return b"".join(self.added)


def hunk_texts(change: FileChange) -> list[HunkText] | None:
    """The hunks of ``change`` with their lines; None when the patch text is missing or does not
    agree with the hunk headers (then the caller must read the blobs instead)."""
    patch = change.patch
    if not patch:
        return None
    starts = [m for m in _HEADER.finditer(patch)]
    if len(starts) != len(change.hunks):
        return None
    out: list[HunkText] = []
    for index, match in enumerate(starts):
        body_start = patch.find(b"\n", match.end())
        end = starts[index + 1].start() if index + 1 < len(starts) else len(patch)
        body = patch[body_start + 1:end] if body_start >= 0 else b""
        lines = body.splitlines(keepends=True)
        removed = tuple(line[1:] for line in lines if line[:1] == b"-")
        added = tuple(line[1:] for line in lines if line[:1] == b"+")
        hunk = change.hunks[index]
        if len(removed) != hunk.old_count or len(added) != hunk.new_count:
            return None
        out.append(HunkText(hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count,
                            removed, added))
    return out


def diff_hunks(old: bytes, new: bytes, hunks: tuple[Hunk, ...] = (),
               max_lines: int = DIFF_MAX_LINES) -> list[HunkText] | None:
    """Hunk texts between two versions: cut from them along ``hunks`` when given, else diffed
    here (``matched_lines``). None when the lines between the common start and the common end
    are more than ``max_lines`` on either side."""
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    if hunks:
        found = [(h.old_start, h.old_count, h.new_start, h.new_count) for h in hunks]
    else:
        head, tail = common_ends(old_lines, new_lines)
        old_mid = old_lines[head:len(old_lines) - tail]
        new_mid = new_lines[head:len(new_lines) - tail]
        if len(old_mid) > max_lines or len(new_mid) > max_lines:
            return None
        found = []
        i = j = 0
        for mi, mj in [*matched_lines(old_mid, new_mid), (len(old_mid), len(new_mid))]:
            if mi > i or mj > j:  # git's -U0 numbers: a count of 0 names the line before
                found.append((head + i + (1 if mi > i else 0), mi - i,
                              head + j + (1 if mj > j else 0), mj - j))
            i, j = mi + 1, mj + 1
    return [HunkText(os, oc, ns, nc, tuple(old_lines[os - 1:os - 1 + oc]) if oc else (),
                     tuple(new_lines[ns - 1:ns - 1 + nc]) if nc else ())
            for os, oc, ns, nc in found]


class DiffMemo:
    """``diff_hunks`` of two whole blobs (no hunks given), remembered for the pairs diffed last.

    The line blame diffs a merge's version of a file against each parent's (``merge``), and the
    anchorer diffs the same pair again when the walk reaches that parent's side and needs its
    version's state (``Anchorer._derive``): on redis/redis 724 of its 1,338 diffs, most within
    1,000 commits. Bounded by the lines the remembered hunks hold (50k: about 5 MB; 200k
    held 19 MB on redis for 1,582 hits instead of 1,483)."""

    def __init__(self, max_lines: int = 50_000) -> None:
        self._max_lines = max_lines
        self._held = 0
        self._pairs: OrderedDict[tuple[str, str], tuple[list[HunkText] | None, int]] = \
            OrderedDict()

    def diff(self, old_sha: str, new_sha: str, old: bytes, new: bytes) -> list[HunkText] | None:
        """``diff_hunks(old, new)`` of blobs ``old_sha`` and ``new_sha`` (a fresh list)."""
        key = (old_sha, new_sha)
        found = self._pairs.get(key)
        if found is not None:
            self._pairs.move_to_end(key)
            return None if found[0] is None else list(found[0])
        texts = diff_hunks(old, new)
        lines = 1 + sum(h.old_count + h.new_count for h in texts or ())
        if lines <= self._max_lines // 4:
            self._pairs[key] = (texts, lines)
            self._held += lines
            while self._held > self._max_lines:
                _, (_, dropped) = self._pairs.popitem(last=False)
                self._held -= dropped
        return None if texts is None else list(texts)


def matched_lines(a: list[bytes], b: list[bytes]) -> list[tuple[int, int]]:
    """Pairs (i, j) of equal lines a[i] == b[j] in increasing order: a patience diff (lines
    unique on both sides anchor it, the longest increasing run of them, recursively between
    anchors; ``difflib`` only for small gaps without one). Near-linear on long files, where
    difflib's ``SequenceMatcher`` is quadratic."""
    out: list[tuple[int, int]] = []
    _patience(a, b, 0, len(a), 0, len(b), out)
    return out


def _patience(a: list[bytes], b: list[bytes], alo: int, ahi: int, blo: int, bhi: int,
              out: list[tuple[int, int]]) -> None:
    while alo < ahi and blo < bhi and a[alo] == b[blo]:  # common start
        out.append((alo, blo))
        alo, blo = alo + 1, blo + 1
    tail: list[tuple[int, int]] = []
    while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:  # common end
        ahi, bhi = ahi - 1, bhi - 1
        tail.append((ahi, bhi))
    if alo < ahi and blo < bhi:
        anchors = _unique_anchors(a, b, alo, ahi, blo, bhi)
        if anchors:
            i, j = alo, blo
            for ai, bj in anchors:
                _patience(a, b, i, ai, j, bj, out)
                out.append((ai, bj))
                i, j = ai + 1, bj + 1
            _patience(a, b, i, ahi, j, bhi, out)
        elif (ahi - alo) * (bhi - blo) <= SMALL_GAP_CELLS:
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            for block in matcher.get_matching_blocks():
                out.extend((alo + block.a + k, blo + block.b + k) for k in range(block.size))
    out.extend(reversed(tail))


def _unique_anchors(a: list[bytes], b: list[bytes], alo: int, ahi: int, blo: int,
                    bhi: int) -> list[tuple[int, int]]:
    """Lines that occur once in a[alo:ahi] and once in b[blo:bhi], as the longest run whose
    positions increase on both sides (patience sorting)."""
    count_a: dict[bytes, int] = {}
    where_a: dict[bytes, int] = {}
    for i in range(alo, ahi):
        line = a[i]
        count_a[line] = count_a.get(line, 0) + 1
        where_a[line] = i
    count_b: dict[bytes, int] = {}
    where_b: dict[bytes, int] = {}
    for j in range(blo, bhi):
        line = b[j]
        if count_a.get(line) == 1:
            count_b[line] = count_b.get(line, 0) + 1
            where_b[line] = j
    pairs = sorted((where_a[line], where_b[line]) for line, n in count_b.items() if n == 1)
    if not pairs:
        return []
    tops: list[int] = []  # b index ending the best run of each length
    ends: list[int] = []  # index into pairs of that run's last pair
    back = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        position = bisect_left(tops, j)
        if position:
            back[k] = ends[position - 1]
        if position == len(tops):
            tops.append(j)
            ends.append(k)
        else:
            tops[position], ends[position] = j, k
    run = []
    k = ends[-1]
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    return run[::-1]


def common_ends(a: list[bytes], b: list[bytes]) -> tuple[int, int]:
    """(lines both lists start with, lines both end with after those), C-speed compares."""
    size = min(len(a), len(b))
    head = common_length(a, b, size, lambda lines, n: lines[:n])
    tail = common_length(a, b, size - head, lambda lines, n: lines[len(lines) - n:])
    return head, tail


def common_length(a, b, limit: int, part) -> int:
    """The largest n <= limit with part(a, n) == part(b, n), by binary search (parts equal at
    one length are equal at every shorter one)."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if part(a, middle) == part(b, middle):
            low = middle
        else:
            high = middle - 1
    return low


# -- definition headers -------------------------------------------------------------------------

_NAME = rb"([A-Za-z_$\x80-\xff][\w$\x80-\xff]*)"
_C_KEYWORDS = frozenset({b"if", b"for", b"while", b"switch", b"return", b"sizeof", b"else",
                         b"case", b"do", b"catch", b"new", b"throw", b"function", b"defined",
                         b"typeof", b"await", b"yield", b"delete", b"elif", b"not", b"and",
                         b"or", b"in", b"of", b"super", b"this", b"self", b"assert", b"print"})
_PATTERNS: dict[str, list[bytes]] = {
    "python": [rb"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+" + _NAME],
    "ruby": [rb"^[ \t]*(?:def[ \t]+(?:self\.)?|class[ \t]+|module[ \t]+)" + _NAME],
    "go": [rb"^[ \t]*func[ \t]*(?:\([^)]*\)[ \t]*)?" + _NAME,
           rb"^[ \t]*(?:type[ \t]+)?" + _NAME + rb"[ \t]+(?:struct|interface)\b"],
    "rust": [rb"\b(?:fn|struct|enum|trait|mod|union|type)[ \t]+" + _NAME,
             rb"\bmacro_rules![ \t]*" + _NAME, rb"\bimpl\b[^{;]*?" + _NAME + rb"[ \t<{]*$"],
    "php": [rb"\b(?:function|class|interface|trait|enum|namespace)[ \t]+&?" + _NAME],
    "javascript": [
        rb"\b(?:function\*?|class)[ \t]+" + _NAME,
        # a name's start only (the same matches): tried inside a 51 KB base64 source-map
        # word at every position, it took 2.4 s (axios's dist/axios.js)
        rb"(?<![\w$\x80-\xff])" + _NAME
        + rb"[ \t]*=[ \t]*(?:async[ \t]*)?(?:function\b|\([^)]*\)[ \t]*=>|[\w$]+[ \t]*=>)",
        rb"^[ \t]*(?:(?:async|static|get|set|public|private|protected|readonly|override|"
        rb"abstract|declare|export|default)[ \t]+|\*[ \t]*)*#?" + _NAME
        + rb"[ \t]*\??[ \t]*(?:<[^>]*>)?\([^;]*$",
    ],
    "c": [rb"^(?:[A-Za-z_][\w \t\*]*?[ \t\*])?" + _NAME + rb"[ \t]*\([^;]*$",
          rb"\b(?:struct|union|enum)[ \t]+" + _NAME + rb"[ \t]*\{?[ \t]*$",
          rb"^[ \t]*\}[ \t]*" + _NAME + rb"[ \t]*;"],
}
_PATTERNS["typescript"] = _PATTERNS["javascript"] + [
    rb"\b(?:interface|enum|namespace|module|type)[ \t]+" + _NAME]
_PATTERNS["tsx"] = _PATTERNS["typescript"]
_PATTERNS["cpp"] = _PATTERNS["c"] + [
    rb"\b(?:class|namespace)[ \t]+" + _NAME,
    rb"^[ \t]+(?:[\w:<>,\*&~]+[ \t]+)+[\*&]*(~?[\w:]+)[ \t]*\([^;]*$"]
_PATTERNS["java"] = [
    rb"\b(?:class|interface|enum|record|@interface)[ \t]+" + _NAME,
    rb"^[ \t]*(?:[\w<>\[\],.? @]+[ \t]+)?" + _NAME + rb"[ \t]*\([^;]*$"]
_PATTERNS["csharp"] = _PATTERNS["java"] + [rb"\b(?:struct|namespace)[ \t]+([\w.]+)"]
# No Kotlin pattern: carrying Kotlin states instead of parsing changed events on okhttp (a
# reformat's signature/body/formatting verdicts, moves), even carrying only hunks that remove no
# header line (benchmarks.md, scale7).
_COMPILED = {lang: re.compile(b"|".join(b"(?:" + p + b")" for p in patterns), re.MULTILINE)
             for lang, patterns in _PATTERNS.items()}


# A line longer than this is no header anyone wrote (minified code, a source map, generated
# whitespace): the patterns' backtracking grows with the square of a line's length (7 s on a
# 50 KB line of blanks for Java's), so such lines are not searched and the answer is "unknown".
HEADER_LINE_MAX = 1_000


def defined_names(language: str, lines: tuple[bytes, ...] | list[bytes]) -> Counter[bytes] | None:
    """How many definition headers in ``lines`` may introduce each name; None when the language
    has no pattern or a line is too long to search (then every line may hold one)."""
    pattern = _COMPILED.get(language)
    if pattern is None or any(len(line) > HEADER_LINE_MAX for line in lines):
        return None
    found: Counter[bytes] = Counter()
    text = b"".join(lines)
    if not text:
        return found
    for match in pattern.finditer(text):
        name = next((g for g in match.groups() if g), None)
        if name and name not in _C_KEYWORDS:
            found[name.rsplit(b":", 1)[-1]] += 1
    return found


def bare_name(short: str) -> bytes:
    """The identifier a definition header spells: ``Serve`` of ``(*Server).Serve``."""
    word = short.replace("(", " ").replace(")", " ").replace("*", " ").split()
    return (word[-1] if word else short).encode("utf-8", "replace")


def trimmed_range(old: bytes, new: bytes) -> list[tuple[int, int, int, int]]:
    """One range (old row, count, new row, count) covering the lines between the longest
    common start and the longest common end of two versions; [] when they are equal."""
    old_lines, new_lines = old.split(b"\n"), new.split(b"\n")
    head, tail = common_ends(old_lines, new_lines)
    if head == len(old_lines) == len(new_lines):
        return []
    return [(head, len(old_lines) - head - tail, head, len(new_lines) - head - tail)]


def hunk_rows(hunk) -> tuple[int, int, int, int]:
    """(old first row, old count, new first row, new count), rows 0-based.

    With a count of 0 git names the line *before* the insertion/deletion point, so the
    region starts at that line number taken as a 0-based row.
    """
    old_row = hunk.old_start if hunk.old_count == 0 else hunk.old_start - 1
    new_row = hunk.new_start if hunk.new_count == 0 else hunk.new_start - 1
    return max(old_row, 0), hunk.old_count, max(new_row, 0), hunk.new_count
