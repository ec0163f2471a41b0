"""Feature objects own their state and are reachable without starting the server over stdio."""

from __future__ import annotations

import pytest
from lsprotocol import types

from whylens.lsp.documents import Document
from whylens.lsp.features.code_lens import CodeLensFeature, has_knowledge
from whylens.lsp.features.indexing import IndexingFeature
from whylens.lsp.features.pitfalls import PitfallFeature
from whylens.lsp.server import Feature, WhyLensServer, create_server
from whylens.lsp.workspaces import RepoWorkspace
from whylens.locate import locate
from whylens.models import KnowledgeCounts
from whylens.pipeline import run_index
from whylens.symbols.outline import outline

POOL = "def acquire(pool):\n    return pool.pop()\n\n\ndef release(pool, item):\n    pool.append(item)\n"


def test_every_feature_once_and_exclude_leaves_one_out():
    server = create_server()
    assert list(server.features) == ["indexing", "hover", "code_lens", "pitfalls", "requests"]
    assert isinstance(server.feature_of(IndexingFeature), IndexingFeature)
    without = create_server(exclude=["indexing"])
    assert without.feature_of(IndexingFeature) is None and "indexing" not in without.features
    with pytest.raises(ValueError, match="unknown feature"):
        create_server(exclude=["nope"])


def test_one_failing_feature_does_not_stop_the_others_refreshing(tmp_path):
    server = WhyLensServer()
    seen = []

    class Broken(Feature):
        name = "broken"

        def index_updated(self, ws):
            raise RuntimeError("boom")

    class Counting(Feature):
        name = "counting"

        def index_updated(self, ws):
            seen.append(ws)

    server.add_feature(Broken(server))
    server.add_feature(Counting(server))
    ws = RepoWorkspace("file:///r", tmp_path, tmp_path / ".git", tmp_path / "idx")
    server.index_updated(ws)
    assert seen == [ws]
    with pytest.raises(ValueError, match="already registered"):
        server.add_feature(Counting(server))


@pytest.fixture
def indexed_ws(make_repo, tmp_path):
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": POOL})
    repo.commit("Fix a deadlock in acquire: it blocked forever when the pool was empty",
                {"pool.py": POOL.replace("pool.pop()", "pool.pop() if pool else None")})
    where = locate(repo.root, tmp_path / "index")
    run_index(repo.root, where.index_dir)
    ws = RepoWorkspace("file:///r", where.root, where.git_dir, where.index_dir)
    assert ws.reopen()
    yield ws
    ws.drop_reader()


def test_code_lens_counts_are_cached_per_index_generation(indexed_ws):
    server = WhyLensServer()
    feature = CodeLensFeature(server)
    text = (indexed_ws.root / "pool.py").read_text()
    doc = Document((indexed_ws.root / "pool.py").as_uri(), indexed_ws, "pool.py", text,
                   text.splitlines(True), "python", tuple(outline(text.encode(), "python")))
    counts = feature.counts_for(doc)
    assert counts["acquire"].changes == 2 and counts["release"].changes == 1
    assert feature.counts_for(doc) is counts  # the resolve pass reuses the lens pass's
    indexed_ws.reopen()  # a new reader (generation): counted again
    assert feature.counts_for(doc) is not counts and len(feature.counts_cache) == 2
    assert not has_knowledge(None) and not has_knowledge(KnowledgeCounts(0, 0, 5))
    assert has_knowledge(KnowledgeCounts(0, 1, 0))


def test_pitfall_feature_keeps_the_last_report_per_document_until_cleared():
    server = WhyLensServer()
    feature = PitfallFeature(server)
    uri = "file:///elsewhere/a.py"  # outside every workspace: nothing is matched or published
    error = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
             "message": "TimeoutError"}
    feature.errors_changed({"uri": uri, "errors": [error]})
    assert list(feature.reported) == [uri] and feature.published == set()
    feature.errors_changed({"uri": uri, "errors": []})
    assert feature.reported == {}
    feature.errors_changed({"uri": uri, "errors": [error]})
    feature.closed(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert feature.reported == {}
