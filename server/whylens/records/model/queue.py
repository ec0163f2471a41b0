"""The durable queue of the model pass: one sqlite file in the index folder.

A row per record: its input hash and snapshot, a status (pending / done / failed), the attempts,
the last raw reply and error, and the validated result. Every change commits at once, so a
finished record survives a kill and a killed drain resumes with what is still pending. A record
whose input hash is unchanged is never queued again; a changed input resets its row.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from whylens.records.model.prompt import input_hash, snapshot

QUEUE_FILE = "distill-queue.sqlite"
MAX_ATTEMPTS = 3  # failed ladders before a record waits for its input to change

_SCHEMA = """
CREATE TABLE IF NOT EXISTS queue (
    record_id  TEXT PRIMARY KEY,
    input_hash TEXT NOT NULL,   -- model_input_hash of the snapshot
    snapshot   TEXT NOT NULL,   -- frozen input (JSON)
    status     TEXT NOT NULL,   -- pending | done | failed
    attempts   INTEGER NOT NULL DEFAULT 0,
    raw_reply  TEXT,            -- the last reply, kept when the ladder fails
    error      TEXT,
    result     TEXT,            -- validated fields (JSON) when done
    updated    REAL NOT NULL
)
"""


class DistillQueue:
    def __init__(self, index_dir: str | Path, model: str) -> None:
        folder = Path(index_dir)
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / QUEUE_FILE
        self.model = model
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "DistillQueue":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def enqueue(self, records) -> int:
        """Queue records whose input is new or changed; return how many were (re)queued."""
        queued = 0
        with self._db:
            for record in records:
                snap = snapshot(record)
                digest = input_hash(snap, self.model)
                row = self._db.execute("SELECT input_hash FROM queue WHERE record_id=?", (record.id,)).fetchone()
                if row and row[0] == digest:
                    continue
                self._db.execute(
                    "INSERT OR REPLACE INTO queue (record_id, input_hash, snapshot, status, attempts,"
                    " updated) VALUES (?, ?, ?, 'pending', 0, ?)",
                    (record.id, digest, json.dumps(snap), time.time()),
                )
                queued += 1
        return queued

    def pending(self, limit: int) -> list[tuple[str, str, dict]]:
        """Up to ``limit`` (record id, input hash, snapshot), oldest first."""
        rows = self._db.execute(
            "SELECT record_id, input_hash, snapshot FROM queue WHERE status='pending' "
            "ORDER BY updated, record_id LIMIT ?", (max(0, limit),)
        ).fetchall()
        return [(rid, digest, json.loads(snap)) for rid, digest, snap in rows]

    def finish(self, record_id: str, digest: str, result: dict, raw: str) -> None:
        self._db.execute(
            "UPDATE queue SET status='done', result=?, raw_reply=?, error=NULL, updated=? "
            "WHERE record_id=? AND input_hash=?",
            (json.dumps(result), raw, time.time(), record_id, digest),
        )

    def fail(self, record_id: str, digest: str, raw: str | None, error: str, count: bool = True) -> None:
        """Keep the raw reply and the reason; re-queue (``failed`` after ``MAX_ATTEMPTS``)."""
        self._db.execute(
            "UPDATE queue SET attempts = attempts + ?, raw_reply = COALESCE(?, raw_reply), error=?,"
            " status = CASE WHEN attempts + ? >= ? THEN 'failed' ELSE 'pending' END, updated=?"
            " WHERE record_id=? AND input_hash=?",
            (int(count), raw, error, int(count), MAX_ATTEMPTS, time.time(), record_id, digest),
        )

    def result(self, record_id: str, digest: str) -> dict | None:
        """The validated result for this exact input, when it is done."""
        row = self._db.execute(
            "SELECT result FROM queue WHERE record_id=? AND input_hash=? AND status='done'",
            (record_id, digest),
        ).fetchone()
        return json.loads(row[0]) if row and row[0] else None

    def row(self, record_id: str) -> dict | None:
        cur = self._db.execute("SELECT * FROM queue WHERE record_id=?", (record_id,))
        values = cur.fetchone()
        return dict(zip([d[0] for d in cur.description], values)) if values else None

    def counts(self) -> dict[str, int]:
        return dict(self._db.execute("SELECT status, COUNT(*) FROM queue GROUP BY status").fetchall())
