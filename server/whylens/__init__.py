import sys

__version__ = "0.1.0"


def child_command(*args: str) -> list[str]:
    """``whylens <args>`` as a child process of this Python: ``-P`` keeps the working folder (a
    repository, for the indexer and the review) off the import path, so a ``whylens`` package
    in a repository never shadows this one."""
    return module_command("whylens", *args)


def module_command(module: str, *args: str) -> list[str]:
    """``python -P -m <module> <args>`` with this Python (see ``child_command``)."""
    return [sys.executable, "-P", "-m", module, *args]
