"""What changes together with a file or a symbol, as code-maat counts it (review's co-change)."""

from __future__ import annotations

from whylens.index import events
from whylens.index.analysis import clean_text
from whylens.index.events import FILE_EVENTS, HEX_SHA, batches, marks as _in
from whylens.index.lookups import path_aliases
from whylens.models import FORMATTING_KIND


def co_changes(conn, path: str, recent: int = 200, max_files: int = 30,
               symbol: str | None = None, min_together: int = 1,
               exclude: frozenset[str] = frozenset(),
               ) -> tuple[int, list[tuple[str, str | None, int, float, int]], int]:
    """What changes together with ``path`` (or with ``symbol`` in it), as code-maat counts it.

    Over the last ``recent`` commits that touched it (filtered commits and commits of more than
    ``max_files`` files left out): ``(n, [(other path, other symbol or None, together, weight,
    other's own commit count)], population)`` for partners seen together at least
    ``min_together`` times, most frequent first. ``weight`` sums 1 / (files in the commit - 1)
    over the shared commits: a pair changed alone counts 1, a pair inside a 10-file sweep 1/9.
    ``population`` is the number of unfiltered commits (the partners' base rate). File partners
    when ``symbol`` is None, symbol partners otherwise; a file's earlier names are never its own
    partners. ``exclude``: commits that do not count (a reviewed branch's own, ``review_own``):
    neither as commits that touched it nor in the population."""
    aliases = path_aliases(conn, path)
    if symbol is None:
        touched = ("SELECT DISTINCT cf.sha, c.ts FROM files f CROSS JOIN changed_files cf "
                   f"ON cf.file = f.id JOIN commits c ON c.sha = cf.sha WHERE f.path IN {_in(aliases)}")
        args: list = list(aliases)
    else:
        touched = (f"SELECT DISTINCT {HEX_SHA}, c.ts FROM {FILE_EVENTS} JOIN commits c "
                   f"ON c.sha = {HEX_SHA} WHERE s.name = ? AND f.path IN {_in(aliases)} "
                   "AND e.kind != ?")
        args = [clean_text(symbol), *aliases, FORMATTING_KIND]
    sql = (f"{touched} AND c.skip_reason IS NULL AND (SELECT COUNT(*) FROM changed_files g "
           "WHERE g.sha = c.sha) <= ? ORDER BY c.ts DESC LIMIT ?")
    limit = recent + len(exclude)
    shas = [row[0] for row in conn.execute(sql, args + [max_files, limit])
            if row[0] not in exclude][:recent]
    if not shas:
        return 0, [], 0
    (population,) = conn.execute("SELECT COUNT(*) FROM commits WHERE skip_reason IS NULL").fetchone()
    if exclude:
        population -= _unfiltered(conn, exclude)
    size = dict(conn.execute(f"SELECT sha, COUNT(*) FROM changed_files WHERE sha IN {_in(shas)} "
                             "GROUP BY sha", shas))
    rows: list[tuple[str, str | None, str]]
    if symbol is None:
        rows = conn.execute(f"SELECT DISTINCT f.path, NULL, cf.sha FROM changed_files cf CROSS JOIN "
                            f"files f ON f.id = cf.file WHERE cf.sha IN {_in(shas)}", shas).fetchall()
    else:
        rows = [(p, s, sha) for sha in shas for p, s in events.changed_symbols(conn, sha)]
    together: dict[tuple[str, str | None], list[str]] = {}
    for p, s, sha in rows:
        if (p in aliases and (symbol is None or s == symbol)):
            continue
        together.setdefault((p, s), []).append(sha)
    out = []
    for (p, s), seen in together.items():
        if len(set(seen)) < min_together:
            continue
        weight = sum(1 / max(1, size.get(sha, 2) - 1) for sha in set(seen))
        total = (events.file_change_count(conn, p) if s is None
                 else events.symbol_change_count(conn, p, s))
        out.append((p, s, len(set(seen)), round(weight, 3), total))
    out.sort(key=lambda r: (-r[2], r[0], r[1] or ""))
    return len(shas), out, population


def _unfiltered(conn, shas: frozenset[str]) -> int:
    """How many of ``shas`` are unfiltered commits of the index."""
    return sum(conn.execute("SELECT COUNT(*) FROM commits WHERE skip_reason IS NULL AND sha IN "
                            f"{_in(part)}", part).fetchone()[0] for part in batches(sorted(shas)))
