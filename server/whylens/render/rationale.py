"""A Story → the rationale view (``whylens why``, the explain panel) as markdown, within a budget.

At most ``MAX_WHY_CHARS`` by default (``max_chars=None``: everything, ``whylens why --all``). The
most explanatory items are chosen first — the change behind a asked-about line, decisions that
state a problem, cause or rejected alternative, pitfalls, constraints, fixes, what was reverted,
then the history newest first — and shown in a fixed order of sections; what did not fit is
counted in a last line. Reformat / lint / typing-only commits are one collapsed line, never
listed as changes. A unit that only tells what its change did (``Story.notes``) is shown on that
change's history line, after its subject.
"""

from __future__ import annotations

from dataclasses import dataclass

from whylens.history.links import WebLinks
from whylens.models import FORMATTING_KIND, Record, Story, Unit
from whylens.render.cards import LABEL, day, line_text, outcome, reversal_line, title
from whylens.markup import code, inline
from whylens.retrieval.citations import change_ref, commit_ref, record_ref
from whylens.retrieval.said_once import repeats, said_once, shown_fields

MAX_WHY_CHARS = 4000
FIELD_CHARS = 400
SECTIONS = ("line", "decisions", "pattern", "fact", "skill", "reversals", "history")
HEADINGS = {"line": "### Why this line", "decisions": f"### Decisions ({LABEL})",
            "pattern": "### Pitfalls", "fact": "### Constraints", "skill": "### Fixes",
            "reversals": "### Reverted or superseded (history, not current)",
            "history": "### History (substantive changes, newest first)"}
UNIT_PRIORITY = {"pattern": 3.0, "fact": 2.5, "skill": 2.0}


@dataclass(frozen=True)
class _Block:
    section: str
    priority: float
    order: int  # position inside its section
    lines: tuple[str, ...]
    says: tuple[str, ...] = ()  # the texts its lines show (a record's title and fields, a unit)

    @property
    def size(self) -> int:
        return sum(len(line) + 1 for line in self.lines)


def rationale(story: Story, links: WebLinks | None = None,
              max_chars: int | None = MAX_WHY_CHARS) -> str:
    """The story as markdown; see the module docstring."""
    head = [f"## {title(story)}", "",
            f"{inline(story.summary) or 'no recorded history'} · {code(story.path)}"]
    if story.symbol and story.symbol.start_line:
        head[-1] += (f" lines {story.symbol.start_line}–{story.symbol.end_line}"
                     f" ({inline(story.symbol.kind)})")
    if not story.known:
        return "\n".join(head + ["", "Nothing in this repository's history explains this code yet."])
    blocks = _blocks(story, links)
    chosen = _said_once(_choose(blocks, max_chars - _size(head) - 80 if max_chars else None))
    text = _render(head, blocks, chosen)
    while max_chars is not None and len(text) > max_chars and chosen:
        chosen.remove(min(chosen, key=lambda b: (b.priority, -b.order)))  # headings took room
        text = _render(head, blocks, chosen)
    return text


def _render(head: list[str], blocks: list[_Block], chosen: list[_Block]) -> str:
    lines = list(head)
    for section in SECTIONS:
        picked = sorted((b for b in chosen if b.section == section), key=lambda b: b.order)
        if not picked:
            continue
        lines += ["", HEADINGS[section]]
        if section == "history":
            lines += ["", "| date | change | author | kind |", "|---|---|---|---|"]
        elif section == "decisions":
            lines.append("")
        for block in picked:
            lines += block.lines
    shown = {id(b) for b in chosen}  # an item repeating another is no item left out
    left_out = sum(id(b) not in shown for b in _said_once(blocks))
    if left_out:
        lines += ["", f"*{left_out} more item{'s' if left_out != 1 else ''} not shown: "
                      "`whylens why --all` lists everything.*"]
    return "\n".join(lines)


def _choose(blocks: list[_Block], budget: int | None) -> list[_Block]:
    if budget is None:
        return blocks
    chosen, used = [], 0
    for block in sorted(blocks, key=lambda b: (-b.priority, b.section, b.order)):
        if used + block.size <= budget:
            chosen.append(block)
            used += block.size
    return chosen


