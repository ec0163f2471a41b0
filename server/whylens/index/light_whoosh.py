"""Import Whoosh without two standard-library packages it loads and never uses here.

``whoosh.compat`` runs ``from urllib.request import urlretrieve`` (urllib.request pulls in
http.client, email, ssl) and ``whoosh.reading`` imports the ``cached_property`` package, which
imports ``asyncio`` for its coroutine support. Neither is used by a search: a ``whylens search``
process spent about a sixth of its import time on them (37 ms CPU of ~65 ms for Whoosh, with a
bytecode cache). ``load()`` imports those two modules while stand-ins occupy the two names, then
removes the stand-ins, so any later ``import asyncio`` or ``import urllib.request`` gets the
real module. The stand-ins forward everything to the real module, imported on first use:
``urlretrieve`` when called, ``asyncio`` on any attribute but ``iscoroutinefunction`` (which is
``inspect``'s while asyncio is not loaded: what cached_property asks of a plain function).
When either module is already loaded (the language server runs on asyncio) it is used as is.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from typing import Any


class _LazyAsyncio(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name == "iscoroutinefunction" and "asyncio" not in sys.modules:
            return inspect.iscoroutinefunction
        return getattr(importlib.import_module("asyncio"), name)


def _urlretrieve(*args: Any, **kwargs: Any) -> Any:
    return importlib.import_module("urllib.request").urlretrieve(*args, **kwargs)


def load() -> None:
    """Import ``whoosh.compat`` and ``cached_property`` behind the stand-ins (once)."""
    if "whoosh.compat" in sys.modules:
        return
    placed = []
    if "urllib.request" not in sys.modules:
        request = types.ModuleType("urllib.request")
        request.urlretrieve = _urlretrieve  # type: ignore[attr-defined]
        sys.modules["urllib.request"] = request
        placed.append("urllib.request")
    if "asyncio" not in sys.modules:
        sys.modules["asyncio"] = _LazyAsyncio("asyncio")
        placed.append("asyncio")
    try:
        importlib.import_module("whoosh.compat")
        try:
            importlib.import_module("cached_property")
        except ImportError:  # a Whoosh that no longer needs it
            pass
    finally:
        for name in placed:
            sys.modules.pop(name, None)
