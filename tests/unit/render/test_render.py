"""Renderers: hover card cap and provenance, rationale, lens titles, diagnostics, search JSON."""

from __future__ import annotations

import re
from dataclasses import replace

from whylens.history.links import WebLinks
from whylens.models import Claim, HistoryEntry, KnowledgeCounts, Pitfall, Record, Story, Symbol, Unit
from whylens.render.cards import hover_card, story_json
from whylens.render.rationale import rationale
from whylens.render.diagnostics import pitfall_link, pitfall_message
from whylens.render.hits import human_lines, to_json
from whylens.render.lens import lens_title
from whylens.retrieval.search import SearchResult, to_hit

LINKS = WebLinks.from_remote("git@github.com:acme/shop.git")
SHA = [f"{i:x}" * 40 for i in range(1, 10)]
SYMBOL = Symbol("Session.send", "method", 2, 5, name_line=2, name_col=8, name_end_col=12)


def _entry(i: int, subject: str, pr: int | None = None) -> HistoryEntry:
    return HistoryEntry(commit=SHA[i], date=f"2024-0{i}-10T10:00:00+00:00", timestamp=1_700_000_000 + i,
                        author=f"Dev {i % 2}", subject=subject, pr=pr, kind="body",
                        path="src/session.py", symbol="Session.send")


def _unit(i: int, type_: str, content: str, pr: int | None = None) -> Unit:
    return Unit(id=f"u{i:011d}", type=type_, title=content[:40], content=content, weight=0.8,
                context=content, commit=SHA[i], author="Grace", date=f"2024-0{i}-10T10:00:00+00:00",
                files=("src/session.py",), symbols=("Session.send",), pr=pr)


RECORD = Record(id="pr-15", kind="pr", number=15, title="Always pass a timeout",
                problem=Claim("A request without a timeout hangs forever on a dead server.", "U1"),
                decision=(Claim("Fall back to DEFAULT_TIMEOUT instead of blocking.", "U1"),),
                rejected=(Claim("A global socket timeout was rejected: it leaks into other libraries.", "U2"),),
                fixing_commits=(SHA[4],), merged=True, fix_edge_source="text",
                anchors=("Session.send",), date="2024-04-10T10:00:00+00:00")


def _story(**kw) -> Story:
    base = dict(path="src/session.py", symbol=SYMBOL,
                history=(_entry(4, "Always pass a timeout to the connection", 15),
                         _entry(2, "Fix deadlock when the pool is exhausted"),
                         _entry(1, "Add a Session")),
                units=(_unit(2, "pattern", "Session.send deadlocked when the pool was exhausted."),
                       _unit(4, "fact", "Every call to send must carry a timeout.", pr=15),
                       _unit(2, "skill", "Fixed by releasing the lock before waiting on the pool.")),
                records=(RECORD,), outcomes=(("pr-15", "landed"),),
                summary="changed 3× by 2 authors, last 2 months ago; 1 pitfall known")
    base.update(kw)
    return Story(**base)


def test_hover_card_has_every_part_with_links():
    card = hover_card(_story(), LINKS)
    assert card.startswith("**`Session.send`** — changed 3× by 2 authors")
    assert "distilled, unreviewed" in card
    assert "hangs forever" in card and "DEFAULT_TIMEOUT" in card and "rejected:" in card
    assert "*landed*" in card
    assert "deadlocked" in card and "must carry a timeout" in card
    assert "Fix deadlock when the pool is exhausted" in card
    assert "https://github.com/acme/shop/pull/15" in card
    assert f"https://github.com/acme/shop/commit/{SHA[2]}" in card
    # every bullet line carries a provenance link
    for line in card.splitlines():
        if line.startswith("- ") or line.startswith("**`"):
            assert "https://github.com/acme/shop/" in line, line
    assert len(card) <= 1200


def test_hover_card_plain_short_shas_without_links():
    card = hover_card(_story(), None)
    assert "http" not in card
    assert f"`{SHA[2][:7]}`" in card and "#15" in card


def test_hover_card_is_capped_and_none_when_nothing_known():
    long = "x" * 900
    story = _story(units=tuple(_unit(i, "pattern", f"{long} {i}") for i in range(1, 9)),
                   history=tuple(_entry(i, long) for i in range(1, 9)))
    card = hover_card(story, LINKS)
    assert card is not None and len(card) <= 1200
    assert card.startswith("**`Session.send`**")
    assert hover_card(Story(path="a.py", symbol=SYMBOL, summary="no recorded history"), LINKS) is None


