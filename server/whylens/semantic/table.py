"""The shipped static embedding table: its manifest, the sha256 check, memory-mapped loading.

``data/static_table.json`` names each data file with its sha256; every file is hashed before it
is used, so a truncated, corrupt or swapped file raises ``SemanticDataError`` (never a wrong
answer). The table is memory-mapped: only the rows a process looks up become resident.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from whylens.errors import SemanticDataError

DATA_DIR = Path(__file__).resolve().parent / "data"
MANIFEST = "static_table.json"
FORMAT = 1


@dataclass(frozen=True)
class StaticTable:
    """Token id → weighted vector. ``codes`` is (vocabulary, dims) int8 with a float32 ``scales``
    per row, or float16/float32 with ``scales`` None; rows already carry the token weights."""

    name: str
    codes: np.ndarray
    scales: np.ndarray | None
    vocab_path: Path
    split_identifiers: bool
    manifest: dict[str, Any]

    @property
    def dims(self) -> int:
        return int(self.codes.shape[1])

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """float32 rows for ``ids`` (a 1-D int array)."""
        rows = np.asarray(self.codes[ids], dtype=np.float32)
        if self.scales is not None:
            rows *= self.scales[ids, None]
        return rows


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verified_file(folder: Path, entry: Any, what: str) -> Path:
    """The path of a manifest ``{"file", "sha256"}`` entry, after checking its hash."""
    if not isinstance(entry, dict) or "file" not in entry or "sha256" not in entry:
        raise SemanticDataError(str(folder / MANIFEST), f"no {what} entry")
    path = folder / str(entry["file"])
    if not path.is_file():
        raise SemanticDataError(str(path), "file missing")
    actual = sha256_of(path)
    if actual != entry["sha256"]:
        raise SemanticDataError(str(path), f"sha256 {actual[:12]}… is not the expected "
                                           f"{str(entry['sha256'])[:12]}…")
    return path


def load_table(folder: Path = DATA_DIR) -> StaticTable:
    """Read and verify the manifest and every file it names; raises ``SemanticDataError``."""
    manifest_path = folder / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SemanticDataError(str(manifest_path), "file missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise SemanticDataError(str(manifest_path), f"unreadable: {err}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise SemanticDataError(str(manifest_path), f"not format {FORMAT}")
    vocab = verified_file(folder, manifest.get("vocab"), "vocab")
    table_path = verified_file(folder, manifest.get("table"), "table")
    codes = _load_array(table_path, mmap=True)
    scales = None
    if manifest.get("scales") is not None:
        scales = np.asarray(_load_array(verified_file(folder, manifest["scales"], "scales"),
                                        mmap=False), dtype=np.float32)
    rows, dims = manifest.get("rows"), manifest.get("dims")
    if codes.ndim != 2 or codes.shape != (rows, dims) or str(codes.dtype) != manifest.get("dtype"):
        raise SemanticDataError(str(table_path), f"shape {codes.shape} {codes.dtype} is not the "
                                                 f"manifest's ({rows}, {dims}) {manifest.get('dtype')}")
    if scales is not None and scales.shape != (rows,):
        raise SemanticDataError(str(folder / manifest["scales"]["file"]), "wrong length")
    return StaticTable(name=str(manifest.get("name", "static")), codes=codes, scales=scales,
                       vocab_path=vocab, split_identifiers=bool(manifest.get("split_identifiers")),
                       manifest=manifest)


def _load_array(path: Path, mmap: bool) -> np.ndarray:
    try:
        return np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
    except (OSError, ValueError) as err:
        raise SemanticDataError(str(path), f"not a numpy array file: {err}") from None
