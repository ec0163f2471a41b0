"""The handler guard: failures are logged and answered with None; pygls still injects ``ls``."""

from __future__ import annotations

import asyncio
import logging

from pygls.feature_manager import has_ls_param_or_annotation

from whylens.errors import InvalidInputError
from whylens.lsp.guard import guarded


def test_sync_failure_is_logged_and_answers_none(caplog):
    @guarded
    def handler(ls, params):
        raise KeyError("boom")

    with caplog.at_level(logging.ERROR, logger="whylens.lsp"):
        assert handler(object(), {}) is None
    assert "handler failed" in caplog.text and "KeyError" in caplog.text


def test_bad_input_is_a_warning_without_traceback(caplog):
    @guarded
    def handler(ls, params):
        raise InvalidInputError("k must be between 1 and 100")

    with caplog.at_level(logging.WARNING, logger="whylens.lsp"):
        assert handler(None, None) is None
    assert "k must be between" in caplog.text and "Traceback" not in caplog.text


def test_async_handlers_and_results_pass_through():
    @guarded
    async def ok(ls, params):
        return {"answer": params}

    @guarded
    async def broken(ls, params):
        raise RuntimeError("no")

    assert asyncio.run(ok(None, 1)) == {"answer": 1}
    assert asyncio.run(broken(None, 1)) is None
    assert asyncio.iscoroutinefunction(ok)


def test_pygls_still_sees_the_server_parameter():
    @guarded
    def handler(ls, params):
        return None

    assert has_ls_param_or_annotation(handler, object)
