"""The gate's ``symbol`` feature: does the question name a symbol of this history?"""

from __future__ import annotations

from whylens.retrieval import gate as gates
from whylens.retrieval.search import rank


def test_a_question_naming_the_codes_symbols_counts_for_the_gate(pool_repo):
    _repo, _shas, reader = pool_repo
    named = rank(reader, "why does Pool.put() never block?").features
    assert named["symbol"] == 1.0
    assert rank(reader, "why does pool.put never block").features["symbol"] == 1.0  # as typed
    assert rank(reader, "how do I exit vim after editing a file?").features["symbol"] == 0.0
    assert gates.confidence(named) > gates.confidence({**named, "symbol": 0.0})


def test_symbol_forms_strip_calls_and_try_the_last_dotted_part():
    assert gates.symbol_forms("res.json()") == ["res.json", "Res.json", "RES.JSON", "json",
                                                "Json", "JSON"]
    assert gates.symbol_forms('Schemes("https")') == ["Schemes", "schemes", "SCHEMES"]
    assert gates.symbol_forms("?!") == []
