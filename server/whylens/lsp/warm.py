"""One indexer child started ahead of need: imports done, waiting for its command on a pipe.

A one-commit update used to spend most of its time starting ``whylens index`` (imports, the
encoder's table, the sentence model: see ``whylens.cli.warm``). ``WarmChild`` keeps one such
child idle for the whole server (never more than one); an index run takes it and sends it the
command, then a new one is started once that run is over (each child does one run, so
GitPython's leak stays bounded). A child that died idle, or that could not take its command,
means this run starts a cold ``whylens index`` as before (said once in the log). The idle child
is killed on shutdown; if the server dies instead, the child reads the end of its input and
exits. ``WHYLENS_WARM_INDEXER=0`` turns it off (every run starts a cold child).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Iterable

from whylens import module_command
from whylens.progress import WARM_READY

log = logging.getLogger(__name__)

WARM_MODULE = "whylens.cli.warm"
READY = WARM_READY.encode()  # what the child prints when its imports are done
SWITCH = "WHYLENS_WARM_INDEXER"


def warm_command(languages: Iterable[str] = ()) -> list[str]:
    names = ",".join(sorted(set(languages)))
    return module_command(WARM_MODULE, *(("--languages", names) if names else ()))


class WarmChild:
    """The idle warm child (at most one), handed to one index run at a time."""

    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = os.environ.get(SWITCH, "1") != "0" if enabled is None else enabled
        self.started = 0  # children started (for the log and the tests)
        self._proc: asyncio.subprocess.Process | None = None
        self._starting: asyncio.Task | None = None
        self._closed = False
        self._warned = False

    @property
    def idle(self) -> asyncio.subprocess.Process | None:
        return self._proc

    def prepare(self, languages: Iterable[str] = ()) -> None:
        """Start the next child unless one is idle or starting (or warm children are off)."""
        if not self.enabled or self._closed or self._starting is not None:
            return
        if self._proc is not None and self._proc.returncode is None:
            return
        self._proc = None
        self._starting = asyncio.ensure_future(self._start(list(languages)))

    async def _start(self, languages: list[str]) -> None:
        try:
            proc = await asyncio.create_subprocess_exec(
                *warm_command(languages), stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, limit=1 << 20)
        except OSError as exc:
            self.failed(f"it could not be started ({exc})")
            return
        finally:
            self._starting = None
        self.started += 1
        if self._closed:
            kill(proc)
            return
        self._proc = proc
        log.debug("warm indexer child %d started (pid %d)", self.started, proc.pid)

    async def take(self) -> asyncio.subprocess.Process | None:
        """The idle child, now the caller's (it may still be importing: still ahead of a cold
        start); None when there is none to take."""
        if self._starting is not None:
            await asyncio.shield(self._starting)  # a few milliseconds: worth waiting for
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        if proc.returncode is not None:
            self.failed(f"it ended while idle (exit code {proc.returncode})")
            return None
        return proc

    async def tell(self, proc: asyncio.subprocess.Process, argv: list[str], cwd: str) -> bool:
        """Send ``proc`` its command (``argv`` as for ``whylens``); False when it cannot take it
        (then it is killed)."""
        assert proc.stdin is not None
        order = json.dumps({"argv": argv, "cwd": cwd}).encode() + b"\n"
        try:
            proc.stdin.write(order)
            await asyncio.wait_for(proc.stdin.drain(), 5)
            proc.stdin.close()
        except (OSError, asyncio.TimeoutError) as exc:  # BrokenPipe, ConnectionReset
            kill(proc)
            self.failed(f"it did not take its command ({exc or type(exc).__name__})")
            return False
        return True

    def failed(self, why: str) -> None:
        """Say once per session that a warm child failed; the run goes on with a cold one."""
        if self._warned:
            log.info("warm indexer child failed again: %s", why)
            return
        self._warned = True
        log.warning("the warm indexer child failed: %s; this run starts `whylens index` "
                    "as a new process instead", why)

    def close(self) -> None:
        """Kill the idle child and start no more (shutdown)."""
        self._closed = True
        if self._starting is not None:
            self._starting.cancel()
        if self._proc is not None:
            kill(self._proc)
            self._proc = None


def kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass
