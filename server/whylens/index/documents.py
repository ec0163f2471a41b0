"""The Whoosh document of a unit, a commit document or a decision record (``IndexWriter`` queues
them; ``MEANING`` is the text the semantic encoder embeds beside it, not a Whoosh field)."""

from __future__ import annotations

from whylens.gitcli import text_of_os_path
from whylens.index.analysis import clean_text, normalise_path
from whylens.index.codec import iso_timestamp, record_text
from whylens.index.schema import TIMESTAMP_MAX
from whylens.models import RECORD_TYPE, Record, Unit

MEANING = "_meaning"  # a queued document's text to embed (not a Whoosh field)
MAX_THREAD_CHARS = 20_000  # of a record's tracker thread, indexed for search


def unit_document(unit: Unit) -> dict:
    """A unit, or a commit document (a unit of type ``commit``: its content is the prose)."""
    basenames = " ".join(normalise_path(f).rsplit("/", 1)[-1] for f in unit.files)
    refs = f"#{unit.pr}" if unit.pr else ""
    text = "\n".join([unit.title, unit.title, unit.content, " ".join(unit.symbols), basenames,
                      refs])
    return _document(unit.id, unit.type, text, unit.files, unit.author, unit.date, unit.weight,
                     f"{unit.title}\n{unit.content}", unit.commit)


def record_document(record: Record) -> dict:
    """A record with all its fields, and the tracker thread an export brought."""
    basenames = " ".join(normalise_path(f).rsplit("/", 1)[-1] for f in record.files)
    thread = "\n".join(t.text for t in record.thread)[:MAX_THREAD_CHARS]
    refs = " ".join(f"#{n}" for n in (record.number, record.partner) if n)
    text = "\n".join([record.title, record.title, record_text(record), " ".join(record.anchors),
                      basenames, refs, thread])
    return _document(record.id, RECORD_TYPE, text, record.files, record.author, record.date, 1.0,
                     f"{record.title}\n{record_text(record)}",
                     record.fixing_commits[0] if record.fixing_commits else record.id)


def _document(doc_id, doc_type, text, files, author, date, weight, meaning, commit) -> dict:
    return {
        "id": doc_id,
        "type": doc_type,
        "text": clean_text(text),
        "paths": clean_text(text_of_os_path("\n".join(files))),  # a path byte as normalise_path keeps it
        "author": clean_text(author or ""),
        "ts": min(max(iso_timestamp(date), 0), TIMESTAMP_MAX),
        "weight": float(weight),
        "commit": commit,
        MEANING: clean_text(meaning),  # what is embedded; not a Whoosh field
    }
