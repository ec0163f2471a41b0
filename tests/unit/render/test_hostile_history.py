"""Commit text is data: a hostile history renders as text on every markdown surface.

The history (``hostile.py``) carries images, ``command:`` links, autolinks and raw HTML in its
subject, body and author. Each surface's markdown is rendered with a real CommonMark renderer and
may hold no image, no raw HTML and no link but the commit / PR pages WhyLens builds itself.
"""

from __future__ import annotations

import json

import pytest

from hostile import PIXEL, build_hostile_history, inert_problems
from whylens.cli import main
from whylens.history.links import WebLinks
from whylens.index.store import IndexStore
from whylens.markup import code, inline, link, safe_url, unescape
from whylens.mcp import answers
from whylens.pipeline import run_index
from whylens.render.cards import hover_card, story_json
from whylens.render.rationale import rationale
from whylens.render.review import github, markdown, sarif
from whylens.retrieval.search import search
from whylens.retrieval.why import why

BASE = "https://github.com/acme/shop/"
LINKS = WebLinks.from_base(BASE.rstrip("/"), "github")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    from tests.conftest import init_repo

    root = tmp_path_factory.mktemp("hostile")
    repo = init_repo(root / "repo")
    repo.git("remote", "add", "origin", "git@github.com:acme/shop.git")
    shas = build_hostile_history(repo)
    index = root / "index"
    run_index(repo.root, index)
    reader = IndexStore(index).reader()
    yield repo, shas, index, reader
    reader.close()


def _story(hostile):
    repo, _, _, reader = hostile
    return why(reader, "src/pool.py", symbol="pool_timeout", repo_root=repo.root, now=1.8e9)


def test_the_history_really_is_hostile(hostile):
    story = _story(hostile)
    assert story.known and any(PIXEL in e.subject and "command:evil" in e.author
                               for e in story.history)
    # the hostile change was reverted: its knowledge is on the card as history, not current
    shown = [*story.units, *story.records, *(r.item for r in story.reversals)]
    said = [getattr(i, "content", "") for i in shown] + [
        u.text for i in shown for u in getattr(i, "thread", ())]
    assert any("<command:" in text for text in said)
    assert any(PIXEL in getattr(i, "title", "") for i in shown)


def test_hover_and_rationale_are_inert(hostile):
    story = _story(hostile)
    for text in (hover_card(story, LINKS), rationale(story, LINKS), rationale(story, None)):
        assert text and not inert_problems(text, (BASE,)), inert_problems(text, (BASE,))
    # ... and still say what the history says, as text
    assert "pool_timeout" in rationale(story, LINKS) and "tracker.example.com" in rationale(story)
    assert f"[`{story.history[0].commit[:7]}`]({BASE}commit/" in rationale(story, LINKS)


def test_cli_why_and_search_answers_are_inert(hostile, capsys):
    repo, _, index, reader = hostile
    assert main(["why", "src/pool.py", "--symbol", "pool_timeout", "--all", "--repo",
                 str(repo.root), "--index-dir", str(index)]) == 0
    out = capsys.readouterr().out
    assert "pool_timeout" in out and not inert_problems(out, (BASE,))
    story = _story(hostile)
    data = story_json(story, LINKS)
    assert not inert_problems(answers.why_answer(story, data, LINKS, 4000).text, (BASE,))
    result = search(reader, "pool timeout hangs", links=LINKS, gate=0.0)
    assert result.hits
    hits = {"query": "![](x)", "abstained": False, "results": [
        {"type": h.type, "title": h.title, "content": h.content, "commit": h.commit,
         "url": h.url, "author": h.author, "date": h.date} for h in result.hits]}
    assert not inert_problems(answers.search_answer(hits, 4000).text, (BASE,))


