"""Which files a merge commit changed relative to each of its parents.

The walk prints no diff for merges; whatever is carried from commit to commit (the anchorer's
file states, the line blame) asks here instead, through one persistent
``git diff-tree --stdin -r --raw -z`` process: for each parent, one request ``<merge> <parent>``;
a last request ``<parent> <parent>`` (an empty diff that ``--always`` still announces) marks
where the answers end.
"""

from __future__ import annotations

import subprocess

from whylens.gitcli import path_text
from whylens.history.missing import names_missing_object
from whylens.history.repo import GitCommandError, GitProcess, Repository
from whylens.history.walk import memory_pins

_NULL = "0" * 40
MAX_FAILURES = 3  # merges git could not diff (missing trees) before it is asked no more
# git keeps every commit and tree it parsed until it exits: one diff-tree over git/git's 100k
# commits grew from 31 to 70 MB; started again after this many merges, it stays small
RESTART_AFTER = 2_000
Changed = dict[str, tuple[str | None, str | None]]  # path → (blob in the parent, in the merge)


class MergeFiles:
    """``changed(merge, parents)``; a context manager (the process starts on first use)."""

    def __init__(self, repo: Repository) -> None:
        self._repo = repo
        self._proc: GitProcess | None = None
        self._buffer = b""
        self.failures = 0  # merges git died on for lack of an object
        self._served = 0  # merges the running process answered

    def __enter__(self) -> MergeFiles:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def changed(self, merge: str, parents: tuple[str, ...]) -> list[Changed]:
        """For each parent, the files whose blob differs between it and the merge; [] (nothing
        known) when git lacks a tree of theirs (a partial clone without trees, damage); after
        ``MAX_FAILURES`` such merges, git is asked no more."""
        if not parents or self.failures >= MAX_FAILURES:
            return []
        try:
            return self._changed(merge, parents)
        except GitCommandError:
            proc, self._proc, self._buffer = self._proc, None, b""  # started again on next use
            if proc is not None:
                proc.close()
                if names_missing_object(proc.stderr_text()):
                    self.failures += 1
                    return []
            raise

    def _changed(self, merge: str, parents: tuple[str, ...]) -> list[Changed]:
        if self._served >= RESTART_AFTER:
            self.close()
        if self._proc is None:
            self._served = 0
        self._served += 1
        proc = self._proc = self._proc or self._repo.popen(
            [*memory_pins(), "diff-tree", "--stdin", "-r", "--raw", "-z", "--no-abbrev",
             "--no-renames", "--always"], stdin=subprocess.PIPE)
        request = "".join(f"{merge} {p}\n" for p in parents) + f"{parents[0]} {parents[0]}\n"
        try:
            proc.stdin.write(request.encode())
            proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise GitCommandError(("diff-tree", "--stdin"), "the process is gone") from exc
        answers: list[Changed] = []
        headers = 0
        while True:
            token = self._token()
            if not token.startswith(b":"):  # a header: the first sha of one request
                headers += 1
                if headers > len(parents):
                    return answers  # the closing request's header: every answer is in
                answers.append({})
                continue
            meta = token[1:].split(b" ")
            path = path_text(self._token())  # as the walk names paths
            if len(meta) >= 4 and answers:
                before, after = meta[2].decode(), meta[3].decode()
                answers[-1][path] = (None if before == _NULL else before,
                                     None if after == _NULL else after)

    def _token(self) -> bytes:
        """The next NUL-terminated field of the output."""
        while True:
            end = self._buffer.find(b"\0")
            if end >= 0:
                token, self._buffer = self._buffer[:end], self._buffer[end + 1:]
                return token
            chunk = self._proc.stdout.read1(1 << 16) if self._proc else b""
            if not chunk:
                raise GitCommandError(("diff-tree", "--stdin"), "the process ended early")
            self._buffer += chunk

    def close(self) -> None:
        if self._proc is not None:
            self._proc.close()
            self._proc = None
