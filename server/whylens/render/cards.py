"""A symbol's Story → the hover card (short) and the rationale view (everything), as markdown.

Every line carries its provenance: commit / PR / issue links when the web base is known (from the
index meta), plain short shas and ``#N`` otherwise. Text from the history goes through
``markup.inline`` / ``markup.code``: it shows as text, never as markup.
"""

from __future__ import annotations

from whylens.markup import code, inline
from whylens.models import HistoryEntry, Record, Story, Unit
from whylens.history.links import WebLinks
from whylens.retrieval.citations import (
    change_ref,
    change_url,
    commit_ref,
    item_url,
    record_ref,
)

MAX_CARD_CHARS = 1200
CARD_RECORDS = 2
CARD_PITFALLS = 3
CARD_CHANGES = 3
UNIT_LABELS = {"pattern": "Pitfall", "fact": "Constraint", "skill": "Fix"}
LABEL = "distilled, unreviewed"


def _title(story: Story) -> str:
    return code(story.symbol.name) if story.symbol else code(story.path)


def _day(date: str) -> str:
    return inline((date or "")[:10])


def _summary_line(story: Story, links: WebLinks | None) -> str:
    line = f"**{_title(story)}** — {inline(story.summary) or 'no recorded history'}"
    if story.history:
        newest = story.history[0]
        line += f" ({change_ref(newest.commit, newest.pr, links)})"
    return line


def _outcome(story: Story, record: Record) -> str:
    return dict(story.outcomes).get(record.id, "landed")


def _record_line(story: Story, record: Record, links: WebLinks | None, limit: int) -> str:
    problem = record.problem.text if record.problem else record.title
    decision = record.decision[0].text if record.decision else ""
    text = inline(problem, limit)
    if decision and " ".join(decision.split()).lower() != " ".join(problem.split()).lower():
        text += f" → {inline(decision, limit)}"
    if record.rejected:
        text += f"; rejected: {inline(record.rejected[0].text, limit // 2)}"
    return f"- {record_ref(record, links)} {text} — *{_outcome(story, record)}*"


def _unit_line(unit: Unit, links: WebLinks | None, limit: int) -> str:
    label = UNIT_LABELS.get(unit.type, unit.type)
    return (f"- **{label}:** {inline(unit.content or unit.title, limit)} "
            f"({change_ref(unit.commit, unit.pr, links)})")


def _change_line(entry: HistoryEntry, links: WebLinks | None, limit: int) -> str:
    return (f"- {inline(entry.subject, limit)} — {change_ref(entry.commit, entry.pr, links)}"
            f" · {_day(entry.date)}")


def _card_sections(story: Story, links: WebLinks | None, limit: int,
                   counts: tuple[int, ...]) -> list[str]:
    n_records, n_units, n_changes = counts
    lines = [_summary_line(story, links)]
    if story.records and n_records:
        lines += ["", f"**Decisions** ({LABEL})"]
        lines += [_record_line(story, r, links, limit) for r in story.records[:n_records]]
    pitfalls = [u for u in story.units if u.type in ("pattern", "fact")]
    if pitfalls and n_units:
        lines += ["", "**Pitfalls & constraints**"]
        lines += [_unit_line(u, links, limit) for u in pitfalls[:n_units]]
    if story.history and n_changes:
        lines += ["", "**Recent changes**"]
        lines += [_change_line(e, links, limit) for e in story.history[:n_changes]]
    return lines


def hover_card(story: Story, links: WebLinks | None = None, max_chars: int = MAX_CARD_CHARS) -> str | None:
    """The hover markdown, at most ``max_chars``; None when nothing is known (no empty card)."""
    if not story.known:
        return None
    counts = [CARD_RECORDS, CARD_PITFALLS, CARD_CHANGES]
    # Shorten lines first, then drop the oldest items, until the card fits.
    for limit in (140, 100, 70, 50):
        text = "\n".join(_card_sections(story, links, limit, tuple(counts)))
        if len(text) <= max_chars:
            return text
    while any(counts):
        index = max(range(3), key=lambda i: (counts[i], -i))
        counts[index] -= 1
        text = "\n".join(_card_sections(story, links, 50, tuple(counts)))
        if len(text) <= max_chars:
            return text
    return _summary_line(story, links)[:max_chars]


