"""`whylens serve`: the language server over stdio (or TCP for debugging)."""

from __future__ import annotations

import logging
import sys

from whylens.errors import InvalidInputError


def register(subparsers) -> None:
    p = subparsers.add_parser("serve", help="run the language server (stdio by default)")
    p.add_argument("--tcp", type=int, metavar="PORT",
                   help="listen on 127.0.0.1:PORT instead of stdio (for debugging)")
    p.add_argument("--host", default="127.0.0.1", help="host for --tcp (default 127.0.0.1)")
    p.add_argument("--exclude", action="append", default=[], metavar="FEATURE",
                   help="leave a feature out (repeatable): indexing, hover, code_lens, pitfalls, "
                        "requests")
    p.add_argument("--log-level", default="warning",
                   choices=("error", "warning", "info", "debug"),
                   help="level of the log on stderr (the editor gets window/logMessage)")
    p.set_defaults(handler=cmd_serve)


def cmd_serve(args) -> int:
    # Imported here so other commands never pay for pygls.
    from whylens.lsp.server import create_server

    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(getattr(logging, args.log_level.upper()))
    stderr.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger().addHandler(stderr)
    logging.getLogger("pygls").setLevel(logging.WARNING)
    try:
        server = create_server(exclude=args.exclude)
    except ValueError as exc:
        raise InvalidInputError(str(exc)) from exc
    if args.tcp is not None:
        if not 0 < args.tcp < 65536:
            raise InvalidInputError(f"--tcp {args.tcp} is not a port number")
        server.start_tcp(args.host, args.tcp)
    else:
        server.start_io()
    return 0
