"""Custom payloads: valid params parse, invalid ones give a clear InvalidInputError."""

from __future__ import annotations

import pytest
from lsprotocol import types

from whylens.errors import InvalidInputError
from whylens.lsp import protocol

RANGE = {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 5}}


def test_search_defaults():
    params = protocol.parse_params({"query": "deadlock"}, protocol.SearchParams)
    assert (params.query, params.k, params.types, params.uri) == ("deadlock", 10, None, None)


def test_errors_changed_accepts_the_client_shape():
    params = protocol.parse_params(
        {"uri": "file:///a.py", "errors": [
            {"range": RANGE, "message": "TimeoutError", "source": "pyright", "code": 7},
            {"range": RANGE, "message": "x", "source": None, "code": None}]},
        protocol.ErrorsChangedParams)
    assert params.errors[0].range.start == types.Position(line=3, character=0)
    assert params.errors[0].code == 7 and params.errors[1].code is None


@pytest.mark.parametrize(
    ("raw", "cls", "needle"),
    [
        pytest.param({"query": 3}, protocol.SearchParams, "expected a string", id="query-type"),
        pytest.param({"query": "q", "k": 0}, protocol.SearchParams, "k must be", id="k-range"),
        pytest.param({"query": "q", "types": ["bogus"]}, protocol.SearchParams, "types", id="types"),
        pytest.param({"query": "x" * 5000}, protocol.SearchParams, "longer than", id="huge-query"),
        pytest.param({"base": "--output=/tmp/x"}, protocol.PrSuggestionsParams, "not a valid revision",
                     id="option-injection"),
        pytest.param({"uri": "u", "position": {"line": "a"}}, protocol.WhyParams, "position",
                     id="bad-position"),
        pytest.param({"uri": "u", "errors": [{"message": "m"}]}, protocol.ErrorsChangedParams,
                     "range", id="missing-range"),
        pytest.param({"uri": "u", "errors": [{"range": RANGE, "code": [1]}]},
                     protocol.ErrorsChangedParams, "code", id="bad-code"),
        pytest.param([1, 2], protocol.SearchParams, "expected an object", id="not-an-object"),
    ],
)
def test_invalid_params(raw, cls, needle):
    with pytest.raises(InvalidInputError) as info:
        protocol.parse_params(raw, cls)
    assert needle in str(info.value)


def test_index_status_shape():
    assert protocol.index_status("file:///r", "indexing", 40, 3, 1, "commits 4/10") == {
        "folder": "file:///r", "state": "indexing", "percent": 40, "units": 3, "records": 1,
        "message": "commits 4/10"}


def test_custom_methods_keep_plain_dict_params():
    assert protocol.WhyLensProtocol.get_message_type is not None
    for method in protocol.CLIENT_REQUESTS:
        assert method.startswith("whylens/")