def rationale(story: Story, links: WebLinks | None = None) -> str:
    """The whole story as markdown: summary, decision records, units by type, full history."""
    lines = [f"## {_title(story)}", "",
             f"{inline(story.summary) or 'no recorded history'} · {code(story.path)}"]
    if story.symbol and story.symbol.start_line:
        lines[-1] += (f" lines {story.symbol.start_line}–{story.symbol.end_line}"
                      f" ({inline(story.symbol.kind)})")
    if not story.known:
        lines += ["", "Nothing in this repository's history explains this code yet."]
        return "\n".join(lines)
    if story.records:
        lines += ["", f"### Decisions ({LABEL})"]
        for record in story.records:
            lines += ["", f"**{record_ref(record, links)} {inline(record.title, 200)}** — "
                          f"outcome: *{_outcome(story, record)}*"]
            if record.problem:
                lines.append(f"- Problem: {inline(record.problem.text, 400)}")
            lines += [f"- Cause: {inline(c.text, 400)}" for c in record.cause]
            lines += [f"- Decision: {inline(c.text, 400)}" for c in record.decision]
            lines += [f"- Rejected: {inline(c.text, 400)}" for c in record.rejected]
            if record.fixing_commits:
                refs = ", ".join(commit_ref(sha, links) for sha in record.fixing_commits[:5])
                lines.append(f"- Fixed in: {refs}")
    for kind, title in (("pattern", "Pitfalls"), ("fact", "Constraints"), ("skill", "Fixes")):
        units = [u for u in story.units if u.type == kind]
        if units:
            lines += ["", f"### {title}"]
            lines += [f"- {inline(u.content or u.title, 400)} — {change_ref(u.commit, u.pr, links)}"
                      f", {inline(u.author)}, {_day(u.date)}" for u in units]
    if story.history:
        lines += ["", "### History (substantive changes, newest first)", "",
                  "| date | change | author | kind |", "|---|---|---|---|"]
        for e in story.history:
            kind = inline(e.kind) + (f" (from {code(e.previous, in_table=True)})"
                                     if e.previous else "")
            lines.append(f"| {_day(e.date)} | {inline(e.subject, 120)} "
                         f"{change_ref(e.commit, e.pr, links)} | {inline(e.author)} | {kind} |")
    return "\n".join(lines)


def story_json(story: Story, links: WebLinks | None = None) -> dict:
    """The Story as plain data (``why --json``, ``whylens/why``)."""
    sym = story.symbol
    return {
        "path": story.path,
        "symbol": None if sym is None else {
            "name": sym.name, "kind": sym.kind, "start_line": sym.start_line,
            "end_line": sym.end_line,
        },
        "known": story.known,
        "summary": story.summary,
        "history": [{
            "commit": e.commit, "date": e.date, "timestamp": e.timestamp, "author": e.author,
            "subject": e.subject, "pr": e.pr, "kind": e.kind, "path": e.path, "symbol": e.symbol,
            "previous": e.previous, "url": change_url(e.commit, e.pr, links),
        } for e in story.history],
        "units": [{
            "id": u.id, "type": u.type, "title": u.title, "content": u.content,
            "commit": u.commit, "author": u.author, "date": u.date, "pr": u.pr,
            "url": item_url(u, links),
        } for u in story.units],
        "records": [{
            "id": r.id, "kind": r.kind, "number": r.number, "title": r.title,
            "problem": r.problem.text if r.problem else None,
            "decision": [c.text for c in r.decision], "rejected": [c.text for c in r.rejected],
            "outcome": dict(story.outcomes).get(r.id), "fixing_commits": list(r.fixing_commits),
            "label": r.label, "url": item_url(r, links),
        } for r in story.records],
    }
