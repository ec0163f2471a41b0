"""retrieval.search: every commit searchable, answer sentences, one hit per commit, context,
recency, and the gate's silence."""

from __future__ import annotations

import hashlib

import pytest

from whylens.index.store import IndexStore
from whylens.models import Claim, Commit, FileChange, Record, Unit
from whylens.retrieval import gate as gates
from whylens.retrieval.search import GATE, SearchContext, SearchResult, rank, search

# (subject, body, files): shaped like requests' history. Only some carry a unit (below).
COMMITS = [
    ("Fix connection pool leak on redirect",
     "Session.send leaked connections when a redirect raised ConnectionError. After a few "
     "hundred requests the pool was exhausted and every call hung. Release the connection "
     "before following the redirect.", ("requests/sessions.py",)),
    ("Stream large downloads",
     "Reading Response.content loads the whole body into memory. Use stream=True and "
     "iter_content for large files instead.", ("requests/models.py",)),
    ("Accept a (connect, read) tuple as timeout",
     "The timeout argument may now be a float or a (connect, read) tuple, so the connect and "
     "the read phase get separate limits. None still means wait forever.",
     ("requests/adapters.py",)),
    ("Strip Authorization header whenever root URL changes",
     "Previously the header was stripped only if the hostname changed, but in an https -> http "
     "redirect that can leak the credentials on the wire.", ("requests/sessions.py",)),
    ("Do not send cookies to other domains",
     "A cookie jar must never send cookies to a different domain than the one that set them.",
     ("requests/cookies.py",)),
    ("Guess the encoding with chardet",
     "When the server sends no charset, fall back to chardet to guess Response.text's encoding.",
     ("requests/models.py",)),
    ("Explain certificate verify failed behind proxies",
     "certificate verify failed happens when REQUESTS_CA_BUNDLE points to a missing file; the "
     "error now names the bundle path.", ("requests/utils.py",)),
    ("Keep header names case insensitive",
     "CaseInsensitiveDict keeps header names case insensitive while remembering the last case.",
     ("requests/structures.py",)),
    ("Retry idempotent requests on connection reset",
     "Keep-alive connections closed by the server made requests fail with ConnectionResetError; "
     "idempotent requests are retried once on a fresh connection.", ("requests/adapters.py",)),
    ("Release the pool lock before retrying",
     "Retrying while holding the pool lock deadlocked when two threads retried at once.",
     ("requests/adapters.py",)),
    ("Skip an empty NO_PROXY list",
     "Fix\nAn empty NO_PROXY variable made every host bypass the proxy.\n[1] [2]\nCloses",
     ("requests/utils.py",)),
    ("Quote the URL path before matching proxy rules (#184)",
     "Quote the URL path before matching proxy rules\n\nQuote the URL path before matching proxy "
     "rules, correct mocking in tests\n\nAn encoded slash in the path was decoded first, so "
     "the rules stopped matching.", ("requests/utils.py",)),
]
UNITS = {  # commit index -> (type, title, content, symbols)
    0: ("pattern", "Connection pool exhausted after redirects",
        "Session.send leaks connections when a redirect raises ConnectionError",
        ("Session.send",)),
    4: ("fact", "Cookies are not sent cross-domain",
        "A cookie jar must never send cookies to a different domain", ("RequestsCookieJar.set",)),
}


def sha(n: int) -> str:
    return hashlib.sha1(f"commit{n}".encode()).hexdigest()


def _commit(n: int, subject: str, body: str, files) -> Commit:
    return Commit(sha=sha(n), parents=(), author="Ada Lovelace", email="a@x",
                  timestamp=1_672_567_200 + n * 86_400,
                  date=f"2023-{1 + n % 9:02d}-1{n % 9}T10:00:00+00:00", subject=subject,
                  body=body, changes=tuple(FileChange(path=f, status="M") for f in files))


@pytest.fixture
def reader(index_dir):
    store = IndexStore(index_dir)
    commits = [_commit(n, *row) for n, row in enumerate(COMMITS)]
    units = [Unit(id=f"{n:012x}", type=t, title=title, content=content, weight=0.8,
                  context=content, commit=sha(n), author="Ada Lovelace", date=commits[n].date,
                  files=commits[n].changes[0].path and (commits[n].changes[0].path,),
                  symbols=symbols, pr=100 + n)
             for n, (t, title, content, symbols) in UNITS.items()]
    record = Record(id="pr-42", kind="pr", number=42, title="Retry idempotent requests on reset",
                    problem=Claim("Requests failed with ConnectionResetError on keep-alive",
                                  "U1"),
                    decision=(Claim("Retry idempotent requests once on a fresh connection",
                                    "U2"),),
                    fixing_commits=(sha(8),), anchors=("HTTPAdapter.send",), merged=True,
                    fix_edge_source="text", files=("requests/adapters.py",),
                    author="Grace Hopper", date=commits[8].date)
    with store.writer() as writer:
        writer.add_commits(commits)
        writer.add_units(units)
        writer.add_records([record])
    with store.reader() as r:
        yield r


