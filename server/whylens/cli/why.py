"""`whylens why PATH[:LINE]` and `whylens explain-error` (stdin): stories and known pitfalls."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from whylens.cli.common import add_repo_args, location, open_reader, web_links
from whylens.errors import InvalidInputError, WhyLensError
from whylens.models import RECORD_TYPE, Pitfall, Unit

if TYPE_CHECKING:
    from whylens.history.links import WebLinks
    from whylens.index.reader import IndexReader

MAX_STDIN_BYTES = 2_000_000


def register(subparsers) -> None:
    p = subparsers.add_parser("why", help="why is this code like this: a symbol's story")
    p.add_argument("target", metavar="PATH[:LINE]",
                   help="a file (relative to the current folder or the repository root), "
                        "optionally with a 1-based line")
    p.add_argument("--symbol", help="a qualified symbol name in PATH instead of a line")
    p.add_argument("--all", action="store_true",
                   help="everything known (by default: the most explanatory items that fit in "
                        "about 4,000 characters)")
    add_repo_args(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=cmd_why)

    p = subparsers.add_parser("explain-error",
                              help="known pitfalls behind an error or stack trace read from stdin")
    add_repo_args(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=cmd_explain_error)


def split_target(target: str) -> tuple[str, int | None]:
    """``"a/b.py:12"`` → ``("a/b.py", 12)``; a path without a numeric suffix has no line."""
    path, sep, tail = target.rpartition(":")
    if sep and path and tail.isdigit():
        line = int(tail)
        if line < 1:
            raise InvalidInputError(f"line {line} in {target!r}: lines start at 1")
        return path, line
    if sep and path and tail.lstrip("-").isdigit():
        raise InvalidInputError(f"line {tail} in {target!r}: lines start at 1")
    return target, None


def resolve_path(path: str, root: Path) -> str:
    """A path as the user typed it → absolute when it names a file from here, else as given
    (then it is taken relative to the repository root)."""
    candidate = Path(path)
    if candidate.is_absolute():
        return str(candidate)
    here = Path.cwd() / candidate
    if here.exists():
        return str(here.resolve())
    return path


def links_for(reader: IndexReader, root: Path):
    """Web links from the index meta, else from the repository's origin remote (or None)."""
    links = web_links(reader)
    if links is not None or "web_base" in reader.meta:
        return links
    from whylens.history.links import WebLinks
    from whylens.history.repo import open_repository

    try:
        with open_repository(root) as repo:
            return WebLinks.from_remote(repo.remote_url() or "")
    except WhyLensError:  # links are a nicety; plain shas are always correct
        return None


def cmd_why(args) -> int:
    from whylens.render.cards import story_json
    from whylens.render.rationale import rationale
    from whylens.retrieval.why import why

    path, line = split_target(args.target)
    if line is not None and args.symbol:
        raise InvalidInputError("give either PATH:LINE or --symbol NAME, not both")
    where = location(args)
    root = where.root
    with open_reader(args, where) as reader:
        story = why(reader, resolve_path(path, root), line=line, symbol=args.symbol,
                    repo_root=root)
        links = links_for(reader, root)
    if args.json:
        print(json.dumps(story_json(story, links), ensure_ascii=False, indent=2))
    else:
        print(rationale(story, links, max_chars=None) if args.all else rationale(story, links))
    return 0


def read_stdin() -> str:
    data = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1) if hasattr(sys.stdin, "buffer") else \
        sys.stdin.read(MAX_STDIN_BYTES + 1).encode("utf-8", "replace")
    if len(data) > MAX_STDIN_BYTES:
        data = data[-MAX_STDIN_BYTES:]  # the end of a log holds the error
    return data.decode("utf-8", "replace")


def pitfalls_json(pitfalls: list[Pitfall], links: WebLinks | None) -> dict:
    """``{"pitfalls": [{"message", "url", "score", "reason", "id", "type", "commit", "fix"}]}``
    (``explain-error --json``, and the MCP ``explain_error`` tool)."""
    from whylens.render.diagnostics import pitfall_link, pitfall_message

    return {"pitfalls": [{
        "message": pitfall_message(p, links), "url": pitfall_link(p, links),
        "score": p.score, "reason": p.reason, "id": p.item.id,
        "type": p.item.type if isinstance(p.item, Unit) else RECORD_TYPE,
        "commit": p.item.commit if isinstance(p.item, Unit) else (
            p.item.fixing_commits[0] if p.item.fixing_commits else None),
        "fix": p.fix.id if p.fix else None,
    } for p in pitfalls]}


def cmd_explain_error(args) -> int:
    from whylens.render.diagnostics import pitfall_link, pitfall_message
    from whylens.retrieval.pitfalls import explain_error

    if sys.stdin is None or (hasattr(sys.stdin, "isatty") and sys.stdin.isatty()):
        raise InvalidInputError("pipe the error text in: `… 2>&1 | whylens explain-error`")
    text = read_stdin()
    if not text.strip():
        raise InvalidInputError("no error text on stdin; pipe a stack trace or error message in")
    where = location(args)
    root = where.root
    with open_reader(args, where) as reader:
        pitfalls = explain_error(reader, text)
        links = links_for(reader, root)
    if args.json:
        print(json.dumps(pitfalls_json(pitfalls, links), ensure_ascii=False, indent=2))
    elif not pitfalls:
        print("No known pitfall matches this error.")
    else:
        for p in pitfalls:
            url = pitfall_link(p, links)
            print(f"- {pitfall_message(p, links)}{os.linesep}  ({p.reason}; score {p.score:.2f}"
                  f"{'; ' + url if url else ''})")
    return 0
