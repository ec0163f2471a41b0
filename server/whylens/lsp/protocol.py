"""WhyLens's own LSP methods: names and payload shapes, declared once (the client mirrors them).

Keys are camelCase on the wire. Positions and ranges are LSP ones (0-based, client units).

Requests, client → server (each answers ``null`` when it cannot answer; never an error):

- ``whylens/search`` ``{query: str, k?: int = 10, types?: ("fact"|"skill"|"pattern"|"decision")[],
  uri?: str}`` → the CLI's ``search --json`` object ``{query, abstained, results: [{id, type, title,
  content, score, commit, author, date, files, symbols, source, url, ...}]}``.
  ``uri`` (any file or folder URI) picks the workspace; default: the first indexed one.
- ``whylens/why`` ``{uri: str, position: Position}`` → ``models.Story`` as data
  (``dataclasses.asdict``: ``{path, symbol: {name, kind, start_line, end_line, name_line, name_col,
  name_end_col} | null, history: [HistoryEntry], units: [Unit], records: [Record], outcomes:
  [[record id, status]], summary}``, snake_case field names as in ``models.py``) plus ``known``
  and ``markdown`` (the full rationale); ``null`` when nothing is known.
- ``whylens/explainError`` ``{text: str, uri?: str}`` → ``{count, pitfalls: [{id, type, title,
  reason, score, line, url, fix: {id, title, url} | null}], markdown}``; ``null`` without an index.
- ``whylens/prSuggestions`` ``{base?: str, head?: str, uri?: str}`` → ``{base, head, suggestions:
  [{path, line, side, kind, body, confidence, evidence, symbol}], notices: [str]}`` (what
  ``whylens pr-comments --format json`` prints, run as a child process: the review reads git;
  ``notices`` say when there was nothing to review or the diff was capped); ``base``/``head``
  default to the merge base with the default branch / the working tree.

Notifications:

- client → server ``whylens/errorsChanged`` ``{uri: str, errors: [{range: Range, message: str,
  source?: str, code?: str|int}]}``: the complete current error list of that document (an empty
  list clears its hints).
- server → client ``whylens/indexStatus`` ``{folder: str (workspace folder URI), state: "idle" |
  "indexing" | "degraded" | "error", percent: int | null, units: int, records: int, message: str}``.

Commands (``workspace/executeCommand``; the ``whylens.server.`` prefix marks server commands):

- ``whylens.server.explainSymbol`` arguments ``[uri: str, symbol: str]`` (the code lens form) or
  ``[{uri?: str, path?: str, symbol?: str, position?: Position}]`` (``path`` relative to the first
  repository) → the symbol's full story as markdown (str), or ``null``. It is the command of
  every WhyLens code lens.
- ``whylens.server.reindex`` arguments ``[]`` or ``[folderUri]`` → ``null``; starts an index run.
"""

from __future__ import annotations

import logging
from typing import Any

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, override
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

from whylens.config import describe_error, to_camel
from whylens.errors import InvalidInputError

log = logging.getLogger(__name__)


def _valid_id(value: Any) -> bool:
    return isinstance(value, (int, str)) and not isinstance(value, bool)


SEARCH = "whylens/search"
WHY = "whylens/why"
EXPLAIN_ERROR = "whylens/explainError"
PR_SUGGESTIONS = "whylens/prSuggestions"
ERRORS_CHANGED = "whylens/errorsChanged"
INDEX_STATUS = "whylens/indexStatus"

CMD_EXPLAIN_SYMBOL = "whylens.server.explainSymbol"
CMD_REINDEX = "whylens.server.reindex"

CLIENT_REQUESTS = (SEARCH, WHY, EXPLAIN_ERROR, PR_SUGGESTIONS)
NOTIFICATIONS = (ERRORS_CHANGED, INDEX_STATUS)

INDEX_STATES = ("idle", "indexing", "degraded", "error")
SEARCH_TYPES = ("fact", "skill", "pattern", "decision")
MAX_QUERY_CHARS = 1_000
MAX_ERROR_TEXT_CHARS = 200_000
MAX_ERRORS = 500


def _positive_k(_inst, _attr, value: int) -> None:
    if not 1 <= value <= 100:
        raise ValueError(f"k must be between 1 and 100, got {value}")


def _short_text(limit: int):
    def check(_inst, attr, value: str) -> None:
        if len(value) > limit:
            raise ValueError(f"{attr.name} is longer than {limit} characters")

    return check


def _safe_rev(_inst, attr, value: str | None) -> None:
    # a revision is passed to a git command line: no options, no whitespace, bounded
    if value is not None and (value.startswith("-") or not value.strip() or len(value) > 200
                              or any(ch.isspace() for ch in value)):
        raise ValueError(f"{attr.name} is not a valid revision: {value!r}")