@pytest.mark.parametrize("query, expected", [
    ("connection pool exhausted after redirect", 0),
    ("how do I download a large file without loading it into memory?", 1),
    ("can I give separate connect and read limits?", 2),
    ("why is my Authorization header dropped on an https to http redirect?", 3),
    ("cookies sent to another domain", 4),
    ("CaseInsensitiveDict", 7),
    ("why did two threads deadlock when retrying?", 9),
])
def test_questions_and_keywords_find_the_commit_that_answers(reader, query, expected):
    result = search(reader, query, k=3, gate=0.0)
    assert isinstance(result, SearchResult) and not result.abstained
    assert result.hits[0].commit == sha(expected), [h.title for h in result.hits]


def test_a_commit_without_units_is_found_as_a_commit_document(reader):
    hit = search(reader, "pool lock held while retrying deadlocked", k=1, gate=0.0).hits[0]
    assert hit.type == "commit" and hit.id == f"msg-{sha(9)[:12]}" and hit.commit == sha(9)
    assert hit.title == "Release the pool lock before retrying"
    assert hit.files == ("requests/adapters.py",)


def test_the_snippet_is_the_sentence_that_answers_within_the_budget(reader):
    hit = search(reader, "what leaks the credentials on redirects?", k=1, gate=0.0).hits[0]
    assert "leak the credentials on the wire" in hit.snippet
    short = search(reader, "what leaks the credentials on redirects?", k=1, gate=0.0,
                   budget=60).hits[0]
    assert len(short.snippet) <= 60 and "…" in short.snippet and "credentials" in short.snippet
    assert search(reader, "credentials redirect", k=1, gate=0.0, budget=0).hits[0].snippet == ""


def test_a_snippet_quotes_sentences_never_fragments(reader):
    """A message's one-word lines and bare link marks ("Fix", "[1] [2]", "Closes" whose issue
    number was cleaned away) answer nothing on their own and never fill a snippet."""
    hit = search(reader, "why did an empty NO_PROXY bypass the proxy?", k=1, gate=0.0).hits[0]
    assert hit.commit == sha(10)
    assert "bypass the proxy" in hit.snippet
    assert "[1]" not in hit.snippet and "Closes" not in hit.snippet
    # "Fix" alone is never quoted (the prose joins it to the line it wrapped into)
    assert not hit.snippet.startswith("Fix …") and " … Fix" not in hit.snippet


def test_a_snippet_never_says_the_same_sentence_twice(reader):
    """A squash merge repeats its subject in the body, with the PR number or a clause added:
    the snippet quotes it once and spends the room on the sentence that explains."""
    hit = search(reader, "why did an encoded slash in the URL path break proxy rules?", k=1,
                 gate=0.0).hits[0]
    assert hit.commit == sha(11)
    assert "decoded first" in hit.snippet
    assert hit.snippet.count("Quote the URL path before matching proxy rules") == 1, hit.snippet


def test_a_change_landed_twice_is_one_hit_that_names_both_commits(index_dir):
    """A cherry-pick to a release branch has the subject, files and sentences of the original:
    it is folded into the first hit's ``also``, and the k hits shown are k different changes."""
    rows = [COMMITS[3], COMMITS[3], COMMITS[4], COMMITS[0]]
    commits = [_commit(n, *row) for n, row in enumerate(rows)]
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_commits(commits)
    with store.reader() as r:
        hits = search(r, "why is my Authorization header dropped on a redirect?", k=3,
                      gate=0.0).hits
    assert len(hits) == 3
    assert {hits[0].commit, *hits[0].also} == {sha(0), sha(1)}, hits
    assert len({h.title for h in hits}) == 3


