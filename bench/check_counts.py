"""Cards whose counts are not what they show: for every symbol the index holds knowledge for,
the header's "N pitfalls known; M decisions" (``Story.counts``, what the lens and hover say too)
against the items ``whylens why --all`` lists.

    python bench/check_counts.py REPO INDEX_DIR

Prints the number of symbols checked, how many disagree, and up to 8 of them as (path, symbol,
pitfalls counted, shown, decisions counted, shown).
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "server"), str(ROOT)]

from whylens.errors import WhyLensError  # noqa: E402
from whylens.index.store import IndexStore  # noqa: E402
from whylens.render.rationale import rationale  # noqa: E402
from whylens.retrieval.why import why  # noqa: E402

from tests.unit.render.test_said_once import shown_items  # noqa: E402  (the test's count)


def symbols_with_knowledge(index: Path) -> list[tuple[str, str]]:
    generation = (index / "CURRENT").read_text().strip()
    db = sqlite3.connect(f"file:{index / generation / 'sidecar.sqlite'}?mode=ro", uri=True)
    names = {s for table in ("unit_symbols", "record_symbols")
             for (s,) in db.execute(f"SELECT DISTINCT symbol FROM {table}")}
    paths: dict[str, str] = {}
    for name, path in db.execute("SELECT s.name, f.path FROM symbols s JOIN files f "
                                 "ON f.id = s.file ORDER BY f.path"):
        paths.setdefault(name, path)
    return sorted((paths[n], n) for n in names if n in paths)


def main() -> None:
    repo, index = sys.argv[1], Path(sys.argv[2])
    reader = IndexStore(index).reader()
    checked, differ = 0, []
    for path, name in symbols_with_knowledge(index):
        try:
            story = why(reader, path, symbol=name, repo_root=repo)
        except WhyLensError:
            continue  # gone from the working tree
        if not story.known or story.symbol is None or not story.symbol.start_line:
            continue
        checked += 1
        text = rationale(story, max_chars=None)
        got = (shown_items(text, "Pitfalls"), shown_items(text, "Decisions"))
        if got != (story.counts.pitfalls, story.counts.records):
            differ.append((path, name, story.counts.pitfalls, got[0], story.counts.records, got[1]))
    reader.close()
    print(f"{repo}: {checked} symbols with knowledge; {len(differ)} whose counts differ from "
          "what `why --all` shows")
    for row in differ[:8]:
        print("  ", row)


if __name__ == "__main__":
    main()
