"""The language server's warm indexer child: imports done, waiting for one ``whylens index``.

The server never indexes in its own process (GitPython leaks in long-running processes, Whoosh
writes are CPU-bound), so every index run is a child process. Of a cold one-commit update most
of the time is the child starting: imports (numpy, GitPython, Whoosh, tree-sitter, ~300
regular expressions compiled at import) and the encoder's table and sentence model loaded.
The server keeps one child started ahead, ``python -P -m whylens.cli.warm [--languages
python,c]``: it does all of that, prints ``READY``, then blocks on one line of its input:

    {"argv": ["index", "--repo", ..., "--index-dir", ..., "--progress", "json"], "cwd": ...}

It runs that command exactly as ``whylens ...`` would (same output, same exit code) and exits:
one run per process, so GitPython's leak never outlives a run. End of input (the server shut
down, exited or died) ends it without having touched any repository.
"""

from __future__ import annotations

import json
import logging
import os
import sys

from whylens.progress import WARM_READY

READY = WARM_READY  # not a progress line: ``progress.parse_line`` reads it as None
COMMANDS = ("index",)  # what the server may ask a warm child to run


def preload(languages: list[str]) -> None:
    """Everything a one-commit ``whylens index`` would import or load, nothing that reads a
    repository or an index; the grammars of ``languages`` (those of the editor's open files:
    a commit usually changes them; all twelve would take about a second and 26 MB)."""
    import whylens.pipeline  # noqa: F401  (history, knowledge, symbols, records)
    import whylens.index.reader  # noqa: F401  (a resumed run opens the index)
    import whylens.index.writer  # noqa: F401  (imported when the store opens its writer)
    import whylens.records.github  # noqa: F401
    from whylens.index.vectors import encoder
    from whylens.knowledge.classify import default_model

    encoder()  # the static encoder's token table (numpy), checked against its sha256
    default_model()  # the sentence classifier
    from whylens.symbols.parse import grammar

    for language in languages:
        grammar(language)  # parser and queries; None (logged) for an unknown name


def read_order(line: bytes) -> tuple[list[str], str | None]:
    """The command line and working folder the server sent; ValueError when malformed."""
    order = json.loads(line)
    if not isinstance(order, dict):
        raise ValueError("not an object")
    argv, cwd = order.get("argv"), order.get("cwd")
    if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)):
        raise ValueError("argv must be a non-empty list of strings")
    if argv[0] not in COMMANDS:
        raise ValueError(f"a warm child runs only {', '.join(COMMANDS)}, not {argv[0]!r}")
    if cwd is not None and not isinstance(cwd, str):
        raise ValueError("cwd must be a string")
    return argv, cwd


def main() -> int:
    from whylens.cli import build_parser, main as run

    parser = build_parser()  # imports every command module
    languages = sys.argv[sys.argv.index("--languages") + 1].split(",") \
        if "--languages" in sys.argv[1:-1] else []
    preload([name for name in languages if name])
    print(READY, flush=True)
    line = sys.stdin.buffer.readline()
    if not line.strip():
        return 0  # the server went away before it needed this child
    try:
        argv, cwd = read_order(line)
    except ValueError as exc:
        print(f"whylens: the warm indexer child got a bad command: {exc}", file=sys.stderr)
        return 2
    devnull = os.open(os.devnull, os.O_RDONLY)  # nothing the run starts holds the server's pipe
    os.dup2(devnull, 0)
    os.close(devnull)
    if cwd:
        os.chdir(cwd)
    return run(argv, parser)


def finish(code: int) -> None:
    """Exit without the interpreter's teardown (freeing every module's objects: 0.1-0.3 s after
    the summary, which the server would wait for). The run closed its files and processes."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    finish(main())
