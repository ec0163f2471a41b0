"""Text and path helpers shared by why / pitfalls / review."""

from __future__ import annotations

import pytest

from whylens.errors import InvalidInputError
from whylens.retrieval.paths import repo_relative
from whylens.retrieval.text import (
    code_span_identifiers, content_words, distinctive, identifier_hits, identifiers,
    path_suffix_match, relative_age, split_identifier,
)


@pytest.mark.parametrize("name,parts", [
    ("getHTTPResponse_code", ["get", "http", "response", "code"]),
    ("Session.send", ["session", "send"]),
    ("max_retries", ["max", "retries"]),
])
def test_split_identifier(name, parts):
    assert split_identifier(name) == parts


def test_identifiers_and_hits():
    prose = "Calling `pool.get()` while holding self._lock deadlocks; see e.g. sessions.py and ValueError."
    found = identifiers(prose)
    assert {"pool.get", "self._lock"} <= found
    assert "e.g" not in found and "sessions.py" not in found
    assert code_span_identifiers(prose) == {"pool.get"}
    assert identifier_hits({"pool.get"}, {"self.pool.get"}) == ["pool.get"]
    assert identifier_hits({"get"}, {"self.pool.get"}) == []
    assert not distinctive("ValueError") and not distinctive("items") and distinctive("maxRetries")
    assert "traceback" not in content_words("Traceback (most recent call last)")


@pytest.mark.parametrize("seconds,text", [
    (3600, "under a day ago"), (86_400, "1 day ago"), (15 * 86_400, "2 weeks ago"),
    (65 * 86_400, "2 months ago"), (800 * 86_400, "2 years ago"), (-50, "under a day ago"),
])
def test_relative_age(seconds, text):
    assert relative_age(1_000_000_000, 1_000_000_000 + seconds) == text


def test_path_suffix_match():
    assert path_suffix_match("/home/u/proj/src/pool.py", "src/pool.py")
    assert path_suffix_match("C:\\work\\src\\pool.py", "src/pool.py")
    assert not path_suffix_match("/x/mysrc/pool.py", "src/pool.py")


def test_repo_relative(tmp_path):
    root = tmp_path / "repo"
    (root / "a").mkdir(parents=True)
    assert repo_relative(root / "a" / "b.py", root) == "a/b.py"
    assert repo_relative("./a//b.py", root) == "a/b.py"
    assert repo_relative("a/../c.py", root) == "c.py"
    for bad in ("../x.py", str(tmp_path / "other.py"), "", ".", "a\x00b"):
        with pytest.raises(InvalidInputError):
            repo_relative(bad, root)
    with pytest.raises(InvalidInputError):
        repo_relative("/abs/path.py", None)