@attrs.frozen
class SearchParams:
    query: str = attrs.field(validator=_short_text(MAX_QUERY_CHARS))
    k: int = attrs.field(default=10, validator=_positive_k)
    types: tuple[str, ...] | None = attrs.field(
        default=None,
        validator=attrs.validators.optional(  # attrs' stubs cannot solve deep_iterable's type
            attrs.validators.deep_iterable(attrs.validators.in_(SEARCH_TYPES))),  # type: ignore[arg-type]
    )
    uri: str | None = None


@attrs.frozen
class WhyParams:
    uri: str
    position: types.Position


@attrs.frozen
class ExplainErrorParams:
    text: str = attrs.field(validator=_short_text(MAX_ERROR_TEXT_CHARS))
    uri: str | None = None


@attrs.frozen
class PrSuggestionsParams:
    base: str | None = attrs.field(default=None, validator=_safe_rev)
    head: str | None = attrs.field(default=None, validator=_safe_rev)
    uri: str | None = None


@attrs.frozen
class ReportedError:
    range: types.Range
    message: str = ""
    source: str | None = None
    code: str | int | None = None


@attrs.frozen
class ErrorsChangedParams:
    uri: str
    errors: tuple[ReportedError, ...] = attrs.field(
        default=(), validator=attrs.validators.max_len(MAX_ERRORS))


def _code_hook(value: Any, _type: Any) -> str | int | None:
    if value is None or isinstance(value, (str, int)) and not isinstance(value, bool):
        return value
    raise TypeError(f"code must be a string or a number, got {value!r}")


def _make_converter() -> cattrs.Converter:
    lsp = get_converter()
    conv = cattrs.Converter(forbid_extra_keys=False)
    for kind in (types.Position, types.Range):
        conv.register_structure_hook(kind, lambda value, t: lsp.structure(value, t))
    conv.register_structure_hook(str | int | None, _code_hook)

    def strict_str(value: Any, _type: Any) -> str:
        if not isinstance(value, str):
            raise TypeError(f"expected a string, got {type(value).__name__}")
        return value

    def strict_int(value: Any, _type: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"expected an integer, got {type(value).__name__}")
        return value

    conv.register_structure_hook(str, strict_str)
    conv.register_structure_hook(int, strict_int)

    def factory(cls):
        renames: dict[str, Any] = {a.name: override(rename=to_camel(a.name))
                                   for a in attrs.fields(cls)}
        return make_dict_structure_fn(cls, conv, **renames)

    conv.register_structure_hook_factory(
        lambda cls: attrs.has(cls) and cls.__module__ == __name__, factory)
    return conv


_CONVERTER = _make_converter()
for _cls in (SearchParams, WhyParams, ExplainErrorParams, PrSuggestionsParams, ReportedError,
             ErrorsChangedParams):
    attrs.resolve_types(_cls, globals(), locals())


def parse_params(raw: Any, cls: type):
    """Wire params (a dict) → the payload class; bad params raise ``InvalidInputError``."""
    if not isinstance(raw, dict):
        raise InvalidInputError(f"expected an object as params, got {type(raw).__name__}")
    try:
        return _CONVERTER.structure(raw, cls)
    except Exception as exc:
        detail = describe_error(exc)
        raise InvalidInputError(f"invalid params for {cls.__name__}: {detail}") from exc


def index_status(folder: str, state: str, percent: int | None = None, units: int = 0,
                 records: int = 0, message: str = "") -> dict:
    """The ``whylens/indexStatus`` payload."""
    assert state in INDEX_STATES, state
    return {"folder": folder, "state": state, "percent": percent, "units": units,
            "records": records, "message": message}


@attrs.define
class RawRequest:
    """A request whose params stay the plain dict from the wire (pygls would make namedtuples)."""

    id: Any
    method: str
    jsonrpc: str
    params: Any = None


@attrs.define
class RawNotification:
    method: str
    jsonrpc: str
    params: Any = None


@attrs.define
class Refused:
    """A message whose params did not fit its method; already answered (requests) and logged."""

    method: str
    jsonrpc: str = "refused"


class WhyLensProtocol(LanguageServerProtocol):
    """pygls's protocol, with WhyLens's own methods carried as plain dicts.

    Every request is answered: pygls drops a message whose params do not fit its type (a
    position that is negative, at least 2^32, null or not an integer; a hover without a text
    document) without answering it, so the client waits forever, and reports it as a server error
    (a pop-up). Here such a request gets an InvalidParams error response, a notification is
    dropped, and both are logged only.
    """

    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if not isinstance(data, dict):
                raise
            method = str(data.get("method", ""))
            log.warning("refused %s %r: its params do not fit (%s)", method or "a message",
                        data.get("id"), exc.message)
            if "id" in data and method and _valid_id(data["id"]):
                error = JsonRpcInvalidParams(f"invalid params for {method}")
                self._send_response(data["id"], None, error.to_response_error())
            return Refused(method)

    def handle_message(self, message) -> None:
        if isinstance(message, Refused):
            return
        super().handle_message(message)

    # pygls declares this with functools.lru_cache, which no plain method can match in type
    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in CLIENT_REQUESTS:
            return RawRequest
        if method in NOTIFICATIONS:
            return RawNotification
        return super().get_message_type(method)
