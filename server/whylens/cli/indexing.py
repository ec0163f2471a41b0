"""`whylens index`, `search`, `stats`, `export`: build the index and read it back."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from typing import NoReturn

from whylens import child_command
from whylens.errors import IndexOutdatedError, InvalidInputError
from whylens.cli.common import add_repo_args, open_reader, web_links
from whylens.models import SEARCH_TYPES, SNIPPET_BUDGET
from whylens.progress import Eta, IndexEvent, phase_message, time_left


def register(subparsers) -> None:
    p = subparsers.add_parser("index", help="mine the history into the index (incremental)")
    add_repo_args(p)
    p.add_argument("--rev", default="HEAD", help="revision to index (default HEAD)")
    p.add_argument("--progress", choices=("auto", "bar", "lines", "json", "none"), default="auto",
                   help="progress output: a bar on a terminal, plain lines otherwise")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    # the next segment of a segmented backfill (this command replaces itself with it)
    p.add_argument("--resume-segment", metavar="TOKEN", help=argparse.SUPPRESS)
    p.add_argument("--pace", type=float, help=argparse.SUPPRESS)
    p.set_defaults(handler=cmd_index)

    p = subparsers.add_parser("search", help="search the history: commits, knowledge and "
                              "records that answer a question (or silence)")
    p.add_argument("query", help="a question or keywords, in your own words")
    add_repo_args(p)
    p.add_argument("-k", type=int, default=10, help="at most K results (default 10)")
    p.add_argument("--budget", type=int, default=SNIPPET_BUDGET, metavar="N",
                   help=f"characters of answer sentences per result (default {SNIPPET_BUDGET})")
    p.add_argument("--type", action="append", dest="types", metavar="T",
                   help=f"only these types: {', '.join(SEARCH_TYPES)} (repeat or comma-separate)")
    p.add_argument("--path", help="only knowledge about files under this path")
    p.add_argument("--author", help="only knowledge from this author (name or email)")
    p.add_argument("--since", help="only commits on or after this date (YYYY-MM-DD)")
    p.add_argument("--until", help="only commits on or before this date (YYYY-MM-DD)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=cmd_search)

    p = subparsers.add_parser("stats", help="what the index holds")
    add_repo_args(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_stats)

    p = subparsers.add_parser("export", help="every unit and record as JSON lines, stable order")
    add_repo_args(p)
    p.add_argument("--strip-attribution", action="store_true",
                   help="leave out author names and emails")
    p.set_defaults(handler=cmd_export)


class _Progress:
    """Renders pipeline progress as a bar, plain lines or JSON lines."""

    def __init__(self, style: str, pace: float | None = None) -> None:
        if style == "auto":
            style = "bar" if sys.stderr.isatty() else "lines"
        self.style = style
        self.last = 0.0
        self.eta = Eta(pace)  # pace: the previous segment's, if any

    def __call__(self, phase: str, done: int, total: int) -> None:
        if self.style == "none":
            return
        if self.style == "json":
            print(IndexEvent(phase, done, total).to_json(), flush=True)
            return
        now = time.monotonic()
        final = phase in ("commit", "done")
        if not final and now - self.last < (0.1 if self.style == "bar" else 2.0) and done:
            return
        self.last = now
        pct = 100 * done // total if total else 100
        left = time_left(self.eta.update(phase, done, total, now))
        if self.style == "bar":
            filled = pct * 30 // 100
            end = "\n" if phase == "done" else ""
            print(f"\r{phase:8} [{'#' * filled}{'.' * (30 - filled)}] {pct:3}% {done}/{total} "
                  f"{left:20}", end=end, file=sys.stderr, flush=True)
        elif phase != "done":
            message = phase_message(IndexEvent(phase, done, total))
            percent = f" ({pct}%)" if phase == "mine" and total else ""
            print(f"{message}{percent}{', ' + left if left else ''}", file=sys.stderr,
                  flush=True)


def cmd_index(args) -> int:
    from whylens.pipeline import run_index
    from whylens.pipeline.segments import SegmentPolicy

    progress = _Progress(args.progress, args.pace)
    summary = run_index(args.repo, args.index_dir, rev=args.rev, progress=progress,
                        segments=SegmentPolicy.from_env(), resume_segment=args.resume_segment)
    if summary.next_segment:  # a long backfill goes on in a fresh process: same pid, output
        _next_segment(args, summary.next_segment, progress.eta.rate)
    if args.progress == "json":
        print(summary.to_json(), flush=True)
    elif args.json:
        print(json.dumps(summary.as_dict(), indent=2))
    else:
        filtered = sum(summary.filtered.values())
        print(f"{summary.mode}: {summary.commits_indexed} commits indexed "
              f"({filtered} filtered), {summary.units} units, {summary.records} records, "
              f"{summary.events} symbol events in {summary.seconds:.1f}s → {summary.index_dir}")
        if summary.shallow:
            print("note: this clone is shallow; history before the cut is unknown "
                  "(`git fetch --unshallow` to see all of it)")
        if summary.commits_file_level:
            from whylens.symbols.anchor import MAX_FILES_PER_COMMIT

            print(f"note: {summary.commits_file_level} commit(s) changed more than "
                  f"{MAX_FILES_PER_COMMIT:,} source files; their changes are in file history "
                  "only, not in symbol histories")
        if summary.commits_missing_objects:
            print(f"note: {summary.missing_objects_note()}")
    return 0


def _next_segment(args, token: str, pace: float | None) -> NoReturn:
    """Replace this process with the backfill's next segment (``pipeline.segments``); its
    time-left estimate starts from this one's pace."""
    argv = ["index", "--repo", os.path.abspath(args.repo), "--rev", args.rev,
            "--progress", args.progress, "--resume-segment", token]
    if pace:
        argv += ["--pace", f"{pace:.3f}"]
    if args.index_dir:
        argv += ["--index-dir", str(args.index_dir)]
    if args.json:
        argv.append("--json")
    command = child_command(*argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(command[0], command)


def parse_types(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    types = [t.strip().lower() for v in values for t in v.split(",") if t.strip()]
    unknown = [t for t in types if t not in SEARCH_TYPES]
    if unknown:
        raise InvalidInputError(f"unknown --type {', '.join(unknown)}; use "
                                f"{', '.join(SEARCH_TYPES)}")
    return types


def cmd_search(args) -> int:
    from whylens.render.hits import human_lines, to_json
    from whylens.retrieval.search import search

    if args.k < 1:
        raise InvalidInputError("-k must be at least 1")
    if args.budget < 0:
        raise InvalidInputError("--budget must be 0 or more (characters of answer sentences)")
    query = args.query
    if not query.strip():
        raise InvalidInputError("the query is empty; ask a question or give a few words")
    types = parse_types(args.types)

    def answer() -> tuple[dict, bool]:
        with open_reader(args) as reader:
            result = search(reader, query, k=args.k, types=types, links=web_links(reader),
                            budget=args.budget, path=args.path, author=args.author,
                            since=args.since, until=args.until)
            return to_json(result), reader.doc_count() == 0

    try:
        data, empty = answer()
    except IndexOutdatedError:
        rebuild_outdated(args)
        data, empty = answer()
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
        return 0
    if empty:
        print("nothing yet: the index holds no knowledge so far (a young history, or a first "
              "index still running)")
        return 0
    print("\n".join(human_lines(data)))
    return 0


def rebuild_outdated(args) -> None:
    """An index another WhyLens version wrote: rebuild it from git now (the pipeline says so,
    once: the rebuilt index is current)."""
    from whylens.pipeline import run_index

    run_index(args.repo, getattr(args, "index_dir", None))


def cmd_stats(args) -> int:
    with open_reader(args) as reader:
        stats = reader.stats()
    if args.json:
        print(json.dumps(stats, indent=2, default=str))
        return 0
    for key, value in stats.items():
        if isinstance(value, dict):
            inner = ", ".join(f"{k} {v}" for k, v in value.items()) or "none"
            print(f"{key}: {inner}")
        else:
            print(f"{key}: {value}")
    return 0


def cmd_export(args) -> int:
    with open_reader(args) as reader:
        for kind, items in (("unit", reader.iter_units()), ("record", reader.iter_records())):
            for item in items:
                data = {"kind": kind, **dataclasses.asdict(item)}
                if args.strip_attribution:
                    _strip_attribution(data)
                sys.stdout.write(json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n")
    return 0


def _strip_attribution(data: dict) -> None:
    """Blank every person's name and email, at any depth (records keep thread authors)."""
    for key, value in data.items():
        if key in ("author", "email"):
            data[key] = ""
        elif isinstance(value, dict):
            _strip_attribution(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    _strip_attribution(item)