def test_rationale_has_everything_and_honest_empty_story():
    text = rationale(_story(), LINKS)
    for part in ("## `Session.send`", "### Decisions (distilled, unreviewed)", "- Problem:",
                 "- Decision:", "- Rejected:", "### Pitfalls", "### Constraints", "### Fixes",
                 "### History", "Add a Session", "Grace"):
        assert part in text, part
    empty = rationale(Story(path="a.py", symbol=None, summary="no recorded history"), None)
    assert "no recorded history" in empty and "Nothing in this repository's history" in empty
    data = story_json(_story(), LINKS)
    assert data["known"] and data["symbol"]["name"] == "Session.send"
    assert data["records"][0]["outcome"] == "landed"
    assert data["history"][0]["url"] == "https://github.com/acme/shop/pull/15"


def test_a_note_shows_on_its_change_history_line_not_as_a_constraint():
    note = _unit(2, "fact", "Developers can now pass a | separated list of pool names.")
    story = _story(notes=(note,))
    text = rationale(story, LINKS)
    history = text.split("### History")[1]
    row = next(line for line in history.splitlines() if "Fix deadlock" in line)
    assert "— Developers can now pass a \\| separated list" in row  # the cell is not split
    assert row.count(" | ") == 3 and "Developers" not in text.split("### History")[0]
    assert "Developers" not in (hover_card(story, LINKS) or "")
    assert story_json(story, LINKS)["notes"][0]["content"] == note.content
    # a note that only repeats its change's subject says nothing new
    same = _unit(2, "fact", "Fix deadlock when the pool is exhausted")
    assert rationale(_story(notes=(same,)), LINKS).count("Fix deadlock when the pool") == 1


def test_lens_titles():
    assert lens_title(KnowledgeCounts(2, 1, 7)) == "why: 2 decisions · 1 pitfall · changed 7×"
    assert lens_title(KnowledgeCounts(0, 0, 1)) == "why: changed 1×"
    assert lens_title(KnowledgeCounts(records=1, pitfalls=2, changes=0)) == "why: 1 decision · 2 pitfalls"
    assert lens_title(KnowledgeCounts(0, 0, 0)) == "why: no recorded history"


def test_pitfall_message_and_link():
    pattern = _unit(2, "pattern", "Session.send deadlocked when the pool was exhausted.", pr=12)
    fix = _unit(2, "skill", "releasing the lock before waiting on the pool", pr=12)
    message = pitfall_message(Pitfall(item=pattern, score=0.8, reason="x", fix=fix), LINKS)
    assert message == ("Known pitfall: Session.send deadlocked when the pool was exhausted. — "
                       "fixed before in #12 by releasing the lock before waiting on the pool")
    assert pitfall_link(Pitfall(item=pattern, score=0.8, reason="x"), LINKS).endswith("/pull/12")
    no_pr = _unit(3, "pattern", "Timeouts were lost.")
    assert f"fixed before in {SHA[3][:7]}" in pitfall_message(Pitfall(no_pr, 0.7, "x"), None)
    assert pitfall_link(Pitfall(no_pr, 0.7, "x"), None) is None
    rec = pitfall_message(Pitfall(RECORD, 0.9, "x"), LINKS)
    assert rec.startswith("Known pitfall: A request without a timeout") and "#15" in rec
    assert "by Fall back to DEFAULT_TIMEOUT" in rec


