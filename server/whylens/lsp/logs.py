"""Python logging → ``window/logMessage``, so server logs land in the editor's output channel."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from whylens.lsp.server import WhyLensServer

_LEVELS = (
    (logging.ERROR, types.MessageType.Error),
    (logging.WARNING, types.MessageType.Warning),
    (logging.INFO, types.MessageType.Info),
)
LEVEL_BY_SETTING = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO,
                    "debug": logging.DEBUG}
MAX_BUFFERED = 500


class WindowLogHandler(logging.Handler):
    """Sends records as ``window/logMessage``; buffers them until the client is initialized.

    pygls's own records are skipped: sending a message logs, and that would recurse.
    Only records from the event-loop thread are sent directly; others are handed to the loop.
    """

    def __init__(self, server: WhyLensServer, level: int = logging.INFO) -> None:
        super().__init__(level)
        self.server = server
        self.ready = False
        self._buffer: list[logging.LogRecord] = []
        self._sending = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(("pygls", "asyncio")) or getattr(self._sending, "on", False):
            return
        if not self.ready:
            if len(self._buffer) < MAX_BUFFERED:
                self._buffer.append(record)
            return
        self._send(record)

    def start(self) -> None:
        """Called once the client is initialized: flush what was buffered."""
        self.ready = True
        buffered, self._buffer = self._buffer, []
        for record in buffered:
            if record.levelno >= self.level:
                self._send(record)

    def _send(self, record: logging.LogRecord) -> None:
        kind = next((t for level, t in _LEVELS if record.levelno >= level), types.MessageType.Log)
        try:
            message = self.format(record)
        except Exception:  # a bad format string must not break logging
            message = str(record.msg)
        params = types.LogMessageParams(type=kind, message=message)
        loop = self.server.loop
        if loop is not None and threading.current_thread() is not threading.main_thread():
            loop.call_soon_threadsafe(self._send_now, params)
        else:
            self._send_now(params)

    def _send_now(self, params: types.LogMessageParams) -> None:
        self._sending.on = True
        try:
            self.server.window_log_message(params)
        except Exception:  # the connection is gone; nothing useful to do
            pass
        finally:
            self._sending.on = False


def install(server: WhyLensServer) -> WindowLogHandler:
    """Attach the handler to the ``whylens`` logger tree."""
    handler = WindowLogHandler(server)
    handler.setFormatter(logging.Formatter("[%(levelname)s %(name)s] %(message)s"))
    root = logging.getLogger("whylens")
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    return handler