def test_a_pr_and_a_unit_of_one_of_its_commits_are_one_hit(index_dir):
    """A PR's record stands for its merge and its own commits: a unit distilled from its
    second commit is the same change, not a second hit."""
    commits = [_commit(0, "Merge pull request #7 from ada/timeouts", "Split the timeout",
                       ("requests/adapters.py",)),
               _commit(1, *COMMITS[2]), _commit(2, *COMMITS[4])]
    unit = Unit(id="u" * 12, type="fact", title="The timeout may be a (connect, read) tuple",
                content="The timeout argument may now be a (connect, read) tuple", weight=0.8,
                context="", commit=sha(1), author="Ada Lovelace", date=commits[1].date,
                files=("requests/adapters.py",))
    record = Record(id="pr-7", kind="pr", number=7, title="Accept a (connect, read) tuple",
                    decision=(Claim("Accept a (connect, read) tuple as the timeout", "U1"),),
                    fixing_commits=(sha(0), sha(1)), merged=True, fix_edge_source="text",
                    files=("requests/adapters.py",), author="Ada Lovelace",
                    date=commits[0].date)
    store = IndexStore(index_dir)
    with store.writer() as writer:
        writer.add_commits(commits)
        writer.add_units([unit])
        writer.add_records([record])
    with store.reader() as r:
        hits = search(r, "separate connect and read timeout tuple", k=5, gate=0.0).hits
    stands_for = [{h.commit, *h.also} | ({sha(0), sha(1)} if h.id == "pr-7" else set())
                  for h in hits]
    assert sum(sha(1) in change for change in stands_for) == 1, hits
    assert hits[0].id in ("pr-7", "u" * 12, f"msg-{sha(1)[:12]}")


def test_one_hit_per_commit_shown_as_its_typed_unit(reader):
    hits = search(reader, "Session.send connection pool exhausted redirect", k=10, gate=0.0).hits
    commits = [h.commit for h in hits]
    assert len(commits) == len(set(commits))
    first = hits[0]
    assert first.commit == sha(0) and first.type == "pattern"  # the labelled unit, not the message
    assert "exhausted" in first.snippet  # still quoted from the whole message


def test_record_hits_carry_their_story_and_outcome(reader):
    hits = search(reader, "ConnectionResetError keep-alive retry", k=5, gate=0.0).hits
    record = next(h for h in hits if h.id == "pr-42")
    assert record.type == "decision" and record.commit == sha(8) and record.source == "pr"
    assert record.problem == "Requests failed with ConnectionResetError on keep-alive"
    assert record.decision == ("Retry idempotent requests once on a fresh connection",)
    assert record.outcome == "landed"


def test_hits_link_by_the_link_rule(reader):
    class Links:
        def commit(self, sha):
            return f"https://example.com/c/{sha}"

        def pr(self, n):
            return f"https://example.com/pull/{n}"

        def issue(self, n):
            return f"https://example.com/issues/{n}"

    hits = search(reader, "ConnectionResetError keep-alive retry", k=5, gate=0.0,
                  links=Links()).hits
    assert next(h for h in hits if h.id == "pr-42").url == "https://example.com/pull/42"
    doc = search(reader, "pool lock deadlocked retrying", k=1, gate=0.0, links=Links()).hits[0]
    assert doc.url == f"https://example.com/c/{sha(9)}"
    assert search(reader, "pool lock deadlocked", gate=0.0).hits[0].url is None


def test_context_raises_knowledge_anchored_where_the_caller_is(reader):
    query = "connection problems"
    plain = [h.commit for h in search(reader, query, k=10, gate=0.0).hits]
    here = SearchContext(paths=("requests/adapters.py",))
    boosted = [h.commit for h in search(reader, query, k=10, gate=0.0, context=here).hits]
    adapters = {sha(2), sha(8), sha(9)}
    assert boosted[0] in adapters
    assert sum(c in adapters for c in boosted[:3]) >= sum(c in adapters for c in plain[:3])
    on_symbol = SearchContext(symbols=("Session.send",))
    assert search(reader, query, k=1, gate=0.0, context=on_symbol).hits[0].commit == sha(0)


def test_recency_breaks_ties_between_equal_documents(index_dir):
    store = IndexStore(index_dir / "tie")
    twins = [_commit(n, "Handle empty chunk in decoder", "An empty chunk stopped the decoder.",
                     ("a/decoder.py",)) for n in (1, 5)]
    with store.writer() as writer:
        writer.add_commits(twins)
    with store.reader() as r:
        hits = search(r, "empty chunk decoder", k=2, gate=0.0).hits
    # the newer one is shown; the same change landed earlier is folded into it
    assert [(h.commit, h.also) for h in hits] == [(sha(5), (sha(1),))]


@pytest.mark.parametrize("query", [
    "how do I center a div with flexbox?",
    "what is a good hydration for sourdough bread?",
    "the and of to",
    "?!...",
    "",
    "   ",
])
def test_abstains_on_what_the_history_cannot_answer(reader, query):
    result = search(reader, query)
    assert result.abstained and result.hits == []


