"""Card items that one commit shows on many symbols' cards: how often they are useful (issue 13).

    python bench/card_repeats.py --set tune --set tune2 --repo serde=/tmp/serde \
        --index serde=/tmp/idx-serde ... [--list]

For every labelled item a tune card shows (``bench_cards.items_of`` of the code on sys.path),
the unit or record claim behind it, its commit, and on how many of that commit's symbols the
product's own gate (``knowledge.confidence``) shows the same sentence; the labels are then
tabulated by that count and by whether the sentence names this symbol, or names none of the
commit's symbols. Tune sets only: the figures choose a rule.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cards import clean, each_symbol, items_of, load_labels  # noqa: E402
from card_sets import pairs  # noqa: E402

_KEY = re.compile(r"[^a-z0-9]+")
UNIT_FIELD = {"pattern": "pitfall", "fact": "constraint", "skill": "fix"}


def key(text: str) -> str:
    return _KEY.sub("", text.lower())


def sources(story) -> list[dict]:
    """(field, text, commit, weight) of every unit and record claim the story holds."""
    out = [{"field": UNIT_FIELD.get(u.type, u.type), "text": u.content, "commit": u.commit,
            "weight": u.weight, "kind": "unit"} for u in story.units]
    for record in story.records:
        commits = {t.id: t.commit for t in record.thread}
        claims = [("problem", record.problem)] if record.problem else []
        claims += [(f, c) for f in ("cause", "decision", "rejected")
                   for c in getattr(record, f)]
        for field, claim in claims:
            out.append({"field": field, "text": claim.text, "commit": commits.get(claim.unit),
                        "weight": claim.weight, "kind": "claim",
                        "fixing": record.fixing_commits})
    return out


def shown_on(reader, source: dict) -> tuple[int, int, list[str]]:
    """(symbols its commit changed, how many of them the gate shows it on, the names it names
    among them)."""
    from whylens.knowledge.confidence import evidence, names_symbol, shown
    sha = source["commit"]
    if sha is None:
        return 0, 0, []
    events = [e for e in reader.events_of(sha) if e.kind != "deleted"]
    kinds = {e.symbol: e.kind for e in events}
    symbols = list(kinds)
    shows = sum(shown(evidence(source["text"], source["field"], source["weight"], s, kinds[s],
                               symbols)) for s in symbols)
    return len(symbols), shows, [s for s in symbols if names_symbol(source["text"], s)]


def main() -> int:
    from whylens.retrieval.why import why
    from whylens.knowledge.confidence import names_symbol

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", choices=("tune", "tune2", "tune3"),
                        required=True)
    parser.add_argument("--repo", action="append")
    parser.add_argument("--index", action="append")
    parser.add_argument("--list", action="store_true", help="print every item")
    args = parser.parse_args()
    labels = load_labels()
    repos = pairs(args.repo)
    table: dict[tuple, Counter] = defaultdict(Counter)
    seen = set()
    for name in args.set:
        one = argparse.Namespace(**{**vars(args), "set": name})
        for repo, path, symbol, reader in each_symbol(one):
            story = why(reader, path, symbol=symbol, repo_root=Path(repos[repo]))
            from whylens.render.rationale import rationale
            from whylens.retrieval.citations import web_links_from_meta
            markdown = rationale(story, web_links_from_meta(reader.meta))
            by_key = {key(clean(s["text"])): s for s in sources(story)}
            for item in items_of(markdown):
                row = labels.get((repo, symbol, item["field"], item["text"]))
                if row is None or (repo, symbol, item["text"]) in seen:
                    continue
                seen.add((repo, symbol, item["text"]))
                source = by_key.get(key(item["text"])) or next(
                    (s for k, s in by_key.items() if k and key(item["text"]).startswith(k[:40])),
                    None)
                if source is None:
                    bucket = ("?", "?")
                    breadth = shows = 0
                    named: list[str] = []
                else:
                    breadth, shows, named = shown_on(reader, source)
                    names = "this" if names_symbol(source["text"], symbol) else \
                        ("other" if named else "none")
                    bucket = (band(shows), names)
                table[bucket][row["label"]] += 1
                if args.list:
                    print(f"{row['label']:8} shown{shows:>3}/{breadth:<3} {bucket[1]:5} "
                          f"{repo}:{symbol} [{item['field']}] {item['text'][:110]}")
    print("\nshown on | names | useful marginal noise")
    for bucket in sorted(table):
        c = table[bucket]
        print(f"{bucket[0]:>8} | {bucket[1]:5} | {c['useful']:6} {c['marginal']:8} {c['noise']:5}")
    return 0


def band(n: int) -> str:
    return "1" if n <= 1 else "2" if n == 2 else "3-4" if n <= 4 else "5+"


if __name__ == "__main__":
    sys.exit(main())