def test_search_json_exact_shape():
    unit = _unit(2, "pattern", "deadlock when the pool is exhausted", pr=12)
    plain = _unit(1, "fact", "the pool is bounded")
    hits = [to_hit(plain, 1.23456, LINKS), to_hit(unit, 2.5, LINKS), to_hit(RECORD, 3.0, LINKS)]
    out = to_json(SearchResult("pool deadlock", False, hits))
    assert set(out) == {"query", "abstained", "results"}
    keys = {"id", "type", "title", "content", "score", "commit", "author", "date", "files",
            "symbols", "source", "url", "snippet"}
    record_keys = keys | {"problem", "cause", "decision", "rejected", "outcome"}
    assert [set(r) for r in out["results"]] == [keys, keys, record_keys]
    assert out["results"][0]["url"] == f"https://github.com/acme/shop/commit/{SHA[1]}"
    assert out["results"][0]["score"] == 1.2346
    assert out["results"][1]["url"].endswith("/pull/12") and out["results"][1]["commit"] == SHA[2]
    assert out["results"][2]["type"] == "decision" and out["results"][2]["url"].endswith("/pull/15")
    assert all(re.fullmatch(r"[0-9a-f]{40}", r["commit"]) for r in out["results"])
    twin = replace(to_hit(plain, 1.0, LINKS), also=("c" * 40,))
    folded = to_json(SearchResult("pool deadlock", False, [twin]))["results"][0]
    assert set(folded) == keys | {"also"} and folded["also"] == ["c" * 40]
    assert f"{SHA[1][:12]} (also cccccccccccc) · " in human_lines(
        to_json(SearchResult("pool deadlock", False, [twin])))[-1]
    copies = replace(twin, also=tuple(f"{n:x}" * 40 for n in range(11)))
    assert f"{SHA[1][:12]} (also 000000000000, 111111111111 and 9 more) · " in human_lines(
        to_json(SearchResult("pool deadlock", False, [copies])))[-1]
    offline = to_json(SearchResult("pool deadlock", True, []))
    assert offline == {"query": "pool deadlock", "abstained": True, "results": []}


ISSUE = Record(id="issue-7", kind="issue", number=7, title="Hangs", partner=9,
               fixing_commits=(SHA[5],))


def test_one_link_rule_in_search_hover_rationale_diagnostics_and_why_json():
    """An issue record links to its issue (not its partner PR) everywhere; a unit to its PR;
    a record without a number to its fixing commit; a record's own url wins."""
    issue_url = "https://github.com/acme/shop/issues/7"
    assert to_hit(ISSUE, 1.0, LINKS).url == issue_url
    story = _story(records=(ISSUE,), outcomes=())
    assert f"]({issue_url})" in hover_card(story, LINKS)
    assert f"]({issue_url})" in rationale(story, LINKS)
    assert pitfall_link(Pitfall(ISSUE, 0.9, "x"), LINKS) == issue_url
    assert story_json(story, LINKS)["records"][0]["url"] == issue_url
    with_pr = _unit(4, "fact", "Every call to send must carry a timeout.", pr=15)
    assert story_json(_story(units=(with_pr,)), LINKS)["units"][0]["url"].endswith("/pull/15")
    assert to_hit(with_pr, 1.0, LINKS).url.endswith("/pull/15")
    bare = Record(id="commit-abc", kind="commit", number=None, title="t", fixing_commits=(SHA[3],))
    assert to_hit(bare, 1.0, LINKS).url == f"https://github.com/acme/shop/commit/{SHA[3]}"
    own = Record(id="issue-8", kind="issue", number=8, title="t", url="https://tracker/8")
    assert to_hit(own, 1.0, None).url == "https://tracker/8"
    assert to_hit(ISSUE, 1.0, None).url is None  # no web host known: no url


def test_rationale_budget_keeps_the_most_explanatory_items_and_says_what_it_left_out():
    many = tuple(_unit(1 + i % 8, "skill", f"Fix number {i}: " + "detail " * 40) for i in range(30))
    history = tuple(_entry(1 + i % 8, f"Change number {i} of the session code") for i in range(60))
    story = _story(units=(_unit(2, "pattern", "Session.send deadlocked when the pool was "
                                              "exhausted."),) + many, history=history)
    text = rationale(story, LINKS)
    assert len(text) <= 4000
    assert "deadlocked when the pool was exhausted" in text  # the pitfall before the fixes
    assert "A request without a timeout hangs forever" in text  # the record's problem
    left_out = re.search(r"\*(\d+) more items not shown: `whylens why --all`", text)
    assert left_out and int(left_out.group(1)) > 0
    sections = [line for line in text.splitlines() if line.startswith("### ")]
    assert sections == sorted(sections, key=lambda s: ["### Decisions", "### Pitfalls",
                                                        "### Constraints", "### Fixes",
                                                        "### History"].index(s.split(" (")[0]))
    everything = rationale(story, LINKS, max_chars=None)
    assert "not shown" not in everything and everything.count("Fix number") == 30


