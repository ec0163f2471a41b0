"""The learned sentence classifier: the shipped data loads (hash-checked), housekeeping prose is
``none``, clear failure modes are knowledge, and a damaged file falls back to the rules."""

from __future__ import annotations

import json
import logging
import shutil

import pytest

from whylens.knowledge import classify
from whylens.knowledge.classify import MANIFEST_FILE, MODEL_FILE, ModelDataError, SentenceModel
from whylens.knowledge.extract import extract_units
from whylens.knowledge.features import commit_kind, conventional_prefix, path_kind, sentence_features
from whylens.models import Commit, FileChange


def make_commit(subject: str, body: str = "", paths=("src/pool.py",)) -> Commit:
    return Commit(
        sha="c" * 40, parents=("b" * 40,), author="Ada", email="ada@x.org",
        timestamp=1_700_000_000, date="2023-11-14T22:13:20+00:00", subject=subject, body=body,
        changes=tuple(FileChange(path=p, status="M") for p in paths),
    )


@pytest.fixture(scope="module")
def model() -> SentenceModel:
    return SentenceModel.load()


def test_shipped_model_loads_and_was_trained_on_tune_repositories_only(model) -> None:
    trained = set(model.meta["trained_on"])
    assert len(trained) >= 8
    assert not trained & {"flask", "axios", "gin", "jq", "okhttp"}  # the held-out repositories
    assert model.heads["unit"].classes == ("none", "fact", "skill", "pattern")
    assert model.heads["role"].classes == ("none", "problem", "cause", "decision", "rejected")


def _predict(model, sentence: str, *, subject: bool = False, paths=("src/pool.py",), title=""):
    kind = commit_kind(title or sentence, paths, None, False, title or sentence)
    return model.predict(sentence_features(sentence, from_subject=subject, index=0 if subject
                                           else 1, kind=kind))


@pytest.mark.parametrize("sentence,title", [
    ("Bump version to 2.3.1", ""),
    ("Thanks to @ada for the report!", "Fix the pool"),
    ("Fix typo in README", ""),
    ("Add myself to AUTHORS", ""),
    ("Update changelog for the release", ""),
    ("Farewell, sweet Concorde!", "Remove the Concorde backend"),
    ("Add tests for the new parser", ""),
])
def test_housekeeping_prose_is_not_knowledge(model, sentence, title) -> None:
    assert _predict(model, sentence, subject=not title, title=title).unit == "none"


def test_probabilities_are_a_distribution(model) -> None:
    prediction = _predict(model, "The reaper deadlocks when a worker holds the lock.")
    for probs in (prediction.unit_probs, prediction.role_probs):
        assert abs(sum(probs.values()) - 1.0) < 1e-9
        assert all(0.0 <= p <= 1.0 for p in probs.values())


def test_a_failure_with_its_trigger_ranks_above_a_bare_edit(model) -> None:
    failure = _predict(model, "Session.send hangs forever when the connection pool is "
                              "exhausted because released connections are never returned.")
    edit = _predict(model, "Rename the helper module.", subject=True)
    assert failure.unit_probs["none"] < edit.unit_probs["none"]


def test_units_carry_the_classifier_and_its_confidence() -> None:
    commit = make_commit(
        "Fix hang in Session.send when the pool is exhausted",
        "Session.send hangs forever when the connection pool is exhausted, because released "
        "connections are never put back. Thanks @bob!")
    units = extract_units(commit)
    assert all(u.heuristic.startswith("model.") for u in units)
    assert all(0 < u.weight <= 0.95 for u in units)
    assert not any("Thanks" in u.content for u in units)


def test_lead_in_sentences_are_never_units() -> None:
    commit = make_commit("Fix the parser", "The parser raises KeyError in these cases:\n\n"
                                           "    parse('')\n    parse(None)\n")
    assert not any(u.content.endswith(":") for u in extract_units(commit))


def test_damaged_model_data_is_refused(tmp_path) -> None:
    shutil.copy(classify.DATA_DIR / MODEL_FILE, tmp_path / MODEL_FILE)
    shutil.copy(classify.DATA_DIR / MANIFEST_FILE, tmp_path / MANIFEST_FILE)
    SentenceModel.load(tmp_path)  # an intact copy loads
    with open(tmp_path / MODEL_FILE, "ab") as fh:
        fh.write(b" ")
    with pytest.raises(ModelDataError, match="sha256"):
        SentenceModel.load(tmp_path)
    (tmp_path / MANIFEST_FILE).unlink()
    with pytest.raises(ModelDataError):
        SentenceModel.load(tmp_path)


def test_without_model_data_extraction_falls_back_to_the_rules(monkeypatch, tmp_path,
                                                               caplog) -> None:
    monkeypatch.setattr(classify, "DATA_DIR", tmp_path)
    monkeypatch.setattr(classify, "_loaded", [])
    commit = make_commit("Fix deadlock in the pool reaper",
                         "The reaper deadlocks when a worker holds the lock.")
    with caplog.at_level(logging.WARNING, logger="whylens.knowledge.classify"):
        first = extract_units(commit)
        second = extract_units(commit)
    assert first == second and first
    assert all(not u.heuristic.startswith("model.") for u in first)
    assert sum("sentence classifier unavailable" in r.message for r in caplog.records) == 1


def test_model_format_is_checked() -> None:
    data = json.loads((classify.DATA_DIR / MODEL_FILE).read_text())
    data["format"] = 99
    with pytest.raises(ModelDataError, match="format"):
        SentenceModel.from_json(data)


@pytest.mark.parametrize("path,kind", [
    ("docs/index.rst", "docs"), ("README.md", "docs"), ("tests/test_pool.py", "tests"),
    ("src/pool_test.go", "tests"), ("lib/router.spec.js", "tests"), (".github/workflows/ci.yml", "ci"),
    ("setup.py", "packaging"), ("package.json", "packaging"), ("src/requests/sessions.py", "code"),
])
def test_path_kinds(path, kind) -> None:
    assert path_kind(path) == kind


@pytest.mark.parametrize("subject,prefix", [
    ("docs(api): explain retries", "docs"), ("chore(deps): bump x", "chore"),
    ("[ci] run on 3.12", "ci"), ("Sentinel: flush config", ""), ("Fix the pool", ""),
])
def test_conventional_prefixes(subject, prefix) -> None:
    assert conventional_prefix(subject) == prefix
