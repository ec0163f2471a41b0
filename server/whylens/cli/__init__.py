"""The `whylens` command line: one module per command group, each with ``register(subparsers)``.

A command handler takes the parsed ``args`` and returns an exit code (0 ok, 1 error, 2 bad input).
A ``WhyLensError`` raised anywhere becomes its message on stderr and its ``exit_code``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from whylens import __version__
from whylens.errors import WhyLensError

# Order is the order of `whylens --help`.
COMMAND_MODULES = ("indexing", "why", "review", "records", "serve", "mcp")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="whylens",
        description="Why is this code like this? Answers from the repository's own history.",
    )
    parser.add_argument("--version", action="version", version=f"whylens {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"whylens.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None, parser: argparse.ArgumentParser | None = None) -> int:
    """Run one command; ``parser`` is ``build_parser()``'s, when the caller built it ahead."""
    parser = parser or build_parser()
    args = parser.parse_args(argv)
    if args.command != "serve":  # `serve` forwards its records to the editor instead
        # Warnings (an index rebuilt, a file skipped) go to stderr as plain lines.
        logging.basicConfig(level=logging.WARNING, format="whylens: %(message)s")
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except WhyLensError as exc:
        print(f"whylens: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("whylens: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
