"""`whylens pr-comments`: review suggestions for a diff, grounded in the history it touches."""

from __future__ import annotations

import json
from pathlib import Path

from whylens.cli.common import add_repo_args, open_reader
from whylens.errors import InvalidInputError
from whylens.symbols.skip import MAX_SOURCE_BYTES

FORMATS = ("markdown", "json", "github", "sarif")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "pr-comments", help="review suggestions for a change, from the history of what it touches")
    p.add_argument("--base", help="compare from this revision (default: the merge base with the "
                                  "default branch)")
    p.add_argument("--head", help="compare to this revision (default: the working tree, so "
                                  "uncommitted work is reviewed too)")
    p.add_argument("--format", choices=FORMATS, default="markdown",
                   help="markdown (to paste), json, github (the create-a-review API body), sarif")
    p.add_argument("--max", type=int, default=10, dest="cap", help="at most N suggestions (10)")
    add_repo_args(p)
    p.set_defaults(handler=cmd_pr_comments)


def working_tree_reader(root: Path):
    def read(path: str) -> str | None:
        target = root / path
        try:
            if not target.is_file() or target.stat().st_size > MAX_SOURCE_BYTES:
                return None
            return target.read_bytes().decode("utf-8", "replace")
        except OSError:
            return None
    return read


def revision_reader(repo, rev: str):
    def read(path: str) -> str | None:
        data = repo.read_file(rev, path)
        if data is None or len(data) > MAX_SOURCE_BYTES:
            return None
        return data.decode("utf-8", "replace")
    return read


def pick_base(repo, base: str | None) -> str:
    from whylens.history.diff import default_branch, merge_base

    if base:
        return repo.resolve(base)
    branch = default_branch(repo)
    if branch is None:
        raise InvalidInputError("no default branch (origin/HEAD, main or master) to compare "
                                "with; pass --base REV")
    sha = merge_base(repo, branch, "HEAD")
    if sha is None:
        raise InvalidInputError(f"HEAD shares no history with {branch}; pass --base REV")
    return sha


def suggestions_json(suggestions) -> list[dict]:
    return [{
        "path": s.path, "line": s.line, "side": s.side, "kind": s.kind, "body": s.body,
        "confidence": s.confidence, "evidence": list(s.evidence), "symbol": s.symbol,
    } for s in suggestions]


def cmd_pr_comments(args) -> int:
    from whylens.history.diff import diff_changes
    from whylens.history.repo import open_repository
    from whylens.render import review as render
    from whylens.cli.why import links_for
    from whylens.retrieval.review import review

    if args.cap < 0:
        raise InvalidInputError("--max must be 0 or more")
    with open_repository(args.repo) as repo:
        base = pick_base(repo, args.base)
        head = repo.resolve(args.head) if args.head else None
        changes = diff_changes(repo, base, head)
        read_head = revision_reader(repo, head) if head else working_tree_reader(repo.root)
        with open_reader(args) as reader:
            suggestions = review(reader, repo.root, changes, read_head, cap=args.cap)
            links = links_for(reader, repo.root)
    head_label = head[:12] if head else "working tree"
    if args.format == "json":
        out = {"base": base, "head": head, "suggestions": suggestions_json(suggestions)}
        print(json.dumps(out, ensure_ascii=False, indent=2))
    elif args.format == "github":
        print(json.dumps(render.github(suggestions, links, commit_id=head), ensure_ascii=False,
                         indent=2))
    elif args.format == "sarif":
        print(json.dumps(render.sarif(suggestions, links, base=base, head=head), ensure_ascii=False,
                         indent=2))
    else:
        print(render.markdown(suggestions, links, base=base[:12], head=head_label))
    return 0
