"""Tool answers: the CLI's JSON (same builders) as structured content, concise markdown as text.

Each answer is built from the structured content itself, so both show the same items: the budget
keeps the most useful ones and trims the lists to match. Every item cites its commit (short sha,
linked when the web host is known); nothing known is an explicit abstention.
"""

from __future__ import annotations

from dataclasses import dataclass

from whylens.mcp.budget import Item, fit, trim
from whylens.render.cards import LABEL, UNIT_LABELS
from whylens.render.review import KIND_TITLES
from whylens.markup import code, inline, link
from whylens.retrieval.citations import item_url, short


@dataclass(frozen=True)
class Answer:
    text: str
    data: dict
    error: bool = False


def abstain(data: dict, text: str) -> Answer:
    return Answer(text, {**data, "abstained": True})


def cite(commit: str | None, url: str | None = None, pr: int | None = None) -> str:
    """``[#15 `abc1234`](url)``, or without the link when no web host is known."""
    label = " ".join(part for part in (f"#{pr}" if pr is not None else "",
                                       code(short(commit)) if commit else "") if part)
    label = label or "(no commit)"
    return link(label, url)


def with_building(answer: Answer, building: dict | None) -> Answer:
    """Say that the index is still being built, when it is (answers may be incomplete)."""
    if not building:
        return answer
    percent = f" ({building['percent']}%)" if building.get("percent") is not None else ""
    note = f"_(the index is still being built{percent}; this answer may be incomplete)_"
    return Answer(f"{answer.text}\n\n{note}", {**answer.data, "indexing": building}, answer.error)


def indexing(root_name: str, progress: dict) -> Answer:
    phase, done, total = progress.get("phase") or "starting", progress["done"], progress["total"]
    how_far = f"{phase} {done}/{total}" if total else phase
    if progress.get("percent") is not None:
        how_far += f", {progress['percent']}%"
    text = (f"WhyLens is indexing the history of {root_name} ({how_far}); nothing to answer "
            "from yet. Try again in a few seconds.")
    return Answer(text, {"abstained": True, "indexing": progress})


# ---- why --------------------------------------------------------------------------------------

def _record_text(entry: dict) -> str:
    commits = entry.get("fixing_commits") or []
    ref = cite(commits[0] if commits else None, entry.get("url"), entry.get("number"))
    problem = inline(entry.get("problem") or entry.get("title") or "", 200)
    text = f"- {ref} {problem}"
    decision = inline((entry.get("decision") or [""])[0], 200)
    if decision and decision.rstrip(".…").lower() not in problem.lower():
        text += f" → {decision}"
    if entry.get("rejected"):
        text += f"; rejected: {inline(entry['rejected'][0], 100)}"
    return f"{text} — *{entry.get('outcome') or 'landed'}*"


def _unit_text(entry: dict) -> str:
    label = UNIT_LABELS.get(entry.get("type", ""), entry.get("type", ""))
    content = inline(entry.get("content") or entry.get("title") or "", 240)
    return f"- **{label}:** {content} ({cite(entry.get('commit'), entry.get('url'), entry.get('pr'))})"


def _change_text(entry: dict) -> str:
    return (f"- {inline(entry.get('subject') or '', 140)} — "
            f"{cite(entry.get('commit'), entry.get('url'), entry.get('pr'))} · "
            f"{inline((entry.get('date') or '')[:10])}")


def _interleave(*groups: list[Item]) -> list[Item]:
    """The first of each group, then the rest of each: a small budget still shows a decision, a
    pitfall and the latest change."""
    firsts = [group[0] for group in groups if group]
    return firsts + [item for group in groups for item in group[1:]]


def why_answer(story, data: dict, links, limit: int) -> Answer:
    """``data`` is ``story_json(story, links)``; records without a url get their PR / issue /
    commit url from ``links`` (the same citation the cards link to)."""
    for entry, record in zip(data.get("records") or (), story.records):
        entry["url"] = entry.get("url") or item_url(record, links)
    sym = data.get("symbol")
    title = code(sym["name"]) if sym else code(data["path"])
    where = code(data["path"])
    if sym and sym.get("start_line"):
        where = f"{inline(sym['kind'])} in {where} lines {sym['start_line']}–{sym['end_line']}"
    data = {**data, "abstained": not data.get("known")}
    if not data.get("known"):
        return abstain(data, f"Nothing in this repository's history explains {title} ({where}) "
                             "yet; WhyLens abstains rather than guess.")
    header = f"**{title}** ({where}) — {inline(data.get('summary')) or 'history below'}"
    groups = [[Item(key, i, render(entry)) for i, entry in enumerate(data.get(key) or ())]
              for key, render in (("records", _record_text), ("units", _unit_text),
                                  ("history", _change_text))]
    fitted = fit(header, _interleave(*groups), limit, headings={
        "records": f"**Decisions** ({LABEL})", "units": "**Pitfalls, constraints & fixes**",
        "history": "**Recent changes** (newest first)"})
    return Answer(fitted.text, trim(data, fitted, ("records", "units", "history")))


