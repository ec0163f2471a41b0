"""A built or bundled file (a dist/ bundle, *.min.js) gets no card story and no code lens: its
commits are the releases that rebuilt it (axios's dist/ symbols listed only release commits)."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.workspace import Workspace

from whylens.lsp.features.code_lens import CodeLensFeature
from whylens.lsp.server import WhyLensServer
from whylens.lsp.workspaces import RepoWorkspace
from whylens.locate import locate
from whylens.pipeline import run_index
from whylens.render.cards import hover_card
from whylens.retrieval.why import BUILT_SUMMARY, why
from whylens.symbols.skip import built_file

LIB = "function buildURL(url, params) {\n  return url + '?' + params;\n}\n"
LIB_FIXED = ("function buildURL(url, params) {\n  if (!params) {\n    return url;\n  }\n"
             "  return url + '?' + params;\n}\n")
FIX = ("Fix buildURL when params is missing\n\n"
       "buildURL appended a bare '?' when params was undefined, because the check was missing, "
       "so servers saw an empty query string.\n")


@pytest.mark.parametrize("path, built", [
    ("dist/axios.js", True), ("dist/esm/axios.mjs", True), ("dist/node/axios.cjs", True),
    ("dist/axios.js.map", True), ("packages/ui/dist/style.css", True), ("dist/App.jsx", True),
    ("lib/vendor.min.js", True), ("public/app.bundle.js", True),
    ("lib/helpers/buildURL.js", False), ("src/cmd/dist/build.go", False),
    ("src/cmd/dist/main.go", False), ("dist/types/index.d.ts", False), ("distutils/core.py", False),
    ("redistribute.js", False), ("lib/dist.js", False),
])
def test_built_file(path, built):
    assert built_file(path) is built


@pytest.fixture
def bundled(make_repo, tmp_path):
    """A library with its built copy committed next to the source, indexed."""
    repo = make_repo()
    repo.commit("Add buildURL", {"lib/buildURL.js": LIB, "dist/axios.js": LIB})
    repo.commit(FIX, {"lib/buildURL.js": LIB_FIXED, "dist/axios.js": LIB_FIXED})  # rebuilt too
    repo.commit("Release v1.2.0", {"dist/axios.js": "// v1.2.0\n" + LIB_FIXED})
    where = locate(repo.root, tmp_path / "index")
    run_index(repo.root, where.index_dir)
    ws = RepoWorkspace(repo.root.as_uri(), where.root, where.git_dir, where.index_dir)
    assert ws.reopen()
    yield repo, ws
    ws.drop_reader()


def test_a_built_file_has_no_story_and_no_hover(bundled):
    repo, ws = bundled
    source = why(ws.reader, "lib/buildURL.js", symbol="buildURL", repo_root=repo.root)
    assert source.known and hover_card(source)
    built = why(ws.reader, "dist/axios.js", symbol="buildURL", repo_root=repo.root)
    assert not built.known and not built.history and not built.units and not built.records
    assert built.summary == BUILT_SUMMARY and hover_card(built) is None
    outside = why(ws.reader, "dist/axios.js", line=3, repo_root=repo.root)
    assert not outside.history and outside.summary == BUILT_SUMMARY


def test_no_code_lens_in_a_built_file(bundled):
    repo, ws = bundled
    server = WhyLensServer()
    server.workspaces.add(ws)
    server.protocol._workspace = Workspace(repo.root.as_uri())  # as ``initialize`` sets it
    feature = CodeLensFeature(server)

    def lenses(path: str):
        return feature.code_lens(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=(repo.root / path).as_uri())))

    assert [lens.data["symbol"] for lens in lenses("lib/buildURL.js") or []] == ["buildURL"]
    assert not lenses("dist/axios.js")
