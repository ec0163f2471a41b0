"""One set of counts: the lens, the hover card, the `why` card and `stats` say the same numbers
of decisions, pitfalls (Pattern units only) and changes."""

from __future__ import annotations

import re

from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.render.cards import hover_card
from whylens.render.lens import lens_title
from whylens.render.rationale import rationale
from whylens.retrieval.why import why

NOW = 1_800_000_000.0
V1 = "def acquire(pool):\n    return pool.pop()\n\n\ndef release(pool, item):\n    pool.append(item)\n"
V2 = V1.replace("    return pool.pop()\n", "    with pool.lock:\n        return pool.pop()\n")
V3 = V2.replace("        return pool.pop()\n", "        return pool.pop(timeout=5)\n")
V4 = V3.replace("timeout=5", "timeout=pool.timeout")


def numbers(text: str) -> tuple[int, int, int]:
    """(decisions, pitfalls, changes) as a lens title or a card summary words them."""
    def grab(pattern: str) -> int:
        found = re.search(pattern, text)
        return int(found.group(1)) if found else 0
    return (grab(r"(\d+) decisions?"), grab(r"(\d+) pitfalls?"), grab(r"changed (\d+)×"))


def test_lens_hover_card_and_stats_count_the_same_way(make_repo, tmp_path):
    repo = make_repo()
    repo.commit("Add the pool", {"pool.py": V1})
    repo.commit("Lock the pool in acquire (#3)\n\nacquire handed one connection to two threads "
                "when they called it at the same time, because pop is not atomic.\n\nNote: "
                "acquire must never be called while holding the pool lock.", {"pool.py": V2})
    repo.commit("Stop acquire hanging forever (#4)\n\nacquire hangs forever when the pool is "
                "empty, because pop waits without a timeout. Fixed by passing a timeout.",
                {"pool.py": V3})
    repo.commit("Make the acquire timeout configurable (#5)", {"pool.py": V4})
    index = tmp_path / "index"
    run_index(repo.root, index)
    with IndexStore(index).reader() as reader:
        story = why(reader, "pool.py", symbol="acquire", repo_root=repo.root, now=NOW)
        lens = reader.knowledge_counts("pool.py")["acquire"]
        stats = reader.stats()
    counts = tuple(story.counts)
    assert story.counts.pitfalls == sum(1 for u in story.units if u.type == "pattern")
    assert counts[2] == 4 and counts[0] >= 1  # four changes; at least one decision
    assert numbers(lens_title(story.counts)) == counts
    assert numbers(story.summary) == counts
    assert numbers((hover_card(story) or "").splitlines()[0]) == counts
    assert numbers(rationale(story).splitlines()[2]) == counts
    assert tuple(lens) == counts  # the index's counts, what decides where a lens goes
    assert stats["pitfalls"] == stats["units"].get("pattern", 0) == counts[1]  # one symbol
    assert stats["decisions"] == counts[0]
