"""unit_id: stable, type-aware, insensitive to case, spacing and edge punctuation."""

from __future__ import annotations

import hashlib

from whylens.knowledge.ids import normalise, unit_id


def test_id_is_12_hex_of_sha1_over_type_and_normalised_content() -> None:
    expected = hashlib.sha1(b"pattern::deadlock when the pool is full").hexdigest()[:12]
    assert unit_id("pattern", "Deadlock when the pool is full.") == expected


def test_id_is_stable_across_case_spacing_and_edge_punctuation() -> None:
    a = unit_id("fact", "The adapter must be mounted first.")
    assert a == unit_id("fact", "  the ADAPTER  must be\nmounted first ")
    assert a == unit_id("fact", '"The adapter must be mounted first!"')


def test_inner_punctuation_and_type_matter() -> None:
    assert unit_id("fact", "Requires 2.31.0") != unit_id("fact", "Requires 2310")
    assert unit_id("fact", "X must be set") != unit_id("skill", "X must be set")


def test_normalise() -> None:
    assert normalise("  Hello,\tWorld!  ") == "hello, world"
    assert normalise("...") == ""


def test_non_utf8_replacement_and_surrogates_do_not_crash() -> None:
    assert len(unit_id("fact", "caf\ufffd must \udcff close")) == 12
