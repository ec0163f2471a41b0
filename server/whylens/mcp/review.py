"""`review_diff`: `whylens pr-comments --format json` in a child process, as the editor does.

The review diffs with git through GitPython, which must not load into this long-running process;
the child prints the same JSON as the CLI. A unified diff given as text goes to the child on
stdin (``--diff -``). Revisions are checked before they reach a command line, and a cancelled
call (or a client that went away) kills the child.
"""

from __future__ import annotations

import json
import subprocess

import anyio

from whylens import child_command
from whylens.errors import InvalidInputError, WhyLensError
from whylens.history.patch import MAX_PATCH_BYTES
from whylens.mcp.keeper import IndexKeeper

REVIEW_TIMEOUT_S = 120
MAX_REVISION_CHARS = 256


def check_revision(name: str, value: str | None) -> str | None:
    """A revision as typed (a branch, tag, sha, ``HEAD~2``…); never an option or a second word."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.startswith("-"):
        raise InvalidInputError(f"{name} {value!r} starts with '-'; revisions never do")
    if len(value) > MAX_REVISION_CHARS or any(c.isspace() or ord(c) < 32 for c in value):
        raise InvalidInputError(f"{name} {value[:60]!r} is not a revision (a branch, tag or sha)")
    return value


def review_command(keeper: IndexKeeper, base: str | None, head: str | None,
                   diff: str | None) -> tuple[list[str], bytes | None]:
    """The child's command line and what goes to its stdin (checked; raises on bad input)."""
    base, head = check_revision("base", base), check_revision("head", head)
    data = None
    if diff is not None and diff.strip():
        if base or head:
            raise InvalidInputError("give either diff or base/head, not both")
        data = diff.encode("utf-8", "replace")
        if len(data) > MAX_PATCH_BYTES:
            raise InvalidInputError(
                f"the diff is {len(data) / 1e6:.1f} MB; the limit is {MAX_PATCH_BYTES / 1e6:.0f} "
                "MB. Review a change that big by its revisions (base/head)")
    root = keeper.root  # raises the repository's problem, if it has one
    command = child_command("pr-comments", "--repo", str(root),
                            "--index-dir", str(keeper.index_dir()), "--format", "json")
    if data is not None:
        command += ["--diff", "-"]
    command += [f"--base={base}"] if base else []
    command += [f"--head={head}"] if head else []
    return command, data


async def run_review(keeper: IndexKeeper, command: list[str], data: bytes | None) -> dict:
    """The child's JSON; its last error line as a ``WhyLensError`` when it fails."""
    try:
        with anyio.fail_after(REVIEW_TIMEOUT_S):
            if data is None:
                done = await anyio.run_process(command, stdin=subprocess.DEVNULL, check=False,
                                               cwd=str(keeper.root))
            else:
                done = await anyio.run_process(command, input=data, check=False,
                                               cwd=str(keeper.root))
    except TimeoutError:
        raise WhyLensError(f"the review took longer than {REVIEW_TIMEOUT_S} s and was stopped; "
                           "review a smaller change") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.decode("utf-8", "replace").splitlines()
                 if line.strip()]
        message = lines[-1].removeprefix("whylens: ") if lines else f"exit code {done.returncode}"
        raise WhyLensError(f"the review failed: {message}")
    try:
        data_out = json.loads(done.stdout.decode("utf-8", "replace"))
    except ValueError as exc:
        raise WhyLensError(f"the review printed something that is not JSON: {exc}") from None
    if not isinstance(data_out, dict):
        raise WhyLensError("the review printed something that is not a JSON object")
    return data_out