def test_explain_error_answers_are_inert(hostile, capsys, monkeypatch):
    import io

    repo, _, index, _ = hostile
    monkeypatch.setattr("sys.stdin", io.StringIO(
        'Traceback (most recent call last):\n  File "src/pool.py", line 2, in pool_timeout\n'
        "    return conn.wait()\nTimeoutError: the pool hangs forever when the server dies\n"))
    assert main(["explain-error", "--repo", str(repo.root), "--index-dir", str(index),
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pitfalls"], "the hostile commit's pitfall should match"
    assert not inert_problems(answers.pitfalls_answer(data, 4000).text, (BASE,))


def test_review_surfaces_are_inert(hostile, capsys):
    repo, _, index, _ = hostile
    from hostile import POOL_V2

    repo.write("src/pool.py", POOL_V2)  # brings back the reverted hostile change
    try:
        args = ["pr-comments", "--repo", str(repo.root), "--index-dir", str(index),
                "--base", "HEAD"]
        assert main([*args, "--format", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
    finally:
        repo.git("checkout", "--", "src/pool.py")
    suggestions = data["suggestions"]
    assert suggestions, "bringing back a reverted change should be flagged"
    from whylens.models import Suggestion

    items = [Suggestion(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in s.items()
                           if k in Suggestion.__dataclass_fields__}) for s in suggestions]
    texts = [markdown(items, LINKS), *(c["body"] for c in github(items, LINKS)["comments"]),
             *(r["message"]["markdown"] for r in sarif(items, LINKS)["runs"][0]["results"]),
             answers.review_answer(data, 4000).text]
    for text in texts:
        assert not inert_problems(text, (BASE,)), (text, inert_problems(text, (BASE,)))
    plain = sarif(items, LINKS)["runs"][0]["results"][0]["message"]["text"]
    assert "\\" not in plain.replace("\\\\", "")  # SARIF's plain text has no escapes left


@pytest.mark.parametrize("text", [
    f"![]({PIXEL})", "[x](command:evil)", "<command:evil>", "<b>x</b>", "# h", "1. n", "- l",
    "> q", "=====", "a | b", "https://evil.com/x www.evil.com a@evil.com", "&lt;img&gt;",
    "\\", "x\ny\n# z", "$a$", "~~s~~", "_a_ *b* __c__ DEFAULT_TIMEOUT",
])
def test_inline_renders_as_exactly_the_text(text):
    from markdown_it import MarkdownIt

    escaped = inline(text)
    assert not inert_problems(escaped)
    rendered = MarkdownIt("gfm-like", {"linkify": True}).renderInline(escaped)
    import html

    assert html.unescape(rendered) == " ".join(text.split())
    assert unescape(escaped) == " ".join(text.split())


def test_code_spans_and_links():
    assert code("a`b") == "``a`b``" and code("`x`") == "`` `x` ``"
    assert code("a|b", in_table=True) == "`a\\|b`" and code("a\nb") == "`a b`"
    assert link("#1", "command:evil") == "#1" and link("#1", "javascript:x") == "#1"
    assert link("#1", "https://h/p/1") == "[#1](https://h/p/1)"
    assert safe_url("https://h/a) ![](https://e/p.png") == "https://h/a%29%20!%5B%5D%28https://e/p.png"


def test_terminal_output_carries_no_control_sequences():
    """``whylens search`` prints history text to a terminal: a subject cannot clear the screen,
    retitle the window or hide text (ESC and CSI sequences, C0/C1 controls are dropped)."""
    from whylens.render.hits import human_lines

    evil = "Fix pool\x1b[2J\x1b]0;owned\x07 timeout\x9b31m\r\x08"
    data = {"abstained": False, "results": [{
        "type": "skill", "title": evil, "snippet": evil + " because it hung", "outcome": None,
        "commit": "a" * 40, "author": "Mallory\x1b[8m", "date": "2024-01-01", "score": 1.0,
        "url": None}]}
    text = "\n".join(human_lines(data))
    assert not any(ord(c) < 32 and c != "\n" or 0x7f <= ord(c) <= 0x9f for c in text)
    assert "Fix pool" in text and "because it hung" in text and "Mallory" in text