def test_confidence_is_the_fitted_gate_of_the_rankings_features(reader):
    """The gate's formula (bench/calibrate_gate.py fits it): changing its inputs must fail here,
    not silently move the threshold."""
    query = "why is my Authorization header dropped on redirect?"
    ranking = rank(reader, query)
    assert set(ranking.features) == set(gates.FEATURES)
    result = search(reader, query, gate=0.0)
    assert result.confidence == pytest.approx(gates.confidence(ranking.features))
    assert 0.0 < GATE < 1.0


@pytest.mark.parametrize("query", ["x" * 10_000, "é" * 3000 + " redirect", "😀 🚀 ✨",
                                   "Session.send() -> ConnectionError: [Errno 111]"])
def test_odd_queries_never_raise(reader, query):
    result = search(reader, query, gate=0.0)
    assert isinstance(result, SearchResult)


def test_filters_pass_through(reader):
    assert search(reader, "redirect", types=["skill"], gate=0.0).abstained
    hits = search(reader, "redirect", path="requests/sessions.py", gate=0.0).hits
    assert hits and all("requests/sessions.py" in h.files for h in hits)
    assert search(reader, "redirect", author="nobody", gate=0.0).abstained
    commits_only = search(reader, "redirect", types=["commit"], gate=0.0).hits
    assert commits_only and {h.type for h in commits_only} == {"commit"}


def test_beside_the_best_sentence_a_snippet_skips_two_word_lines():
    """A squash PR's body of bullet subjects ("Stay safe", "Add test") fills no snippet; a best
    sentence that short is still quoted (it may be all there is)."""
    from whylens.retrieval.snippets import pack

    group = ["Allow for users who have disabled certificate checks in dev.",
             "Avoid repeated calls", "Stay safe", "Add test"]
    text = pack(group, [0.9, 0.3, 0.2, 0.1], [], 256)
    assert "Avoid repeated calls" in text and "certificate checks" in text
    assert "Stay safe" not in text and "Add test" not in text
    assert pack(["Certificate pinning.", "Add test"], [0.5, 0.1], [], 256) == "Certificate pinning."


def test_a_snippet_leaves_out_what_its_title_says():
    """The title is printed above the snippet: a sentence whose words it holds (the subject,
    or the subject and a PR number) is left out while another can be shown; a line of issue
    references never fills a snippet; a title that only opens a longer sentence has its rest
    printed first."""
    from whylens.retrieval.snippets import pack

    title = "Ignore Object.prototype values in settings"
    group = [title + " (#4803)", "closes #4802 closes #4803",
             "app.get('constructor') returned a function from the prototype chain."]
    text = pack(group, [0.9, 0.5, 0.4], [], 256, title=title)
    assert text == group[2]
    assert pack(group[:2], [0.9, 0.5], [], 256, title=title) == group[0]  # all there is
    cut = "app.get('constructor') returned a function from…"
    assert pack(group, [0.9, 0.5, 0.4], [], 256, title=cut) == (
        f"…the prototype chain. … {group[0]}")  # the rest of the sentence the title cut, first


def test_a_word_in_no_document_and_no_dictionary_is_foreign(reader):
    """A never-happened question names what the project never did ("WebSocket": its parts may
    be indexed, the word is not); a user's own plain words ("quickly") are not foreign."""
    terms = {t.group.raw: t for t in reader.query_terms("WebSocket CaseInsensitiveDict quickly")}
    assert terms["WebSocket"].whole_df == 0 and terms["CaseInsensitiveDict"].whole_df > 0
    named = rank(reader, "can the pool keep a WebSocket connection open?").features
    plain = rank(reader, "why is the connection pool exhausted so quickly?").features
    assert named["foreign"] > 0.2
    assert plain["foreign"] == 0.0 and plain["unknown"] > 0.0
    assert gates.confidence(named) < gates.confidence(
        {**named, "foreign": 0.0})  # the fitted gate holds it against the question


def test_the_best_hits_of_a_real_question_share_its_rare_words(reader):
    """Query clarity (``shared``): the best hits of a question about this history hold its rare
    words together; those of a generic one each hold a different common word. The fitted gate
    reads more agreement as more confidence."""
    real = rank(reader, "why did the pool lock deadlock while retrying?").features
    generic = rank(reader, "how do I make the server read a file faster?").features
    assert real["shared"] > 1.5 * generic["shared"] > 0.0, (real["shared"], generic["shared"])
    assert gates.confidence({**generic, "shared": real["shared"]}) > gates.confidence(generic)
