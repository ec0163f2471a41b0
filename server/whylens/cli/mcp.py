"""`whylens mcp`: the MCP server for coding agents, over stdio (needs ``whylens[mcp]``)."""

from __future__ import annotations

import sys
from pathlib import Path

from whylens.locate import locate
from whylens.errors import GitMissingError, InvalidInputError, NotARepositoryError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "mcp", help="an MCP server over stdio, so coding agents ask why before they edit")
    p.add_argument("--repo", default=".", help="the repository it answers for (default: the "
                                               "current folder)")
    p.add_argument("--index-dir", help="where the index lives (default: the user cache folder); "
                                       "never inside the repository")
    p.add_argument("--no-auto-index", action="store_false", dest="auto_index",
                   help="never start `whylens index`: without an index, tools say how to build it")
    p.set_defaults(handler=cmd_mcp)


SDK_MODULES = ("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "starlette")


def cmd_mcp(args) -> int:
    if args.index_dir:
        _refuse_index_in_repository(args.repo, Path(args.index_dir))
    try:
        from whylens.mcp.server import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in SDK_MODULES:
            raise
        print("whylens: `whylens mcp` needs the MCP SDK, an optional extra: "
              "pip install 'whylens[mcp]'", file=sys.stderr)
        return 1
    return serve(args.repo, args.index_dir, auto_index=args.auto_index)


def _refuse_index_in_repository(repo: str, index_dir: Path) -> None:
    try:
        root = locate(repo).root
    except (NotARepositoryError, GitMissingError):
        return  # the server starts and every tool says so
    folder = index_dir.resolve()
    if folder == root or root in folder.parents:
        raise InvalidInputError(f"--index-dir {index_dir} is inside the repository; WhyLens "
                                "never writes there, so pick a folder outside it")
