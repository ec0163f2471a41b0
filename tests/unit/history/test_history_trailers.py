"""Trailers: the last paragraph of a body, when it is made of ``Key: value`` lines."""

from __future__ import annotations

import pytest

from whylens.history.trailers import body_without_trailers, parse_trailers


@pytest.mark.parametrize(("body", "trailers", "rest"), [
    ("", (), ""),
    ("Signed-off-by: Ada <ada@example.com>", (("Signed-off-by", "Ada <ada@example.com>"),), ""),
    ("Explain why.\n\nCo-authored-by: Bob <bob@example.com>\nFixes: #12",
     (("Co-authored-by", "Bob <bob@example.com>"), ("Fixes", "#12")), "Explain why."),
    ("Explain why.\n\nReviewed-by: Carol\n  and Dave",
     (("Reviewed-by", "Carol and Dave"),), "Explain why."),
    ("Explain why.\n\nNote: the pool must be closed.", (), None),  # prose, not a trailer
    ("Explain why.\n\nSigned-off-by: Ada\nand then some prose", (), None),
    ("See https://example.com/x for details", (), None),
])
def test_trailers(body, trailers, rest):
    assert parse_trailers(body) == trailers
    assert body_without_trailers(body) == (body if rest is None else rest)
