"""A squash merge's follow-up commits speak for a symbol only where they name it.

GitHub squashes a pull request into one commit whose body lists its commits, "* subject" then
that commit's body. The first is the pull request's change; each later one changed some of the
symbols, and which is not known. cobra #1957 (six commits, "Micro-optimizations") showed "The
target is not to be changed while outputting completions, ..." on `OnlyValidArgs` and
`findSuggestions`, which only got the string-split and the strings.Builder commits.
"""

from __future__ import annotations

import pytest

from whylens.index.store import IndexStore
from whylens.knowledge.sentences import commit_sentences, squash_parts
from whylens.models import Commit
from whylens.pipeline import run_index
from whylens.render.rationale import rationale
from whylens.retrieval.why import why

NOW = 1_800_000_000.0
SPLIT = ("There likely isn't actually more than once to split in the source strings in these "
         "cases, but avoid doing so anyway as we're only interested in the first.")
TARGET = "The target is not to be changed while outputting completions, so resolve it only once."
BUILDER = ("findSuggestions concatenated its result in a loop, which copies the string on every "
           "suggestion, so it now writes to a strings.Builder.")
MESSAGE = (  # cobra 3d8ac43, its last commit given a body that names the function it changed
    "Micro-optimizations (#1957)\n\n* Avoid redundant string splits\n\n"
    "There likely isn't actually more than once to split in the source\nstrings in these cases, "
    "but avoid doing so anyway as we're only\ninterested in the first.\n\n"
    "* Avoid redundant completion output target evaluations\n\n"
    "The target is not to be changed while outputting completions, so resolve\nit only once.\n\n"
    "* Preallocate some slices and maps with known size\n\n"
    f"* Use strings.Builder to construct suggestions\n\n{BUILDER}\n")
GO = """package cobra

import "strings"

func OnlyValidArgs(valid []string, arg string) bool {
	for _, v := range valid {
		if strings.Split(v, "\\t")[0] == arg {
			return true
		}
	}
	return false
}

func findSuggestions(names []string) string {
	out := ""
	for _, n := range names {
		out += n + "\\n"
	}
	return out
}

func initCompleteCmd(comps []string, w func(string)) {
	for _, c := range comps {
		w(strings.Split(c, "\\t")[0])
	}
}
"""
GO2 = GO.replace('strings.Split(v, "\\t")[0]', 'strings.SplitN(v, "\\t", 2)[0]').replace(
    '	out := ""\n	for _, n := range names {\n		out += n + "\\n"\n	}\n	return out\n',
    '	var sb strings.Builder\n	for _, n := range names {\n		sb.WriteString(n + "\\n")\n'
    '	}\n	return sb.String()\n').replace(
    "	for _, c := range comps {\n		w(strings.Split(c, \"\\t\")[0])\n",
    "	out := w\n	for _, c := range comps {\n		out(strings.SplitN(c, \"\\t\", 2)[0])\n")


def _commit(message: str, pr: int | None = 1957) -> Commit:
    subject, _, body = message.partition("\n\n")
    return Commit(sha="0" * 40, parents=("1" * 40,), author="a", email="a@example.com",
                  timestamp=0, date="2023-11-23", subject=subject, body=body, pr=pr)


def test_the_commits_a_squash_body_lists_are_told_apart():
    parts = {s.clean: s.part for s in commit_sentences(_commit(MESSAGE))}
    assert parts[SPLIT] == 0 and parts[TARGET] == 1 and parts[BUILDER] == 3
    assert len(squash_parts(MESSAGE.partition("\n\n")[2])) == 4


@pytest.mark.parametrize("body", [
    "* one point\n* another point\n",  # a plain list: no blank line between its points
    "Some prose.\n\n* a single listed commit\n\nIts body.\n",  # one commit
    "* a point that\n  wraps onto a second line\n\n* and another that\n  wraps too\n",
])
def test_a_body_that_lists_no_commits(body):
    assert squash_parts(body) == []
    assert {s.part for s in commit_sentences(_commit(f"Subject (#1)\n\n{body}"))} == {0}


def test_without_a_pull_request_number_it_is_no_squash_merge():
    assert {s.part for s in commit_sentences(_commit(MESSAGE, pr=None))} == {0}


@pytest.fixture(scope="module")
def cards(tmp_path_factory):
    from tests.conftest import init_repo

    root = tmp_path_factory.mktemp("squash")
    repo = init_repo(root / "repo")
    repo.commit("Add completions", {"args.go": GO})
    repo.commit(MESSAGE, {"args.go": GO2})
    index = root / "index"
    run_index(repo.root, index)
    reader = IndexStore(index).reader()
    yield lambda symbol: rationale(why(reader, "args.go", symbol=symbol, repo_root=repo.root,
                                       now=NOW), max_chars=None)
    reader.close()


def test_a_follow_up_commit_is_shown_only_where_it_names_the_symbol(cards):
    for symbol in ("OnlyValidArgs", "findSuggestions", "initCompleteCmd"):
        assert "The target is not to be changed" not in cards(symbol), cards(symbol)
    assert "findSuggestions concatenated its result" in cards("findSuggestions")
    assert "findSuggestions concatenated its result" not in cards("OnlyValidArgs")


def test_the_first_listed_commit_speaks_for_the_whole_change(cards):
    for symbol in ("OnlyValidArgs", "initCompleteCmd"):
        assert "There likely isn't actually more than once to split" in cards(symbol), cards(symbol)
