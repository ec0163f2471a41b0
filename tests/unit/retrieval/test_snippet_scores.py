"""A snippet's sentences are scored against what the reader does not see yet: the question's
words beyond the title count extra (the title is printed above the snippet), and a line of an
appended changelog entry gives way to the message's own sentence when they score alike."""

from __future__ import annotations

from whylens.index.analysis import word_groups
from whylens.index.reader import QueryTerm
from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.search import search
from whylens.retrieval import snippets
from whylens.retrieval.snippets import ENTRY_MARGIN, sentence_scores


def terms(text: str) -> list[QueryTerm]:
    return [QueryTerm(group=g, df=1, idf=1.0) for g in word_groups(text)]


def test_the_words_the_title_lacks_count_extra():
    title = "Replace the argument parser"
    question = terms("why replace the argument parser with a smaller dependency tree")
    group = ["The argument parser was replaced, and its tree with it.",
             "A smaller dependency tree builds faster."]
    plain = sentence_scores(question, group, [0.0, 0.0], "Refactor")
    novel = sentence_scores(question, group, [0.0, 0.0], title)
    assert plain[0] > plain[1]  # more of the question's words, the title's among them
    assert novel[1] > novel[0]  # more of what the title does not say
    assert sentence_scores(question, group, [0.0, 0.0], title, frozenset(group[1:]))[1] == (
        novel[1] - ENTRY_MARGIN)


CHANGES = "Changes\n=======\n\n"


def test_a_message_sentence_wins_over_an_appended_entry_line_saying_the_same(make_repo,
                                                                            index_dir,
                                                                            monkeypatch):
    repo = make_repo()
    repo.commit("Start the changelog", {"CHANGES.rst": CHANGES, "src/pool.py": "SIZE = 1\n"})
    line = "The zeppelin pool drains idle sockets."
    said = "The zeppelin pool drains idle sockets, as it should."  # scores a little lower
    sha = repo.commit(f"Drain idle sockets\n\n{said}\n", {
        "CHANGES.rst": CHANGES + f"-   {line}\n\n", "src/pool.py": "SIZE = 1\nIDLE = 60\n"})
    run_index(repo.root, index_dir)
    question = "does the zeppelin pool drain idle sockets"
    with IndexStore(index_dir).reader() as reader:
        assert reader.entry_lines([sha]) == {sha: frozenset({line})}
        hits = search(reader, question, k=3, gate=0.0).hits
        assert hits and hits[0].commit == sha and hits[0].snippet == said
        monkeypatch.setattr(snippets, "ENTRY_MARGIN", 0.0)  # the entry line scores higher
        assert search(reader, question, k=3, gate=0.0).hits[0].snippet == line