def _said_once(chosen: list[_Block]) -> list[_Block]:
    """The chosen blocks, each thing said once (``cards.said_once``): a unit that a chosen
    decision's title or fields already say is left out, and so is a unit another unit says.
    (A decision with nothing but a title a pitfall or constraint says never reaches the story:
    ``said_once.distinct`` leaves it out, so that the counts are what the card shows.)"""
    units = sorted((b for b in chosen if b.section in UNIT_PRIORITY),
                   key=lambda b: (SECTIONS.index(b.section), b.order))
    told = [b.says[0] for b in units]
    said = [text for b in chosen if b.section == "decisions" for text in b.says]
    dropped = {id(b) for b, kept in zip(units, said_once(told, said)) if not kept}
    return [b for b in chosen if id(b) not in dropped]


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _blocks(story: Story, links: WebLinks | None) -> list[_Block]:
    blocks: list[_Block] = []
    if story.line_change is not None:
        blocks.append(_Block("line", 10.0, 0, (f"- {line_text(story.line_change, links, 300)}",)))
    for i, record in enumerate(story.records):
        explains = bool(record.problem) + bool(record.cause) + bool(record.rejected)
        lines, says = _record_lines(story, record, links)
        blocks.append(_Block("decisions", 3.0 + explains - 0.01 * i, i, tuple(lines), says))
    for i, unit in enumerate(story.units):
        blocks.append(_Block(unit.type, UNIT_PRIORITY.get(unit.type, 1.0) + unit.weight - 0.001 * i,
                             i, (_unit_line(unit, links),), (unit.content or unit.title,)))
    for i, reversal in enumerate(story.reversals):
        blocks.append(_Block("reversals", 2.0 - 0.01 * i, i,
                             (f"- {reversal_line(reversal, links, FIELD_CHARS // 2)}",)))
    formatting = [e for e in story.history if e.kind == FORMATTING_KIND]
    notes = _notes(story)
    for i, entry in enumerate(story.changes):
        kind = inline(entry.kind) + (f" (from {code(entry.previous, in_table=True)})"
                                     if entry.previous else "")
        note = "".join(f" — {inline(text, FIELD_CHARS // 2)}" for text in notes.pop(entry.commit, ()))
        blocks.append(_Block("history", 1.0 - 0.001 * i, i, (
            f"| {day(entry.date)} | {inline(entry.subject, 120)} "
            f"{change_ref(entry.commit, entry.pr, links)}{note} | {inline(entry.author)} "
            f"| {kind} |",)))
    if formatting:
        n = len({e.commit for e in formatting})
        blocks.append(_Block("history", 0.5, len(story.changes), (
            f"| | *{n} reformat / lint / typing-only commit{'s' if n != 1 else ''}, not listed* "
            "| | formatting |",)))
    return blocks


def _notes(story: Story) -> dict[str, list[str]]:
    """What each change did, by commit (``Story.notes``), each said once: not its subject or a
    run of it again (the table cuts a long subject; its first sentence is no note)."""
    subjects = {e.commit: e.subject for e in story.changes}
    out: dict[str, list[str]] = {}
    for unit in story.notes:
        text = unit.content or unit.title
        if not repeats(text, [subjects.get(unit.commit, "")]):
            out.setdefault(unit.commit, []).append(text)
    return out


def _record_lines(story: Story, record: Record,
                  links: WebLinks | None) -> tuple[list[str], tuple[str, ...]]:
    """The record's lines and the texts they show; its fields each said once: not the title
    again, not a field above again, not a unit's words again (the unit's line, typed as a
    pitfall or constraint, says it, or a note's on the history line)."""
    lines = [f"**{record_ref(record, links)} {inline(record.title, 200)}** — "
             f"outcome: *{outcome(story, record)}*"]
    shown = [record.title]
    for name, text in shown_fields(record, [u.content for u in (*story.units, *story.notes)]):
        lines.append(f"- {name}: {inline(text, FIELD_CHARS)}")
        shown.append(text)
    fixed = _fixed_here(story, record)
    if fixed:
        lines.append(f"- Fixed in: {', '.join(commit_ref(sha, links) for sha in fixed)}")
    return lines + [""], tuple(shown)


def _fixed_here(story: Story, record: Record) -> list[str]:
    """The record's commits that changed this symbol (not every commit of its PR); its landing
    commit when none of them is in the symbol's history (a file-level story)."""
    changed = {e.commit for e in story.changes}
    here = [sha for sha in record.fixing_commits if sha in changed]
    return (here or list(record.fixing_commits[:1]))[:5]


def _unit_line(unit: Unit, links: WebLinks | None) -> str:
    return (f"- {inline(unit.content or unit.title, FIELD_CHARS)} — "
            f"{change_ref(unit.commit, unit.pr, links)}, {inline(unit.author)}, {day(unit.date)}")