# ---- search -----------------------------------------------------------------------------------

def _hit_text(hit: dict) -> str:
    """The hit's title (or its content, when the title is only the start of it), then the rest
    of the content on a second line: its answer sentences when search picked them."""
    title, content = hit.get("title") or "", " ".join((hit.get("content") or "").split())
    snippet = " ".join((hit.get("snippet") or "").split())
    if snippet and snippet != title:
        content = snippet  # the sentences that answer the question (search's snippet)
    stem = title.rstrip(".… ").lower()
    main, rest = (content, "") if content.lower().startswith(stem) else (title, content)
    line = (f"- [{hit.get('type')}] {inline(main, 240)} — "
            f"{cite(hit.get('commit'), hit.get('url'))} · {inline(hit.get('author')) or '?'} · "
            f"{inline((hit.get('date') or '')[:10])}")
    if hit.get("reverted_by"):
        line += f" — *reverted* by {cite(hit['reverted_by'])}: not the code today"
    return f"{line}\n  {inline(rest, 240)}" if rest else line


def search_answer(data: dict, limit: int) -> Answer:
    """``data`` is ``render.hits.to_json(result, links)``."""
    results = data.get("results") or []
    if data.get("abstained") or not results:
        return abstain({**data, "omitted": 0},
                       f"Nothing in the history answers {inline(repr(data.get('query', '')))} confidently "
                       "enough; WhyLens abstains rather than guess.")
    header = f"{len(results)} result{'s' * (len(results) != 1)} for {inline(repr(data['query']))}, best first:"
    fitted = fit(header, [Item("results", i, _hit_text(h)) for i, h in enumerate(results)], limit)
    return Answer(fitted.text, trim(data, fitted, ("results",)))


# ---- explain_error ----------------------------------------------------------------------------

def pitfalls_answer(data: dict, limit: int, cut: int = 0) -> Answer:
    """``data`` is ``cli.why.pitfalls_json(pitfalls, links)``; ``cut``: characters dropped from
    the start of an over-long error text."""
    pitfalls = data.get("pitfalls") or []
    data = {**data, "abstained": not pitfalls, "text_cut": cut}
    note = f" (only the last part of the text was read: {cut:,} characters cut)" if cut else ""
    if not pitfalls:
        return abstain({**data, "omitted": 0}, "No known pitfall in this repository's history "
                                               f"matches this error{note}; WhyLens abstains "
                                               "rather than guess.")
    header = (f"{len(pitfalls)} known pitfall{'s' * (len(pitfalls) != 1)} in this repository's "
              f"history match{'es' * (len(pitfalls) == 1)} this error{note}, best first:")
    items = [Item("pitfalls", i, f"- {inline(p.get('message'))} ({inline(p.get('reason'))}; "
                                 f"{cite(p.get('commit'), p.get('url'))})")
             for i, p in enumerate(pitfalls)]
    fitted = fit(header, items, limit)
    return Answer(fitted.text, trim(data, fitted, ("pitfalls",)))


# ---- review_diff ------------------------------------------------------------------------------

def _suggestion_text(s: dict) -> str:
    side = "" if s.get("side") == "RIGHT" else " (deleted lines)"
    where = code(f"{s.get('path')}:{s.get('line')}") + side + (
        f" in {code(s['symbol'])}" if s.get("symbol") else "")
    kind = KIND_TITLES.get(s.get("kind", ""), s.get("kind", ""))
    body = " ".join(str(s.get("body") or "").split())
    return f"- **{kind}** — {where} · confidence {float(s.get('confidence') or 0):.2f}\n  {body}"


def review_answer(data: dict, limit: int) -> Answer:
    """``data`` is what ``whylens pr-comments --format json`` prints."""
    suggestions = data.get("suggestions") or []
    skipped = (data.get("diff") or {}).get("skipped") or []
    span = (f" ({short(data['base'])} → {short(data['head']) if data.get('head') else 'working tree'})"
            if data.get("base") else "")
    note = ""
    if skipped:
        names = ", ".join(f"{code(s['path'])} ({inline(s['reason'])})" for s in skipped[:5])
        note = f" Not reviewed: {names}{' …' if len(skipped) > 5 else ''}."
    data = {**data, "abstained": not suggestions}
    if not suggestions:
        return abstain({**data, "omitted": 0}, "Nothing in the history calls for a comment on "
                                               f"this change{span}.{note}")
    header = (f"{len(suggestions)} review suggestion{'s' * (len(suggestions) != 1)} from the "
              f"history of the code this change touches{span}, best first.{note}")
    items = [Item("suggestions", i, _suggestion_text(s)) for i, s in enumerate(suggestions)]
    fitted = fit(header, items, limit)
    return Answer(fitted.text, trim(data, fitted, ("suggestions",)))
