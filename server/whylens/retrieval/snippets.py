"""Answer sentences: for each hit, the sentence(s) of its history that answer the question.

Picked at query time from the hit's commit message (its commit document: the subject and the
search prose), or for a record from its problem, cause, decision and rejected claims and its
fixing commits' messages. Each sentence is scored by how much of the question it holds (idf-weighted
coverage of the query's words) and by meaning (cosine to the question, when the index has
vectors), mixed with ``SENTENCE_LEXICAL``, plus ``NOVEL`` × the question's words it holds that
the title does not (the title is printed above the snippet; tune, in-sample: the answer sentence
in the first 256 printed characters 0.283 -> 0.309), less ``ENTRY_MARGIN`` for a line of an
appended changelog entry (the message's own sentence wins a near tie), plus ``REASON`` for a
sentence that gives a cause or motive when the question asks why or states a symptom (round 30).
The budget is filled best sentence first
(measured on the tune half: filling it finds the labelled answer sentence of the right commit
79% of the time, the single best sentence 46%, the message's first sentences 62%), skipping a
sentence that repeats one already taken and, beside the best, one of fewer than three words;
they are shown in the message's order. A best sentence longer than the budget is cut around
the words the question shares with it. The title is printed above the snippet (`whylens search`,
MCP), so a sentence the title opens (a unit's title cut with "…") is printed as its rest, first,
and a sentence the title already says and a line of issue references take no room (tune
half, in-sample: the answer sentence in the first 256 printed characters 0.250 -> 0.289), and
neither does a squashed PR's step line ("Update errors_test.go", ``steps.is_step``) while a
sentence that explains is left (tune, in-sample: step lines in the printed snippets 59 -> 2,
the answer sentence shown at 256 / 512 / 1024 printed characters unchanged).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from whylens.index.analysis import text_terms
from whylens.index.commitdocs import doc_id
from whylens.index.prose import sentences
from whylens.knowledge.cues import CAUSE, MOTIVE
from whylens.models import COMMIT_TYPE, Record, Unit
from whylens.retrieval.query import QueryPlan
from whylens.retrieval.steps import is_step

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader, QueryTerm

MAX_SENTENCES = 30  # per hit: a long essay of a message is read from its start
MAX_RECORD_COMMITS = 3
ELLIPSIS = " … "
MIN_EXTRA_WORDS = 3  # a sentence beside the best one needs this many words
SENTENCE_LEXICAL = 0.3  # a sentence's score: this share of coverage, the rest meaning
# plus this much of the question's words (idf share) it holds and the title does not: the title
# is printed above it, so such a sentence answers more of the question (tune, in-sample: see
# docs/benchmarks.md, issue 12, round 12)
NOVEL = 0.5
# an appended changelog entry's line ranks this much below a message sentence of equal score:
# the message's own words first, the entry when it says more (tune, the right commit's block
# holding the answer, 114 labelled + 76 semantic-dev questions: 0.01 changes none, 0.02-0.1
# lose express-q11's "Finally, the app.router getter has been removed.")
ENTRY_MARGIN = 0.01
# a sentence that gives a reason (``states_reason``) gains this much when the question asks why
# or states a symptom (``QueryPlan.asks_reason``): such an answer often shares no word with the
# question and sits below a sentence restating the topic. It orders a hit's sentences only,
# never the hits (tune, in-sample, 152 answerable questions, bench/tune_reason.py: the answer
# in the first 256 printed characters, gate off, 0 / 0.05 / 0.1 / 0.15 / 0.2 / 0.3 -> 56 / 57 /
# 57 / 57 / 58 / 58; docs/benchmarks.md, issue 12, round 30)
REASON = 0.2
_MERGE = re.compile(r"^Merge (?:pull request|branch|remote-tracking branch|tag) ", re.I)
_LETTERS = re.compile(r"[^\W\d_]+")
_WORD = re.compile(r"[^\W_]+")
_ISSUE_REF = re.compile(r"#\d+")
_REF_WORDS = frozenset("""close closes closed fix fixes fixed resolve resolves resolved ref refs
see issue issues pr and also related to""".split())


def is_fragment(sentence: str) -> bool:
    """A line that answers nothing on its own: no words ("[1] [2]", "---") or a single Latin
    word ("Fix", "Closes" whose issue number was cleaned away). A run of CJK text is a sentence."""
    runs = _LETTERS.findall(sentence)
    return not runs or (len(runs) == 1 and runs[0].isascii())


def is_reference(sentence: str) -> bool:
    """A line of issue references only ("closes #4802 closes #4803"): never worth a snippet's
    room (it stays a candidate sentence: the second stage's features count it)."""
    return bool(_ISSUE_REF.search(sentence)) and all(
        r.lower() in _REF_WORDS for r in _LETTERS.findall(sentence))


def candidate_sentences(reader: IndexReader, item: Unit | Record) -> list[str]:
    """The sentences a hit can be quoted by, in message order, without repeats."""
    out: list[str] = []
    if isinstance(item, Record):
        out.append(item.title)
        claims = ([item.problem] if item.problem else []) + [*item.cause, *item.decision,
                                                             *item.rejected]
        out += [c.text for c in claims]
        docs = reader.load_items([doc_id(sha) for sha in item.fixing_commits[:MAX_RECORD_COMMITS]])
        for doc in docs.values():
            if isinstance(doc, Unit):
                out += sentences(doc.title, doc.content)
    else:
        doc = item if item.type == COMMIT_TYPE else reader.load_items(
            [doc_id(item.commit)]).get(doc_id(item.commit))
        if isinstance(doc, Unit):
            out += sentences(doc.title, doc.content)
        else:  # a unit of a commit the filters left out: its own words
            out += [s for s in (item.title, item.content) if s]
    kept = (s.strip() for s in out
            if s and s.strip() and not _MERGE.match(s.strip()) and not is_fragment(s))
    return list(dict.fromkeys(kept))[:MAX_SENTENCES]


def entry_lines(reader: IndexReader, items: list[Unit | Record]) -> list[frozenset[str]]:
    """Per item, the sentences of its commit documents that come from a changelog entry its
    commit added, not from the message (``commitdocs``)."""
    shas = [commits_of(item) for item in items]
    found = reader.entry_lines([sha for group in shas for sha in group])
    return [frozenset().union(*(found.get(sha, frozenset()) for sha in group)) for group in shas]


def commits_of(item: Unit | Record) -> list[str]:
    """The commits whose documents ``candidate_sentences`` reads for ``item``."""
    if isinstance(item, Record):
        return list(item.fixing_commits[:MAX_RECORD_COMMITS])
    return [item.commit] if item.commit else []


def states_reason(sentence: str) -> bool:
    """Does the sentence give a cause or a motive ("because", "caused by", "so that", "the
    primary motivation ...": ``cues.CAUSE`` or ``cues.MOTIVE``)?"""
    return bool(CAUSE.search(sentence) or MOTIVE.search(sentence))


def reason_bonus(q: QueryPlan) -> float:
    """What a reason sentence gains for this question: ``REASON`` for a why- or
    symptom-question, else nothing."""
    return REASON if q.asks_reason else 0.0


def sentence_scores(terms: list[QueryTerm], group: list[str], cosines: list[float], title: str,
                    appended: frozenset[str] = frozenset(), reason: float = 0.0) -> list[float]:
    """Each sentence's score: ``SENTENCE_LEXICAL`` × coverage + the rest × its cosine, plus
    ``NOVEL`` × the question's words it holds beyond the title's, plus ``reason`` when it
    gives a reason, less ``ENTRY_MARGIN`` for a line of an appended changelog entry."""
    total = sum(t.idf for t in terms)
    title_words = vocabulary(title) if title else frozenset()
    beyond = [t for t in terms if not holds(t, title_words)]
    share = sum(t.idf for t in beyond) / total if total > 0 else 0.0
    out = []
    for s, c in zip(group, cosines):
        score = SENTENCE_LEXICAL * coverage(terms, s) + (1 - SENTENCE_LEXICAL) * c
        if beyond:
            score += NOVEL * share * coverage(beyond, s)
        if reason and states_reason(s):
            score += reason
        out.append(score - (ENTRY_MARGIN if s in appended else 0.0))
    return out


def snippets(reader: IndexReader, q: QueryPlan, items: list[Unit | Record], budget: int
             ) -> list[str]:
    """One snippet per item, scoring its sentences here (``rerank`` has them already scored
    for the hits it re-ordered: ``pack`` those directly)."""
    if budget < 1:
        return ["" for _ in items]
    terms = reader.query_terms(q.lexical)
    groups = [candidate_sentences(reader, item) for item in items]
    cosines = sentence_cosines(reader, q, [s for group in groups for s in group])
    reason = reason_bonus(q)
    out, offset = [], 0
    for item, group, appended in zip(items, groups, entry_lines(reader, items)):
        scores = sentence_scores(terms, group, cosines[offset:offset + len(group)], item.title,
                                 appended, reason)
        offset += len(group)
        out.append(pack(group, scores, terms, budget, title=item.title))
    return out


def sentence_cosines(reader: IndexReader, q: QueryPlan, texts: list[str]) -> list[float]:
    """Cosine of each text with the question (zeros when the index has no vectors)."""
    index = reader.vector_index()
    if index is None or not texts:
        return [0.0] * len(texts)
    query = index.embed_query(q.meaning)
    return [float(v) for v in index.encoder.embed(texts) @ query]


def coverage(terms: list[QueryTerm], sentence: str) -> float:
    """Idf-weighted share of the query's words that ``sentence`` holds (0..1)."""
    total = sum(t.idf for t in terms)
    if total <= 0 or not sentence:
        return 0.0
    held = vocabulary(sentence)
    return sum(t.idf for t in terms if holds(t, held)) / total


@lru_cache(maxsize=8_192)
def vocabulary(sentence: str) -> frozenset[str]:
    """A sentence's index terms (read once: its coverage is computed for the whole question
    and for the words beyond the title, in both stages)."""
    return frozenset(text_terms(sentence))


def holds(term: QueryTerm, terms: frozenset[str]) -> bool:
    """Is the query word among ``terms`` (a compound: all its parts are)?"""
    return term.group.whole in terms or bool(
        term.group.parts and all(p in terms for p in term.group.parts))


def pack(group: list[str] | tuple[str, ...], scores: list[float] | tuple[float, ...],
         terms: list[QueryTerm], budget: int, title: str = "") -> str:
    """The best sentences that fit ``budget`` characters, taken best first and shown in the
    message's order, joined by an ellipsis; a best sentence longer than the budget is cut
    around the question's words. A squashed PR's step line is left out while a sentence that
    explains is there, and so is a sentence that ``title`` (printed above the snippet) already
    says; a line of issue references always."""
    said = said_by(title, group)
    useful = [i for i in range(len(group)) if not is_reference(group[i])]
    explaining = [i for i in useful if not is_step(group[i])]
    kept = [i for i in explaining if i not in said] or explaining or useful
    shown = [continued(title, group[i]) for i in kept]
    opened = {n for n, (text, i) in enumerate(zip(shown, kept)) if text != group[i]}
    group, scores = shown, [scores[i] for i in kept]
    if not group or budget < 1:
        return ""
    order = sorted(range(len(group)), key=lambda i: (-scores[i], i))
    if len(group[order[0]]) > budget:
        return window(group[order[0]], terms, budget)
    chosen: list[int] = []
    kept_words: list[set[str]] = []
    used = 0
    for i in order:
        cost = len(group[i]) + (len(ELLIPSIS) if chosen else 0)
        if used + cost > budget:
            continue
        words = set(_WORD.findall(group[i].lower()))
        if any(repeats(words, other) for other in kept_words):
            continue
        if chosen and len(_LETTERS.findall(group[i])) < MIN_EXTRA_WORDS:
            continue  # "Add test", "Stay safe": a squash PR's bullet subjects say nothing alone
        chosen.append(i)
        kept_words.append(words)
        used += cost
    # the sentence the title opens continues the title line, so it comes first
    return ELLIPSIS.join(group[i] for i in sorted(chosen, key=lambda i: (i not in opened, i)))


def continued(title: str, sentence: str) -> str:
    """``sentence`` as printed under ``title``: when the title opens it (a unit's title is its
    first sentence, cut with "…" past ``TITLE_CHARS``), only the rest, after "…" when the title
    was cut; else the sentence whole. Nothing is dropped that the reader has not just read."""
    cut = title.endswith("…")
    head = title[:-1].rstrip() if cut else title.rstrip(" .")
    if len(_LETTERS.findall(head)) < 2 or not sentence.lower().startswith(head.lower()):
        return sentence
    rest = sentence[len(head):]
    if rest[:1].isalnum():  # "Fix cache" does not open "Fix caches for …"
        return sentence
    rest = rest.lstrip(" .,;:-—")
    if not _LETTERS.search(rest):
        return sentence
    return f"…{rest}" if cut else rest


def said_by(title: str, group: list[str] | tuple[str, ...]) -> set[int]:
    """Indexes of the sentences the title already says: all their words but numbers are in
    it (the subject again, or with "(#5797)" added), so the reader sees them on the title
    line. A longer sentence that the title only opens (a fact's title cut with "…") is kept."""
    have = set(_WORD.findall(title.lower()))
    out = set()
    for n, sentence in enumerate(group):
        words = {w for w in _WORD.findall(sentence.lower()) if not w.isdigit()}
        if have and words and words <= have:
            out.add(n)
    return out


def repeats(words: set[str], other: set[str]) -> bool:
    """Does one sentence say again what the other says: a squash merge's subject repeated in
    its body, with the PR number or a clause added ("Add X" / "Add X (#184)" / "Add X, fix
    tests")? At least 80% of the shorter one's words are in the longer."""
    shorter = min(len(words), len(other))
    return shorter > 0 and len(words & other) >= 0.8 * shorter


def window(sentence: str, terms: list[QueryTerm], budget: int) -> str:
    """``budget`` characters of a long sentence, starting a little before the first word the
    question shares with it; "…" marks each cut."""
    if budget <= 2:
        return sentence[:budget]
    lowered = sentence.lower()
    hits = [lowered.find(t.group.raw.lower()) for t in terms if t.group.raw]
    first = min((h for h in hits if h >= 0), default=0)
    start = max(0, min(first - budget // 4, len(sentence) - (budget - 2)))
    if start > 0:
        space = sentence.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    text = sentence[start:]
    head = "…" if start > 0 else ""
    room = budget - len(head)
    if len(text) > room:
        cut = text[: room - 1]
        cut = cut[: cut.rfind(" ")] if " " in cut[room // 2:] else cut
        text = cut.rstrip(" ,;:") + "…"
    return head + text
