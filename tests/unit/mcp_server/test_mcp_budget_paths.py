"""The token budget (items kept as a prefix, the structured lists trimmed to match) and path
confinement, on their own."""

from __future__ import annotations

import os

import pytest

from whylens.errors import InvalidInputError
from whylens.mcp.budget import MAX_TOKENS, MIN_TOKENS, Item, char_budget, fit, trim
from whylens.mcp.paths import PathOutsideError, confine


def test_char_budget():
    assert char_budget(None) == 800 * 4
    assert char_budget(1) == MIN_TOKENS * 4 and char_budget(10_000_000) == MAX_TOKENS * 4
    for bad in (0, -1):
        with pytest.raises(InvalidInputError, match="max_tokens must be 1 or more"):
            char_budget(bad)


def _items(n: int, width: int = 50) -> list[Item]:
    return [Item("history" if i % 2 else "units", i // 2, f"- item {i} " + "x" * width)
            for i in range(n)]


def test_everything_fits_when_the_budget_allows():
    fitted = fit("header", _items(6), 10_000, headings={"units": "**U**", "history": "**H**"})
    assert fitted.omitted == 0 and fitted.kept == {"units": [0, 1, 2], "history": [0, 1, 2]}
    assert fitted.text.split("\n")[:4] == ["header", "", "**U**", _items(6)[0].text]


@pytest.mark.parametrize("limit", [120, 200, 333, 500])
def test_a_prefix_is_kept_and_the_rest_counted(limit):
    items = _items(10)
    fitted = fit("header", items, limit, headings={"units": "**U**", "history": "**H**"})
    assert len(fitted.text) <= limit
    kept = sum(len(v) for v in fitted.kept.values())
    assert fitted.omitted == 10 - kept and fitted.text.endswith(f"… {10 - kept} more (raise max_tokens)")
    shown = [line for line in fitted.text.split("\n") if line.startswith("- item")]
    assert sorted(shown) == sorted(i.text for i in items[:kept])  # the most useful first


def test_trim_keeps_the_same_entries_as_the_text():
    data = {"units": ["u0", "u1", "u2"], "history": ["h0", "h1", "h2"], "path": "a.py"}
    fitted = fit("header", _items(6), 240)
    trimmed = trim(data, fitted, ("units", "history"))
    assert trimmed["units"] == ["u0", "u1", "u2"][:len(fitted.kept.get("units", []))]
    assert trimmed["path"] == "a.py" and trimmed["omitted"] == fitted.omitted
    assert data["units"] == ["u0", "u1", "u2"]  # the builder's dict is not changed


def test_an_over_long_header_is_shortened_not_the_budget_broken():
    fitted = fit("h" * 5000, _items(3), 256)
    assert len(fitted.text) <= 256 and fitted.omitted == 3


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x = 1\n")
    outside = tmp_path / "outside.py"
    outside.write_text("secret = 1\n")
    (root / "out.py").symlink_to(outside)
    (root / "in.py").symlink_to(root / "src" / "a.py")
    (root / "up").symlink_to(tmp_path, target_is_directory=True)
    return root, outside


def test_paths_inside_are_made_repository_relative(tree):
    root, _ = tree
    assert confine(root, "src/a.py") == "src/a.py"
    assert confine(root, "./src//a.py") == "src/a.py"
    assert confine(root, "src/../src/a.py") == "src/a.py"
    assert confine(root, str(root / "src" / "a.py")) == "src/a.py"
    assert confine(root, "in.py") == "in.py"
    assert confine(root, "src/not_there_yet.py") == "src/not_there_yet.py"


@pytest.mark.parametrize("path, symlink", [
    ("../outside.py", False), ("src/../../outside.py", False), ("/etc/passwd", False),
    ("out.py", True), ("up/outside.py", True), ("up/repo/../outside.py", True),
])
def test_paths_that_leave_are_refused(tree, path, symlink):
    root, _ = tree
    with pytest.raises(PathOutsideError, match="outside the repository") as caught:
        confine(root, path)
    assert ("symlink" in str(caught.value)) == symlink


def test_empty_and_nul_paths(tree):
    root, outside = tree
    for bad in ("", "   ", "a\x00b"):
        with pytest.raises(InvalidInputError, match="empty"):
            confine(root, bad)
    with pytest.raises(PathOutsideError):
        confine(root, os.fspath(outside))
