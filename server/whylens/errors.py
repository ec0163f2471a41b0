"""WhyLens errors: each carries a message a user can act on."""

from __future__ import annotations


class WhyLensError(Exception):
    """Base class; ``str(err)`` is shown to the user as is. ``exit_code`` is the CLI's."""

    exit_code = 1


class GitMissingError(WhyLensError):
    def __init__(self) -> None:
        super().__init__("git was not found on PATH; install git (2.25 or newer) and try again")


class GitCommandError(WhyLensError):
    """A git command failed for a reason the user can read in git's own words."""

    def __init__(self, args: tuple[str, ...], stderr: str) -> None:
        detail = stderr.strip().splitlines()[-1] if stderr.strip() else "no message"
        super().__init__(f"`git {' '.join(args)}` failed: {detail}")


class NotARepositoryError(WhyLensError):
    def __init__(self, path: str) -> None:
        super().__init__(f"{path} is not inside a git repository; pass --repo PATH to a clone")


class EmptyRepositoryError(WhyLensError):
    """No commit to start from: an empty repository, or HEAD on a branch with no commit yet."""

    def __init__(self, path: str, branch: str | None = None, others: bool = False) -> None:
        if branch is None:
            message = f"{path} has no commits yet; there is no history to learn from"
        else:
            message = f"the branch {branch!r} of {path} has no commits yet"
            message += ("; other branches have some: check one out (or pass --rev)" if others
                        else "; there is no history to learn from")
        super().__init__(message)


class UnknownRevisionError(WhyLensError):
    def __init__(self, rev: str) -> None:
        super().__init__(f"unknown revision {rev!r}; check the branch, tag or sha")


class IndexMissingError(WhyLensError):
    def __init__(self, path: str) -> None:
        super().__init__(f"no WhyLens index at {path}; run `whylens index` first")


class IndexLockedError(WhyLensError):
    def __init__(self, path: str) -> None:
        super().__init__(
            f"the index at {path} is being written by another whylens process; wait for it to "
            "finish, or remove the lock file if no whylens process is running"
        )


class IndexCorruptError(WhyLensError):
    def __init__(self, path: str, detail: str = "") -> None:
        extra = f" ({detail})" if detail else ""
        super().__init__(
            f"the index at {path} cannot be read{extra}; delete that folder and run "
            "`whylens index` to rebuild it (it is derived from git and loses nothing)"
        )


class IndexWriteError(WhyLensError):
    """The index folder cannot be written: the disk is full, a size limit was hit, or the
    folder is read-only. Whatever was indexed before stays readable."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            f"cannot write the index at {path} ({reason}); the index as it was before this run "
            "is unchanged and still answers. Free some disk space, or point WhyLens at a "
            "writable folder (--index-dir, or the whylens.index.directory setting), then "
            "index again"
        )


class IndexOutdatedError(IndexCorruptError):
    """The index was written by another WhyLens version (its schema differs): `whylens index`
    rebuilds it from git."""

    def __init__(self, path: str, found: object, expected: object) -> None:
        self.found, self.expected = found, expected
        super().__init__(path, f"it was built by another WhyLens version: schema {found}, this "
                               f"one reads {expected}")


class AnchorWorkerError(WhyLensError):
    """The anchor worker process failed; ``worker_traceback`` holds its traceback, if any."""

    def __init__(self, message: str, worker_traceback: str = "") -> None:
        super().__init__(message)
        self.worker_traceback = worker_traceback


class InvalidInputError(WhyLensError):
    """Bad arguments or parameters (CLI exit 2)."""

    exit_code = 2


class SemanticDataError(WhyLensError):
    """A data file of the semantic matcher is missing, corrupt or not the one it was built with.
    Callers fall back to lexical search and say so once."""

    def __init__(self, path: str, detail: str) -> None:
        self.path = path
        self.detail = detail
        super().__init__(
            f"the semantic model file {path} is unusable ({detail}); reinstall WhyLens "
            "(`pip install --force-reinstall whylens`) to restore it; search stays lexical until then"
        )


class SemanticExtraMissingError(WhyLensError):
    """The optional full-model re-ranker was asked for but its packages are not installed."""

    def __init__(self, missing: str) -> None:
        self.missing = missing
        super().__init__(
            f"the optional semantic re-ranker needs {missing}; install it with "
            "`pip install 'whylens[semantic]'` (the default static matcher works without it)"
        )


class UnknownTargetError(InvalidInputError):
    """A file or symbol that is neither in the working tree nor in the index (CLI exit 2);
    ``suggestions`` are up to three close names."""

    def __init__(self, what: str, name: str, where: str, suggestions: list[str]) -> None:
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"no {what} {name!r} in {where}{hint}")
        self.suggestions = suggestions
