"""A sentence about one of the functions its commit changed is shown on that function's card
only (knowledge.ties), for units and record claims alike, on a real indexed repository."""

from __future__ import annotations

from whylens.index.store import IndexStore
from whylens.knowledge.ties import code_words, names_by_symbol, tied_symbols
from whylens.models import SymbolEvent
from whylens.pipeline import run_index
from whylens.render.rationale import rationale
from whylens.retrieval.why import why

NOW = 1_900_000_000.0

STRINGS = """\
#include <stddef.h>

size_t string_append(char *out, size_t currlen, const char *in, size_t len) {
    return currlen + len;
}

char *string_implode(char **parts, int count) {
    return parts[0];
}
"""

CHANGED = STRINGS.replace(
    "    return currlen + len;",
    "    if (len > SIZE_MAX / 2 - currlen)\n        return 0;\n    return currlen + len;",
).replace("    return parts[0];", "    if (count == 0)\n        return NULL;\n    return parts[0];")

BOUND = ("On 32-bit platforms size_t wraps when currlen and len are added, because both may be "
         "close to SIZE_MAX, so the sum must be checked before the buffer is grown.")
EMPTY = ("An empty list of parts must return NULL rather than the first element, because callers "
         "test the result before they read it.")


def test_tied_symbols_names_changed_lines_and_name_parts():
    names = {"jvp_string_append": frozenset({"size_t", "cur_len", "SIZE_MAX"}),
             "jv_string_implode": frozenset({"jv_array_length", "count", "size_t"})}
    assert tied_symbols("On 32-bit builds cur_len overflows", names) == ("jvp_string_append",)
    assert tied_symbols("string_append must check the length", names) == ("jvp_string_append",)
    assert tied_symbols("size_t is 32 bits wide there", names) == ()  # in both: says no more
    assert tied_symbols("Fix a crash on long strings", names) == ()  # names neither
    assert tied_symbols("cur_len and jv_array_length", names) == ()  # names both: no tie
    assert tied_symbols("cur_len overflows", {"only": frozenset({"cur_len"})}) == ()
    # a type named takes its members along
    members = {"routeRegexp": frozenset(), "(*routeRegexp).Match": frozenset(),
               "(*Route).Host": frozenset()}
    assert tied_symbols("a bool is added to the routeRegexp", members) == (
        "routeRegexp", "(*routeRegexp).Match")
    # a symbol the commit added, or a test, takes no sentence from the code it changed
    events = [SymbolEvent("c", "mux.go", "(*Router).SkipClean", "added"),
              SymbolEvent("c", "mux.go", "(*Router).ServeHTTP", "body", names=frozenset({"path"})),
              SymbolEvent("c", "mux_test.go", "TestSkipClean", "body",
                          names=frozenset({"SkipClean"})),
              SymbolEvent("c", "route.go", "(*Route).Path", "body", names=frozenset({"tpl"}))]
    assert set(names_by_symbol(events)) == {"(*Router).ServeHTTP", "(*Route).Path"}
    assert tied_symbols("This adds a SkipClean option so that this path is not redirected",
                        names_by_symbol(events)) == ()
    assert code_words("Use req.query, parse() and maxRedirects; e.g. utf8") == {
        "req", "query", "parse", "maxRedirects", "utf8"}


def test_a_sentence_is_shown_only_on_the_function_its_changed_lines_name(make_repo, tmp_path):
    repo = make_repo()
    repo.commit("Add string helpers", {"src/strings.c": STRINGS})
    repo.commit(f"Guard the string helpers\n\n{BOUND}\n\n{EMPTY}", {"src/strings.c": CHANGED})
    run_index(repo.root, tmp_path / "index")
    with IndexStore(tmp_path / "index").reader() as reader:
        append = reader.units_for_symbol("string_append", path="src/strings.c")
        implode = reader.units_for_symbol("string_implode", path="src/strings.c")
        cards = {name: rationale(why(reader, "src/strings.c", symbol=name, repo_root=repo.root,
                                     now=NOW), max_chars=None)
                 for name in ("string_append", "string_implode")}
    assert any("SIZE_MAX" in u.content for u in append)
    assert not any("SIZE_MAX" in u.content for u in implode)
    assert "SIZE_MAX" not in cards["string_implode"]
    assert "NULL" not in cards["string_append"]