def test_formatting_only_commits_are_one_collapsed_line_never_changes():
    fmt = [HistoryEntry(commit=SHA[i], date="2024-05-10T10:00:00+00:00", timestamp=1_700_000_100 + i,
                        author="Bot", subject=f"Reformat with black {i}", pr=None, kind="formatting",
                        path="src/session.py", symbol="Session.send") for i in (5, 6)]
    story = _story(history=_story().history + tuple(fmt))
    text = rationale(story, LINKS)
    assert "Reformat with black" not in text
    assert "2 reformat / lint / typing-only commits, not listed" in text
    assert story.counts.changes == 3 and "Reformat" not in (hover_card(story, LINKS) or "")


def test_reverted_knowledge_and_the_line_behind_the_cursor():
    from whylens.models import LineChange, Reversal

    reverted = _unit(3, "fact", "Send must reject closed connections.")
    story = _story(reversals=(Reversal(reverted, "reverted", SHA[5], 31,
                                       "raising in send broke the shutdown path"),),
                   line_change=LineChange(4, _entry(2, "Fix deadlock when the pool is exhausted"),
                                          (_unit(2, "pattern", "Session.send deadlocked when "
                                                               "the pool was exhausted."),)))
    text = rationale(story, LINKS)
    assert "### Reverted or superseded (history, not current)" in text
    assert ("Send must reject closed connections. — *reverted in "
            "[#31](https://github.com/acme/shop/pull/31)") in text
    assert "raising in send broke the shutdown path" in text
    assert "**Line 4** last changed in" in text and "deadlocked when the pool" in text
    card = hover_card(story, LINKS) or ""
    assert "**Line 4** last changed in" in card and "**Reverted**" in card
    data = story_json(story, LINKS)
    assert data["line"]["line"] == 4 and data["reversals"][0]["by_pr"] == 31
    assert data["counts"] == {"records": 1, "pitfalls": 1, "changes": 3}


def test_a_thousand_commit_churn_stays_in_budget():
    churn = tuple(HistoryEntry(commit=f"{i:040x}", date="2024-01-10T10:00:00+00:00",
                               timestamp=1_700_000_000 - i, author=f"Dev {i % 7}",
                               subject=f"Tweak send, round {i}", pr=i, kind="body",
                               path="src/session.py", symbol="Session.send") for i in range(1000))
    story = _story(history=churn)
    card, text = hover_card(story, LINKS), rationale(story, LINKS)
    assert len(card) <= 1200 and len(text) <= 4000
    assert "more items not shown" in text and len(rationale(story, LINKS, max_chars=None)) > 4000


def test_search_output_does_not_repeat_the_title_as_the_first_snippet_sentence():
    """A record's title is its subject less the trailing PR number; the snippet quoting that
    subject is not printed a second time under it. Other sentences stay."""
    from whylens.render.hits import human_lines, without_title

    title = "docs(gin): update link to the proxies section (#3938)"
    snippet = title + " (#3945) … Update the link after PR #3449 was merged."
    assert without_title(snippet, title) == "Update the link after PR #3449 was merged."
    assert without_title(title + " (#3945)", title) == ""
    assert without_title("Fix bug … more", "Fix bug") == "more"
    assert without_title("Something else", title) == "Something else"
    assert without_title("fix Bug (#12) … more", "Fix bug") == "more"  # case aside
    assert without_title("Fix bug, and the test … more", "Fix bug") == (
        "Fix bug, and the test … more")  # a longer sentence stays whole
    long_title = "Commit documents store their prose one sentence per line, so search is fast"
    assert without_title("…their prose one sentence per line, so search is fast", long_title) == ""
    assert without_title("…their prose one sentence … Other words.", long_title) == "Other words."
    assert without_title("…words the title lacks", long_title) == "…words the title lacks"
    data = {"abstained": False, "results": [{
        "type": "decision", "title": title, "snippet": snippet, "outcome": "landed",
        "commit": "b" * 40, "author": "A", "date": "2024-05-07", "score": 7.2, "url": None}]}
    lines = human_lines(data)
    assert sum(title in line for line in lines) == 1
    assert "    Update the link after PR #3449 was merged." in lines
