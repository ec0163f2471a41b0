"""Python logging reaches the client as window/logMessage, after `initialized`, never recursing."""

from __future__ import annotations

import json
import logging

from whylens.lsp.server import WhyLensServer


class Sink:
    """Where the server writes its JSON-RPC messages (stands in for stdout)."""

    def __init__(self) -> None:
        self.messages: list[dict] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data.decode()))

    def close(self) -> None:
        pass


def test_records_are_buffered_until_ready_then_sent_as_log_messages():
    server = WhyLensServer()
    sink = Sink()
    server.protocol.set_writer(sink, include_headers=False)
    log = logging.getLogger("whylens.test.logs")
    try:
        log.warning("early %s", "warning")
        logging.getLogger("pygls.protocol").warning("pygls's own record")
        assert sink.messages == []  # not initialized yet
        server.log_handler.start()
        log.error("after start")
        log.debug("below the level")
        sent = [(m["params"]["type"], m["params"]["message"]) for m in sink.messages
                if m.get("method") == "window/logMessage"]
        assert sent == [(2, "[WARNING whylens.test.logs] early warning"),
                        (1, "[ERROR whylens.test.logs] after start")]
    finally:
        logging.getLogger("whylens").removeHandler(server.log_handler)


def test_settings_choose_the_level():
    server = WhyLensServer()
    try:
        server.apply_settings({"logging": {"level": "debug"}})
        assert server.log_handler.level == logging.DEBUG
        server.apply_settings({"logging": {"level": "error"}})
        assert server.log_handler.level == logging.ERROR
    finally:
        logging.getLogger("whylens").removeHandler(server.log_handler)
