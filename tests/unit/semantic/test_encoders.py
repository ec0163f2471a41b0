"""Real behaviour of the encoders: deterministic unit vectors in which a question lands nearer its
answer than unrelated commit sentences, including when they share no words."""

from __future__ import annotations

import numpy as np
import pytest

from whylens import semantic
from whylens.errors import SemanticDataError
from whylens.semantic.static import StaticEncoder

ANSWER = "the Authorization header is removed when redirected to another host"
UNRELATED = [
    "Add a new logo to the documentation",
    "Bump version to 2.3.1",
    "Use a faster JSON parser for large payloads",
    "Fix typo in the README",
]


@pytest.fixture(scope="module")
def static() -> StaticEncoder:
    return semantic.default_encoder()


def test_rows_are_unit_length_float32_and_deterministic(static):
    texts = [ANSWER, *UNRELATED]
    first = static.embed(texts)
    assert first.dtype == np.float32 and first.shape == (len(texts), static.dims)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first, static.embed(texts))
    one_by_one = np.vstack([static.embed([t]) for t in texts])
    assert np.allclose(first, one_by_one, atol=1e-6)


def test_text_without_known_tokens_gives_a_zero_row(static):
    rows = static.embed(["", "   ", ANSWER])
    assert not rows[0].any() and not rows[1].any() and rows[2].any()
    assert static.embed([]).shape == (0, static.dims)


def test_one_string_is_not_taken_for_a_sequence_of_characters(static):
    with pytest.raises(TypeError):
        static.embed(ANSWER)


@pytest.mark.parametrize("question", [
    "why do we drop auth on redirect",  # shares only "redirect" (stem) with the answer
    "credentials stripped when the server sends us elsewhere",  # shares nothing
])
def test_a_paraphrase_scores_above_unrelated_sentences(static, question):
    scores = semantic.similarity(static.embed([question])[0], static.embed([ANSWER, *UNRELATED]))
    assert scores[0] == scores.max() and scores[0] > scores[1:].max() + 0.05


def test_code_names_are_read_as_their_words(static):
    a, b, c = static.embed(["getUserName fails", "get user name fails", "bump version number"])
    assert a @ b > 0.9 and a @ b > a @ c + 0.3


def test_module_embed_uses_the_default_encoder(static):
    assert np.array_equal(semantic.embed([ANSWER]), static.embed([ANSWER]))


def test_quantised_vectors_keep_the_ranking(static):
    rows = static.embed([ANSWER, *UNRELATED])
    query = static.embed(["authorization removed on redirect"])[0]
    stored = semantic.quantise(rows)
    assert stored.codes.dtype == np.int8
    assert np.allclose(stored.scores(query), rows @ query, atol=0.02)
    assert list(semantic.top_k(stored.scores(query), 3)) == list(semantic.top_k(rows @ query, 3))


def test_fuse_mixes_min_max_normalised_scores():
    lexical, dense = np.array([0.0, 5.0, 10.0]), np.array([0.9, 0.1, 0.5])
    assert np.allclose(semantic.fuse(lexical, dense, 0.0), [0, 0.5, 1])
    assert np.allclose(semantic.fuse(lexical, dense, 1.0), [1, 0, 0.5])
    with pytest.raises(ValueError):
        semantic.fuse(lexical, dense, 1.5)


def test_minilm_refuses_a_model_file_with_the_wrong_hash(tmp_path):
    pytest.importorskip("onnxruntime")
    from whylens.semantic.minilm import MiniLMEncoder

    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not a model")
    with pytest.raises(SemanticDataError, match="sha256"):
        MiniLMEncoder(model_path=fake)


def test_minilm_ranks_the_paraphrase_first():
    if not semantic.minilm_available():
        pytest.skip("the optional extra whylens[semantic] is not installed")
    from whylens.semantic.minilm import MiniLMEncoder

    model = MiniLMEncoder()
    rows = model.embed([ANSWER, *UNRELATED])
    assert rows.shape == (5, 384)
    scores = rows @ model.embed(["why do we drop auth on redirect"])[0]
    assert scores[0] == scores.max()


def test_without_the_extra_the_error_names_the_install_command(monkeypatch):
    import sys

    from whylens.errors import SemanticExtraMissingError
    from whylens.semantic.minilm import MiniLMEncoder

    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if never installed
    assert not semantic.minilm_available()
    with pytest.raises(SemanticExtraMissingError, match=r"pip install 'whylens\[semantic\]'"):
        MiniLMEncoder()
    assert semantic.embed(["the static encoder needs no extra"]).shape[0] == 1
