"""The shipped table is verified on load: a corrupt, missing or swapped file raises
``SemanticDataError`` naming the fix, never a silently wrong vector."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from whylens.errors import SemanticDataError, WhyLensError
from whylens.semantic.static import StaticEncoder
from whylens.semantic.table import DATA_DIR, MANIFEST, load_table, sha256_of


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(DATA_DIR, folder)
    return folder


def test_the_shipped_table_loads_and_matches_its_manifest():
    table = load_table()
    manifest = json.loads((DATA_DIR / MANIFEST).read_text())
    assert table.codes.shape == (manifest["rows"], manifest["dims"])
    assert sha256_of(DATA_DIR / manifest["table"]["file"]) == manifest["table"]["sha256"]
    assert isinstance(table.codes, np.memmap)  # mapped, not read into memory


def test_one_flipped_byte_is_refused_with_the_fix(copy: Path):
    path = copy / "static_table.npy"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(SemanticDataError) as err:
        StaticEncoder.load(copy)
    assert "static_table.npy" in str(err.value) and "sha256" in str(err.value)
    assert "pip install --force-reinstall whylens" in str(err.value)
    assert isinstance(err.value, WhyLensError)


@pytest.mark.parametrize("name", ["static_table.npy", "vocab.txt", MANIFEST])
def test_a_missing_file_is_refused(copy: Path, name: str):
    (copy / name).unlink()
    with pytest.raises(SemanticDataError, match="file missing"):
        load_table(copy)


def test_a_truncated_vocabulary_is_refused(copy: Path):
    vocab = copy / "vocab.txt"
    vocab.write_text("\n".join(vocab.read_text().splitlines()[:-1]) + "\n")
    with pytest.raises(SemanticDataError, match="vocab.txt"):
        load_table(copy)


def test_a_garbled_manifest_is_refused(copy: Path):
    (copy / MANIFEST).write_text("{not json")
    with pytest.raises(SemanticDataError, match="unreadable"):
        load_table(copy)


def test_a_manifest_that_lies_about_the_shape_is_refused(copy: Path):
    manifest = json.loads((copy / MANIFEST).read_text())
    manifest["dims"] += 1
    (copy / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(SemanticDataError, match="shape"):
        load_table(copy)


def test_the_notice_names_the_hashes_of_the_shipped_files():
    manifest = json.loads((DATA_DIR / MANIFEST).read_text())
    notice = (DATA_DIR / "NOTICE.md").read_text()
    for key in ("vocab", "table", "scales"):
        assert manifest[key]["sha256"] in notice, f"NOTICE.md is stale for {key}: rebuild it"
    assert (DATA_DIR / "LICENSE-Apache-2.0.txt").read_text().lstrip().startswith("Apache License")
