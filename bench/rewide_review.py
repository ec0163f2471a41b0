"""Re-mark ``wide`` (``review_hunks.file_wide``) on a saved replay's suggestions, from each
reviewed head's outline: for replays saved before the file-wide rule changed.

    python bench/rewide_review.py bench/.cache/review/sinatra-r1.json [...]
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from whylens.retrieval.review_hunks import file_wide, git_lines, head_outline


def main() -> None:
    for path in sys.argv[1:]:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        cache: dict[tuple[str, str], set[str]] = {}
        marked = 0
        for row in data["results"]:
            for s in row.get("new", []) + row.get("old", []):
                where = (row.get("head") or "", s["path"])
                if where not in cache:
                    text = subprocess.run(["git", "--git-dir", data["repo"], "show", f"{where[0]}:{where[1]}"],
                                          capture_output=True, text=True, errors="replace").stdout \
                        if where[0] and not row["set"] == "reapply-child" else ""
                    n = len(git_lines(text))
                    cache[where] = {sym.name for sym in head_outline(s["path"], text) if file_wide(sym, n)}
                s["wide"] = s["symbol"] in cache[where]
                marked += s["wide"]
        Path(path).write_text(json.dumps(data, indent=1), encoding="utf-8")
        print(f"{path}: {marked} suggestions on file-wide anchors")


if __name__ == "__main__":
    sys.exit(main())
