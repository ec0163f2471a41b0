"""The Whoosh schema, one field per line. Only what search needs; everything else is in the sidecar.

Measured when the index was designed: one catch-all text field is 2-3× faster to search than an
OR over title/content/symbols; storing only the fields the ranking reads keeps hover and indexing fast.
Exact symbol lookups (hover, lens, history) go to the sqlite sidecar's ``tail`` columns instead of
a Whoosh ``symbols`` field: the same one-equality lookup, without the cost of indexing it twice.
Symbols still reach search through ``text`` (whole name, dotted suffixes and parts).
"""

from __future__ import annotations

from whoosh import fields

from whylens.index.analysis import author_analyzer, path_analyzer, text_analyzer

# Bump when a field, an analyzer or what goes into a field changes, or the sidecar's tables do:
# the index is then rebuilt (3: symbol events and changed files by path and name ids, events.py).
SCHEMA_VERSION = 3

TIMESTAMP_MAX = 2**32 - 1  # ts is an unsigned 32-bit field (dates up to 2106)


def build_schema() -> fields.Schema:
    return fields.Schema(
        # unit id (12 hex), record id ("pr-34") or commit document id ("msg-<sha12>"); the key of
        # update_document and of the sidecar
        id=fields.ID(stored=True, unique=True),
        # fact | skill | pattern | decision | commit: the --type filter, the per-type boost (stored)
        type=fields.ID(stored=True),
        # the one catch-all searched field: title twice + content + symbol parts + file basenames;
        # no positions (phrase=False): queries are bags of words, and it saves ~15% of disk
        text=fields.TEXT(analyzer=text_analyzer(), phrase=False),
        # every file path and each of its folders: the --path filter is one exact term
        paths=fields.KEYWORD(analyzer=path_analyzer()),
        # author name lowercased, whole and word by word: the --author filter
        author=fields.KEYWORD(analyzer=author_analyzer()),
        # commit time, unix seconds: --since / --until as a numeric range (4 terms per document);
        # stored, for the recency that breaks ties between candidates
        ts=fields.NUMERIC(int, bits=32, signed=False, shift_step=8, stored=True),
        # the unit's prior weight (heuristic confidence), read when ranking
        weight=fields.STORED(),
        # the commit a document stands for (a record: its first fixing commit, else its id):
        # search shows one hit per commit without loading the documents it does not show
        commit=fields.STORED(),
    )
