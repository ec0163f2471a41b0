"""Normalised tokens and winnowed fingerprints: what counts as the same code."""

from __future__ import annotations

import random

import pytest

from whylens.retrieval.review_tokens import (
    K, WINDOW, block_starts, code_only, comment_style, cosmetic, fingerprint, fingerprint_in_context,
    tokens,
)


@pytest.mark.parametrize("line, style, expected", [
    ("    time.sleep(RETRY_DELAY)  # fixed", "hash", ["time", ".", "sleep", "(", "RETRY_DELAY", ")"]),
    ("x = 'a#b'  # comment", "hash", ["x", "=", '"a#b"']),
    ('x = "a#b"', "hash", ["x", "=", '"a#b"']),  # quote style does not matter
    ("if (a) { return b; } // why", "slash", ["if", "(", "a", ")", "{", "return", "b", ";", "}"]),
    ("  * inside a block comment", "slash", []),
    ("a = b // 2", "hash", ["a", "=", "b", "/", "/", "2"]),  # Python floor division is code
    ("See `x` # not a comment here", "none", ["See", '"x"', "#", "not", "a", "comment", "here"]),
])
def test_tokens(line, style, expected):
    assert tokens(line, style) == expected


def test_comment_style_by_file_name():
    assert comment_style("src/a.py") == "hash"
    assert comment_style("lib/router.js") == "slash"
    assert comment_style("Makefile") == "hash"
    assert comment_style("docs/index.md") == "none"


def test_whitespace_comments_and_quotes_do_not_change_fingerprints():
    a = ["def send(self, request):", "    retries = self.max_retries", "    return urlopen(request, retries)"]
    b = ["def send(self, request):  # send it", "        retries = self.max_retries",
         "", '    return urlopen(request, retries)']
    one = fingerprint(enumerate(a, 1), "a.py")
    two = fingerprint([(i, t) for i, t in enumerate(b, 1) if t], "a.py")
    assert one.keys() and one.keys() <= fingerprint(enumerate(b, 1), "a.py", winnow=False).keys()
    assert one.lines.keys() == two.lines.keys()


def test_winnowing_guarantee_any_shared_run_of_k_plus_w_minus_1_tokens_is_found():
    rng = random.Random(7)
    words = [f"name{i}" for i in range(40)]
    for _ in range(50):
        shared = " ".join(rng.choice(words) for _ in range(K + WINDOW - 1))
        left = " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
        right = " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
        inside = fingerprint([(1, f"{left} {shared} {right}")], "a.py")
        alone = fingerprint([(1, shared)], "a.py", winnow=False)
        assert set(inside.grams) & set(alone.grams)


def test_a_k_gram_of_keywords_and_operators_is_no_fingerprint():
    assert fingerprint([(1, "} else { return true; }")], "a.js", winnow=False).keys() == set()


def test_a_one_token_change_is_recognised_by_its_neighbours_blank_lines_skipped():
    lines = {1: "        elif isinstance(e, TimeoutError):", 2: "            raise Timeout(e)",
             3: "        else:", 4: "            raise e", 5: "", 6: "        r = build(request, resp)"}
    removed = fingerprint_in_context([(4, "            raise e")], lines, "adapters.py")
    moved = dict(lines) | {5: "        r = build(request, resp)", 6: ""}  # the blank line moved
    moved[7] = ""
    later = fingerprint_in_context([(4, "            raise e")], moved, "adapters.py", winnow=False)
    assert removed.keys() and removed.keys() <= later.keys()
    elsewhere = fingerprint_in_context([(2, "    raise e")], {1: "try:", 2: "    raise e", 3: "x = 1"},
                                       "other.py", winnow=False)
    assert not removed.keys() & elsewhere.keys()  # the same line in another place is not it


def test_a_hunk_in_the_middle_of_a_docstring_is_prose():
    source = ['def get(url, params=None):', '    """Send a GET request.', '',
              '    :param params: (optional) Dictionary or bytes.', '    """', '    return url']
    starts = block_starts(source, "api.py")
    assert starts == [False, False, True, True, True, False]
    old = ["    :param params: (optional) Dictionary or bytes."]
    new = ["    :param params: (optional) Dictionary, list of tuples", "        or bytes."]
    assert cosmetic(old, new, "api.py", removed_in_block=True, added_in_block=True)
    assert not cosmetic(old, new, "api.py")  # read as code, the words differ
    assert not cosmetic(["    return url"], ["    return url + params"], "api.py")


def test_code_only_leaves_out_comments_and_docstrings():
    text = '    """Must never retry.\n\n    session.get(url) says so.\n    """\n    # session.get\n' \
           '    return session.get(url)  # tail\n    log("a message in words")\n    }'
    assert code_only(text, "client.py") == '    return session.get(url)  # tail\n    log("a message in words")'
    assert code_only("/* never\n * session.get\n */\nvar a = b;", "a.js") == "var a = b;"


def test_three_quotes_in_a_row_open_no_block_outside_python():
    source = ["function link(rel) {", "  return '<' + x + '>; rel=\"' + rel + '\"';", "}", "var a = b;"]
    assert block_starts(source, "lib/response.js") == [False] * 4


def test_only_python_reads_three_quotes_as_a_block_string():
    line = "  return '<' + x + '>; rel=\"' + rel + '\"';"
    code = "function link(rel) {\n" + line + "\n  if (!rel) throw new Error('no rel');"
    # elsewhere the added code keeps every line: '"' is a string, not a docstring's quotes
    assert code_only(code, "lib/response.js") == code
    assert not cosmetic([line], [line.replace("rel +", "rel.trim() +")], "lib/response.js")
    # in Python a one-quote string is a string too: it opens no block
    source = ["def unquote(value):", "    if value[0] == value[-1] == '\"':", "        return value[1:-1]",
              "    return value"]
    assert block_starts(source, "utils.py") == [False] * 4
    assert code_only("\n".join(source), "utils.py") == "\n".join(source)
    assert not cosmetic([source[2]], ["        return value[1:-2]"], "utils.py")
