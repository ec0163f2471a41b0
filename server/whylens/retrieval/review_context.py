"""What every review check shares: the index, the clock, web links, the change's message, and
the findings so far."""

from __future__ import annotations

import time
from collections.abc import Iterable

from whylens.models import Suggestion, Symbol
from whylens.retrieval.citations import web_links_from_meta
from whylens.retrieval.evidence import revert_check

RECENT_DAYS = 180  # a revert or fix this close to the reviewed change is worth a word on its own
DAY = 86_400


class ReviewContext:
    def __init__(self, reader, now: float | None = None, message: str = "") -> None:
        self.reader = reader
        self.message = message  # the change's commit messages (or PR text)
        self.now = review_time(reader) if now is None else now
        self.links = web_links_from_meta(getattr(reader, "meta", None))
        self.reverted = revert_check(reader)  # sha -> a revert of it still stands
        self.out: list[Suggestion] = []

    def add(self, path: str, line: int, side: str, kind: str, body: str, confidence: float,
            evidence: Iterable[str], symbol: Symbol | str | None) -> None:
        name = symbol.name if isinstance(symbol, Symbol) else symbol
        self.out.append(Suggestion(
            path=path, line=max(1, int(line)), side=side, kind=kind, body=body,
            confidence=round(max(0.0, min(confidence, 0.99)), 3), evidence=tuple(evidence),
            symbol=name,
        ))

    def recent(self, timestamp: int, days: int = RECENT_DAYS) -> bool:
        return 0 <= self.now - timestamp <= days * DAY

    def age_days(self, timestamp: int) -> float:
        return max(0.0, (self.now - timestamp) / DAY)


def review_time(reader) -> float:
    """The newest indexed commit's time (an old repository is judged by its own clock)."""
    last = (getattr(reader, "meta", None) or {}).get("last_sha")
    info = reader.commit_info(last) if last else None
    return float(info.timestamp) if info else time.time()
