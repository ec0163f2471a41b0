"""`whylens records …`: decision records — import a tracker export, fetch one, show, list, drain.

    whylens records import-github DIR   [--repo PATH] [--index-dir DIR] [--json]
    whylens records fetch-github        [--slug OWNER/NAME] [--token-env VAR] [--dest DIR]
    whylens records show ID             [--json]
    whylens records list                [--json]
    whylens records drain --limit N     [--json]   (the opt-in model pass, see records.model)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from whylens.cli.common import add_repo_args, index_store, location, open_reader, web_links
from whylens.errors import IndexMissingError, InvalidInputError
from whylens.history.links import WebLinks
from whylens.index.store import IndexStore
from whylens.records.outcome import outcome_status
from whylens.retrieval.citations import item_url
from whylens.retrieval.evidence import revert_check

if TYPE_CHECKING:
    from whylens.index.reader import IndexReader

EXPORT_DIR = "github-export"  # fetch-github's default destination, inside the index folder


def register(subparsers) -> None:
    group = subparsers.add_parser("records", help="decision records: import, fetch, show, list, drain")
    commands = group.add_subparsers(dest="records_command", metavar="SUBCOMMAND")
    group.set_defaults(handler=lambda args: (group.print_help(), 2)[1])

    p = commands.add_parser("import-github", help="merge a GitHub REST API export (gh api) into the records")
    p.add_argument("dir", metavar="DIR", help="the folder of JSON files (issues.json, pulls.json, …)")
    add_repo_args(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_import)

    p = commands.add_parser("fetch-github", help="download the export from GitHub (opt-in, needs a token)")
    add_repo_args(p)
    p.add_argument("--slug", help="OWNER/NAME (default: from the origin remote)")
    p.add_argument("--token-env", default="GITHUB_TOKEN",
                   help="the environment variable holding the token (default GITHUB_TOKEN)")
    p.add_argument("--dest", help=f"where to save the JSON (default: <index dir>/{EXPORT_DIR})")
    p.add_argument("--since", help="only issues and comments updated since this ISO date")
    p.add_argument("--no-import", action="store_true", help="only download")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_fetch)

    p = commands.add_parser("show", help="print one record")
    p.add_argument("id", metavar="ID", help="issue-12, pr-34 or commit-<sha12>")
    add_repo_args(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_show)

    p = commands.add_parser("list", help="every record with its outcome and provenance")
    add_repo_args(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_list)

    p = commands.add_parser("drain", help="send queued records through the configured model")
    add_repo_args(p)
    p.add_argument("--limit", type=int, default=20, help="at most N records this run (default 20)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_drain)


# -- reading ---------------------------------------------------------------------------------

def record_json(record, outcome: str, links: WebLinks | None) -> dict:
    data = dataclasses.asdict(record)
    data["outcome_status"] = outcome
    data["anchors_count"] = len(record.anchors)
    data["url"] = item_url(record, links)
    if links is not None:
        data["commit_urls"] = [links.commit(sha) for sha in record.fixing_commits]
        if record.partner is not None:
            data["partner_url"] = links.pr(record.partner)
    return data


def cmd_show(args) -> int:
    with open_reader(args) as reader:
        record = reader.record(args.id)
        if record is None:
            raise InvalidInputError(f"no record {args.id!r} in the index; `whylens records list` "
                                    "shows the ids")
        outcome = outcome_status(record, revert_check(reader), reader.iter_records())
        data = record_json(record, outcome, web_links(reader))
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    print(_render(data))
    return 0


def _render(data: dict) -> str:
    out = [f"{data['id']} · {data['title']}",
           f"  {data['outcome_status']} · fix edge: {data['fix_edge_source']} · thread: "
           f"{data['thread_shape']} · {data['anchors_count']} anchors · distilled by "
           f"{data['distilled_by']} ({data['label']})"]
    if data.get("url"):
        out.append(f"  {data['url']}")
    if data.get("partner") is not None:
        out.append(f"  fixed by PR #{data['partner']}")

    def claim_line(label, claim):
        out.append(f"  {label:9} [{claim['unit']}] {claim['text']}")

    if data.get("problem"):
        claim_line("problem", data["problem"])
    for field in ("cause", "decision", "rejected"):
        for claim in data[field]:
            claim_line(field, claim)
    urls = data.get("commit_urls") or data["fixing_commits"]
    for sha, url in zip(data["fixing_commits"], urls):
        out.append(f"  commit    {sha[:12]}" + (f" {url}" if url != sha else ""))
    if data["anchors"]:
        out.append(f"  anchors   {', '.join(data['anchors'][:12])}")
    out.append("  thread:")
    for unit in data["thread"][:40]:
        who = f" {unit['author']}" if unit["author"] else ""
        out.append(f"    {unit['id']:>4} ({unit['kind']}{who}) {unit['text'][:160]}")
    return "\n".join(out)


def cmd_list(args) -> int:
    with open_reader(args) as reader:
        records = list(reader.iter_records())
        reverted = revert_check(reader)
        rows = [(r, outcome_status(r, reverted, records)) for r in records]
        links = web_links(reader)
    rows.sort(key=lambda row: (row[0].date, row[0].id), reverse=True)
    if args.json:
        print(json.dumps([_summary(r, o, links) for r, o in rows], ensure_ascii=False))
        return 0
    for record, outcome in rows:
        print(f"{record.id:20} {outcome:10} {record.fix_edge_source:8} {record.thread_shape:13} "
              f"{len(record.anchors):3} {record.date[:10]} {record.title[:70]}")
    print(f"{len(rows)} records", file=sys.stderr)
    return 0


def _summary(record, outcome, links: WebLinks | None) -> dict:
    data = record_json(record, outcome, links)
    keep = ("id", "kind", "number", "title", "partner", "outcome_status", "fix_edge_source",
            "thread_shape", "anchors_count", "distilled_by", "label", "date", "url", "anchors",
            "fixing_commits")
    return {k: data.get(k) for k in keep}


# -- importing -------------------------------------------------------------------------------

def cmd_import(args) -> int:
    summary = import_export(args, Path(args.dir))
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{summary['records']} records after the import ({summary['issues']} issues, "
              f"{summary['pulls']} pull requests read; {summary['removed']} records absorbed "
              f"into issues) → {summary['index_dir']}")
    return 0


def import_export(args, folder: Path) -> dict:
    from whylens.history.repo import open_repository
    from whylens.history.walk import walk
    from whylens.records.github import load_export, merge_tracker

    export = load_export(folder)
    store = index_store(args)
    if not store.exists():
        raise IndexMissingError(str(store.path))
    with open_repository(args.repo) as repo:
        commits = list(walk(repo, "HEAD", hunks=False))
        with store.reader() as reader:
            before = list(reader.iter_records())
            first = merge_tracker(before, export, commits)
            unanchored = [r for r in first if not r.anchors and r.fixing_commits]
            events = _events_for(reader, repo, unanchored, {c.sha: c for c in commits})
        records = merge_tracker(before, export, commits, events) if events else first
    removed = sorted({r.id for r in before} - {r.id for r in records})
    with store.writer() as writer:
        writer.add_records(records)
        if removed:  # PR records absorbed into the issues they fixed answer once, as the issue
            writer.remove_records(removed)
        writer.set_meta(github_export=str(folder.resolve()))
        writer.commit()
    return {"records": len(records), "issues": len(export.issues), "pulls": len(export.pulls),
            "removed": len(removed), "index_dir": str(store.path)}


def _events_for(reader: IndexReader, repo, records, by_sha) -> dict:
    """Symbol events of the fixing commits of ``records``: from the index when it holds the
    commit, else by anchoring just those commits."""
    shas = sorted({sha for r in records for sha in r.fixing_commits if sha in by_sha})
    if not shas:
        return {}
    events = {sha: reader.events_of(sha) for sha in shas if reader.has_commit(sha)}
    missing = [sha for sha in shas if sha not in events]  # landed after the last index run
    if not missing:
        return events
    from whylens.history.blobs import BlobReader
    from whylens.history.walk import walk
    from whylens.symbols.anchor import Anchorer

    with BlobReader(repo) as blobs:
        anchorer = Anchorer(blobs.read, attributes=repo.gitattributes(repo.resolve("HEAD")))
        for sha in missing:
            if len(by_sha[sha].parents) > 1:
                continue  # merges carry no changes of their own
            for commit in walk(repo, sha, exclude=by_sha[sha].parents, hunks=True):
                events[commit.sha] = anchorer.events(commit)
    return events


def cmd_fetch(args) -> int:
    from whylens.history.links import WebLinks
    from whylens.history.repo import open_repository
    from whylens.records.github_api import fetch

    slug = args.slug
    if not slug:
        with open_repository(args.repo) as repo:
            links = WebLinks.from_remote(repo.remote_url() or "")
        if links is None or links.kind != "github" or not links.base.startswith("https://github.com/"):
            raise InvalidInputError("the origin remote is not on github.com; pass --slug OWNER/NAME")
        slug = links.base[len("https://github.com/"):]
    dest = Path(args.dest) if args.dest else index_store(args).path / EXPORT_DIR
    _refuse_inside_repo(dest, args)

    def progress(name, count):
        print(f"{name}: {count} items", file=sys.stderr, flush=True)

    fetch(slug, token_env=args.token_env, dest=dest, since=args.since, progress=progress)
    if args.no_import:
        print(f"saved to {dest}")
        return 0
    args.dir = str(dest)
    return cmd_import(args)


def _refuse_inside_repo(dest: Path, args: argparse.Namespace) -> None:
    root = location(args).root
    target = dest.resolve()
    if target == root or root in target.parents:
        raise InvalidInputError(f"{dest} is inside the repository; WhyLens never writes there. "
                                "Pass --dest outside it")


# -- the model pass --------------------------------------------------------------------------

def cmd_drain(args) -> int:
    from whylens.records.model.drain import drain
    from whylens.records.model.prompt import input_hash, snapshot
    from whylens.records.model.queue import DistillQueue
    from whylens.records.model.settings import SETTINGS_FILE, load_settings
    from whylens.records.model.validate import apply

    if args.limit < 0:
        raise InvalidInputError("--limit must be 0 or more")
    where = location(args)
    store, root = IndexStore(where.index_dir), where.root
    settings = load_settings(store.path, root)
    if settings is None:
        raise InvalidInputError(
            f"the model pass is off: add an [llm.distill] section (endpoint, model, timeout) to "
            f"{store.path / SETTINGS_FILE} or {root / SETTINGS_FILE}"
        )
    with open_reader(args, where) as reader:
        rules = {r.id: r for r in reader.iter_records() if r.distilled_by == "rules"}
    finished = []
    with DistillQueue(store.path, settings.model) as queue:
        queued = queue.enqueue(rules.values())
        for record in rules.values():  # results a killed run made durable but never wrote
            result = queue.result(record.id, input_hash(snapshot(record), settings.model))
            if result is not None:
                finished.append(apply(record, result))
        summary = drain(queue, settings, args.limit,
                        on_done=lambda rid, result: finished.append(apply(rules[rid], result)))
        counts = queue.counts()
    if finished:
        with store.writer() as writer:
            writer.add_records(finished)
            writer.commit()
    data = {**summary.as_dict(), "queued": queued, "written": len(finished), "queue": counts}
    if args.json:
        print(json.dumps(data))
    else:
        print(f"{len(summary.done)} distilled, {len(summary.failed)} failed (re-queued), "
              f"{summary.requests} requests; queue: "
              + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        if summary.stopped:
            print(f"stopped early: {summary.stopped}", file=sys.stderr)
    return 1 if summary.stopped else 0
