"""A symbol's Story → the hover card (at most ``MAX_CARD_CHARS``) and the Story as data.

Every line carries its provenance: commit / PR / issue links when the web base is known (from the
index meta), plain short shas and ``#N`` otherwise. Text from the history goes through
``markup.inline`` / ``markup.code``: it shows as text, never as markup. The line helpers here are
shared with the rationale view (``render.rationale``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from whylens.history.links import WebLinks
from whylens.models import HistoryEntry, LineChange, Record, Reversal, Story, Unit
from whylens.markup import code, inline
from whylens.retrieval.citations import (
    change_ref,
    change_url,
    item_url,
    record_ref,
)
from whylens.retrieval.said_once import repeats, said_once, summary_parts, title_only

MAX_CARD_CHARS = 1200
CARD_RECORDS = 2
CARD_UNITS = 3
CARD_CHANGES = 3
CARD_REVERSALS = 1
UNIT_LABELS = {"pattern": "Pitfall", "fact": "Constraint", "skill": "Fix"}
LABEL = "distilled, unreviewed"


def title(story: Story) -> str:
    return code(story.symbol.name) if story.symbol else code(story.path)


def day(date: str) -> str:
    return inline((date or "")[:10])


def outcome(story: Story, record: Record) -> str:
    return dict(story.outcomes).get(record.id, "landed")


def record_summary(record: Record, limit: int, units: Sequence[Unit] = (),
                   below: Sequence[Unit] = ()) -> str:
    """"problem → decision; rejected: …" with nothing said twice (the title only when the
    record says nothing else). A part that one of ``units`` says carries its label ("Pitfall:"):
    the card shows the unit there, once, and labels it as its counts do. A field that one of
    ``below`` (the units shown under it, cut at ``limit``) reads is left to that unit."""
    shown = [(u.content or u.title)[:limit] for u in below]
    head, decision, rejected = summary_parts(
        record, lambda text: repeats(_visible(text, limit), shown))
    text = _labelled(head, units) + inline(head, limit)
    if decision:
        text += f" → {_labelled(decision, units)}{inline(decision, limit)}"
    if rejected:
        text += f"; rejected: {inline(rejected, limit // 2)}"
    return text


def _visible(text: str, limit: int) -> str:
    """What a line cut at ``limit`` shows of ``text``, whole words only."""
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


def _labelled(part: str, units: Sequence[Unit]) -> str:
    """"**Pitfall:** " when a pitfall or constraint of ``units`` says nothing ``part`` does not."""
    for unit in units:
        if repeats(unit.content or unit.title, [part]):
            return f"**{UNIT_LABELS[unit.type]}:** "
    return ""


def unit_text(unit: Unit, links: WebLinks | None, limit: int) -> str:
    return f"{inline(unit.content or unit.title, limit)} ({change_ref(unit.commit, unit.pr, links)})"


def reversal_line(reversal: Reversal, links: WebLinks | None, limit: int) -> str:
    """"<what it said> — reverted in #12 (`abc1234`): <why>"."""
    item = reversal.item
    said = record_summary(item, limit) if isinstance(item, Record) else inline(
        item.content or item.title, limit)
    where = ""
    if reversal.how == "reverted" and reversal.by:
        where = f" in {change_ref(reversal.by, reversal.by_pr, links)}"
    elif reversal.how == "superseded" and reversal.by:
        where = f" by {code(reversal.by)}"
    told = [*summary_parts(item), item.title] if isinstance(item, Record) else [
        item.content or item.title]
    reason = f": {inline(reversal.reason, limit)}" if reversal.reason and not repeats(
        reversal.reason, told) else ""
    return f"{said} — *{reversal.how}{where}*{reason}"


def line_text(change: LineChange, links: WebLinks | None, limit: int) -> str:
    """"Line 42 last changed in #12 (`abc1234`), 2023-01-02, Ada: subject — why"."""
    e = change.entry
    text = (f"**Line {change.line}** last changed in {change_ref(e.commit, e.pr, links)}, "
            f"{day(e.date)}, {inline(e.author)}: {inline(e.subject, limit)}")
    why = line_rationale(change)
    return text + (f" — {inline(why, limit)}" if why else "")


def line_rationale(change: LineChange) -> str:
    """What the history says of the commit behind a line: its knowledge, else its record."""
    for unit in sorted(change.units, key=lambda u: -u.weight):
        if not repeats(unit.content, [change.entry.subject]):
            return unit.content
    record = change.record
    if record is not None:
        for claim in (*record.cause, *([record.problem] if record.problem else []), *record.decision):
            if not repeats(claim.text, [change.entry.subject]):
                return claim.text
    return ""


def _summary_line(story: Story, links: WebLinks | None) -> str:
    line = f"**{title(story)}** — {inline(story.summary) or 'no recorded history'}"
    if story.changes:
        newest = story.changes[0]
        line += f" ({change_ref(newest.commit, newest.pr, links)})"
    return line


def _change_line(entry: HistoryEntry, links: WebLinks | None, limit: int) -> str:
    return (f"- {inline(entry.subject, limit)} — {change_ref(entry.commit, entry.pr, links)}"
            f" · {day(entry.date)}")


def _typed(story: Story) -> list[Unit]:
    """Pitfalls, then constraints (fixes live in the full view)."""
    return [u for kind in ("pattern", "fact") for u in story.units if u.type == kind]


def _card_units(story: Story, records: Iterable[Record]) -> list[Unit]:
    """The card's pitfalls and constraints, each unless the decisions shown above (which then
    label it: ``record_summary``) or another of them already say it."""
    units = _typed(story)
    said = [text for r in records for text in summary_parts(r) if text]
    keep = said_once([u.content or u.title for u in units], said)
    return [u for u, kept in zip(units, keep) if kept]


def _card_records(story: Story) -> list[Record]:
    """The decisions a hover lists: not one that would show only its title, when a pitfall or
    constraint of the card says that title (the unit, typed, cites the same change)."""
    told = [u.content or u.title for u in _typed(story)]
    return [r for r in story.records if not (title_only(r) and repeats(r.title, told))]


def _card(story: Story, links: WebLinks | None, limit: int, counts: list[int]) -> str:
    n_records, n_units, n_changes, n_reversals = counts
    lines = [_summary_line(story, links)]
    if story.line_change is not None:
        lines += ["", line_text(story.line_change, links, limit)]
    records = _card_records(story)[:n_records]
    units = _card_units(story, records)[:n_units]
    if records:
        typed = _typed(story)
        lines += ["", f"**Decisions** ({LABEL})"]
        lines += [f"- {record_ref(r, links)} {record_summary(r, limit, typed, units)}"
                  f" — *{outcome(story, r)}*"
                  for r in records]
    if units:
        lines += ["", "**Pitfalls & constraints**"]
        lines += [f"- **{UNIT_LABELS[u.type]}:** {unit_text(u, links, limit)}" for u in units]
    if story.reversals and n_reversals:
        lines += ["", "**Reverted**"]
        lines += [f"- {reversal_line(r, links, limit // 2)}" for r in story.reversals[:n_reversals]]
    if story.changes and n_changes:
        lines += ["", "**Recent changes**"]
        lines += [_change_line(e, links, limit) for e in story.changes[:n_changes]]
    return "\n".join(lines)


def hover_card(story: Story, links: WebLinks | None = None, max_chars: int = MAX_CARD_CHARS) -> str | None:
    """The hover markdown, at most ``max_chars``; None when nothing is known (no empty card)."""
    if not story.known:
        return None
    counts = [CARD_RECORDS, CARD_UNITS, CARD_CHANGES, CARD_REVERSALS]
    # Shorten lines first, then drop the least explanatory items, until the card fits.
    for limit in (140, 100, 70, 50):
        text = _card(story, links, limit, counts)
        if len(text) <= max_chars:
            return text
    for index in (2, 2, 2, 1, 1, 0, 3, 1, 0):  # changes, then units, records, what was reverted
        counts[index] = max(0, counts[index] - 1)
        text = _card(story, links, 50, counts)
        if len(text) <= max_chars:
            return text
    bare = _summary_line(story, links)
    if story.line_change is not None:  # the line asked about outlives everything else
        with_line = f"{bare}\n\n{line_text(story.line_change, links, 50)}"
        if len(with_line) <= max_chars:
            return with_line
    return bare[:max_chars]


def story_json(story: Story, links: WebLinks | None = None) -> dict[str, Any]:
    """The Story as plain data (``why --json``, ``whylens/why``, the MCP ``why`` tool)."""
    sym = story.symbol
    change = story.line_change
    return {
        "path": story.path,
        "symbol": None if sym is None else {
            "name": sym.name, "kind": sym.kind, "start_line": sym.start_line,
            "end_line": sym.end_line,
        },
        "known": story.known,
        "summary": story.summary,
        "counts": story.counts._asdict(),
        "history": [_entry_json(e, links) for e in story.history],
        "units": [_unit_json(u, links) for u in story.units],
        "records": [{
            "id": r.id, "kind": r.kind, "number": r.number, "title": r.title,
            "problem": r.problem.text if r.problem else None,
            "cause": [c.text for c in r.cause],
            "decision": [c.text for c in r.decision], "rejected": [c.text for c in r.rejected],
            "outcome": dict(story.outcomes).get(r.id), "fixing_commits": list(r.fixing_commits),
            "label": r.label, "url": item_url(r, links),
        } for r in story.records],
        "notes": [_unit_json(u, links) for u in story.notes],
        "reversals": [{
            "how": rv.how, "by": rv.by, "by_pr": rv.by_pr, "reason": rv.reason,
            "item": _unit_json(rv.item, links) if isinstance(rv.item, Unit) else {
                "id": rv.item.id, "title": rv.item.title, "url": item_url(rv.item, links)},
        } for rv in story.reversals],
        "line": None if change is None else {
            "line": change.line, "change": _entry_json(change.entry, links),
            "rationale": line_rationale(change) or None,
        },
    }


def _entry_json(e: HistoryEntry, links: WebLinks | None) -> dict[str, Any]:
    return {
        "commit": e.commit, "date": e.date, "timestamp": e.timestamp, "author": e.author,
        "subject": e.subject, "pr": e.pr, "kind": e.kind, "path": e.path, "symbol": e.symbol,
        "previous": e.previous, "url": change_url(e.commit, e.pr, links),
    }


def _unit_json(u: Unit, links: WebLinks | None) -> dict[str, Any]:
    return {
        "id": u.id, "type": u.type, "title": u.title, "content": u.content,
        "commit": u.commit, "author": u.author, "date": u.date, "pr": u.pr,
        "url": item_url(u, links),
    }
