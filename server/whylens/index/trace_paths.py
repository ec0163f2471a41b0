"""A stack trace's file → the repository paths it can be.

Traces carry the file as it ran: absolute, from an installed package or a build folder
(``/home/dev/.venv/lib/python3.11/site-packages/requests/utils.py``,
``/app/node_modules/express/lib/response.js``, ``RealCall.kt``). The repository holds it under its
own path, which may carry a source-layout folder the installed copy does not
(``src/requests/utils.py``), and which may have been another path in older commits. The paths
that match are the indexed ones (``files``: any commit's, so renamed and moved files count) equal to the
longest trailing part of the trace's path that the index holds, with or without a leading
``src/``; a bare file name (JVM traces) matches that name in any folder.
"""

from __future__ import annotations

import sqlite3
from pathlib import PurePosixPath

SOURCE_LAYOUT = "src/"
MAX_MATCHES = 20  # paths one bare file name may stand for


def paths_for_trace_file(conn: sqlite3.Connection, trace_file: str) -> list[str]:
    """The indexed paths ``trace_file`` can be (empty when none)."""
    parts = [p for p in PurePosixPath(trace_file.replace("\\", "/")).parts if p not in ("/", ".")]
    if not parts:
        return []
    if len(parts) == 1:  # a bare name: that file in any folder
        rows = conn.execute(
            "SELECT path FROM files WHERE path = ? OR path LIKE ? ESCAPE '\\' "
            "LIMIT ?", (parts[0], "%/" + _escape(parts[0]), MAX_MATCHES))
        return sorted(r[0] for r in rows)
    for k in range(len(parts), 0, -1):
        tail = "/".join(parts[-k:])
        wanted = [tail] if tail.startswith(SOURCE_LAYOUT) else [tail, SOURCE_LAYOUT + tail]
        found = [p for p in wanted if _known(conn, p)]
        if found:
            return found
    return []


def _known(conn: sqlite3.Connection, path: str) -> bool:
    return conn.execute("SELECT 1 FROM files WHERE path = ?", (path,)).fetchone() is not None


def _escape(name: str) -> str:
    return name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
