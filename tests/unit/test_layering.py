"""The package layout's rules, checked on the source: one-way imports, third parties in one place."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "whylens"

# Down this list only: a module never imports from a layer listed after its own.
LAYERS = ["models", "errors", "markup", "config", "progress", "gitcli", "locate", "semantic",
          "history", "knowledge", "symbols", "anchor_worker", "records", "index", "pipeline", "retrieval", "render",
          "lsp", "cli", "mcp"]
# Third-party packages and the only layer allowed to import them (the MCP SDK and what it brings
# are an optional extra: nothing else may need them; nor may onnxruntime, semantic/'s extra).
OWNERS = {"git": "history", "tree_sitter": "symbols", "tree_sitter_language_pack": "symbols",
          "whoosh": "index", "pygls": "lsp", "lsprotocol": "lsp", "mcp": "mcp",
          "mcp_types": "mcp", "pydantic": "mcp", "anyio": "mcp", "starlette": "mcp",
          "onnxruntime": "semantic"}
# The one upward import: the command that starts a layer above the CLI (inside its handler).
ENTRY_POINTS = {"cli/mcp.py": "mcp"}


def _layer(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if _layer(p) in LAYERS)
PACKAGE_ENTRIES = {"__init__", "__main__"}  # the package itself: version, `python -m whylens`


def test_every_module_belongs_to_a_layer():
    """A new top-level module must take its place in LAYERS, or its imports go unchecked."""
    loose = [p.name for p in PACKAGE.rglob("*.py")
             if _layer(p) not in LAYERS and _layer(p) not in PACKAGE_ENTRIES]
    assert not loose, f"add these to LAYERS (in import order): {loose}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down_and_third_parties_stay_home(path):
    own = _layer(path)
    problems = []
    for line, name in _imports(path):
        top = name.split(".")[0]
        if top in OWNERS and OWNERS[top] != own:
            problems.append(f"line {line}: {name} may only be imported in {OWNERS[top]}/")
        if top == "whylens" and len(name.split(".")) > 1:
            target = name.split(".")[1]
            if ENTRY_POINTS.get(str(path.relative_to(PACKAGE))) == target:
                continue
            if target in LAYERS and LAYERS.index(target) > LAYERS.index(own):
                problems.append(f"line {line}: {own} imports {name}, a layer above it")
    assert not problems, "\n".join(problems)


def test_no_module_is_far_past_the_size_budget():
    too_long = {str(p.relative_to(PACKAGE)): n for p in MODULES
                if (n := len(p.read_text(encoding="utf-8").splitlines())) > 450}
    assert not too_long, f"modules over 450 lines (budget ~400): {too_long}"


def test_entry_points_import_the_layer_above_only_when_run():
    """`whylens --help` and every other command work without the optional MCP extra."""
    for rel, target in ENTRY_POINTS.items():
        tree = ast.parse((PACKAGE / rel).read_text(encoding="utf-8"))
        top_level = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
        names = [getattr(node, "module", None) or node.names[0].name for node in top_level]
        assert not [n for n in names if n and n.startswith(f"whylens.{target}")], rel


def test_semantic_imports_only_models_and_errors_of_whylens():
    """semantic/ is shared by search, cards and review: it must not pull any of them in."""
    problems = []
    for path in sorted((PACKAGE / "semantic").rglob("*.py")):
        for line, name in _imports(path):
            parts = name.split(".")
            if parts[0] == "whylens" and len(parts) > 1 and parts[1] not in ("models", "errors",
                                                                               "semantic"):
                problems.append(f"{path.name} line {line}: {name}")
    assert not problems, "\n".join(problems)
