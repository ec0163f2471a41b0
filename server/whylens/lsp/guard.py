"""Every handler is wrapped: an exception is logged with its traceback and answered with null."""

from __future__ import annotations

import asyncio
import functools
import logging

from whylens.errors import WhyLensError

log = logging.getLogger("whylens.lsp")


def guarded(fn):
    """Wrap a handler (sync or async) so that a failure logs and returns None.

    The signature is kept (``functools.wraps``), so pygls still sees the ``ls`` first parameter.
    """
    name = fn.__qualname__

    def failed(exc: BaseException) -> None:
        if isinstance(exc, WhyLensError):  # bad params or a known condition: its message says it
            log.warning("%s: %s", name, exc)
        else:
            log.error("%s failed", name, exc_info=exc)

    if asyncio.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def wrapper_async(*args, **kwargs):
            try:
                return await fn(*args, **kwargs)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                failed(exc)
                return None

        return wrapper_async

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            failed(exc)
            return None

    return wrapper
