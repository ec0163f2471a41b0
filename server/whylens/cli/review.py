"""`whylens pr-comments`: review suggestions for a diff, grounded in the history it touches."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from whylens.gitcli import os_path
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
    p.add_argument("--diff", metavar="FILE", help="review this unified diff instead (`-` reads "
                   "stdin); it may be applied to the working tree already, or not yet")
    p.add_argument("--format", choices=FORMATS, default="markdown",
                   help="markdown (to paste), json, github (the create-a-review API body), sarif")
    p.add_argument("--max", type=int, default=10, dest="cap", help="at most N suggestions (10)")
    add_repo_args(p)
    p.set_defaults(handler=cmd_pr_comments)


def working_tree_reader(root: Path):
    real_root = root.resolve()

    def read(path: str) -> str | None:
        target = root / os_path(path)
        try:
            if not target.resolve().is_relative_to(real_root):
                return None  # a symlink out of the repository: never read what it points at
            if not target.is_file() or target.stat().st_size > MAX_SOURCE_BYTES:
                return None
            return target.read_bytes().decode("utf-8", "replace")
        except OSError:
            return None
    return read


def revision_reader(repo, rev: str):
    def read(path: str) -> str | None:
        data = repo.read_file(rev, os_path(path))
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


def read_patch(name: str) -> str:
    """The patch text from a file or stdin (``-``), refused past ``MAX_PATCH_BYTES``."""
    from whylens.history.patch import MAX_PATCH_BYTES

    try:
        if name == "-":
            data = sys.stdin.buffer.read(MAX_PATCH_BYTES + 1)
        else:
            with open(name, "rb") as handle:
                data = handle.read(MAX_PATCH_BYTES + 1)
    except OSError as exc:
        raise InvalidInputError(f"cannot read the diff {name}: {exc.strerror or exc}") from None
    if len(data) > MAX_PATCH_BYTES:
        raise InvalidInputError(f"the diff is over {MAX_PATCH_BYTES // 1_000_000} MB; review a "
                                "change that big by its revisions (--base/--head)")
    return data.decode("utf-8", "replace")


def patch_changes(root: Path, text: str) -> tuple[list, dict[str, str], list[dict]]:
    """(changes, head text by path, skipped files with the reason) for a unified diff."""
    from whylens.history.patch import head_text, parse_patch
    from whylens.retrieval.paths import repo_relative

    changes, heads, skipped = [], {}, []
    for patch in parse_patch(text):
        path = patch.change.path
        try:
            rel = repo_relative(path, root)
            outside = not (root / rel).resolve().is_relative_to(root.resolve())
        except InvalidInputError:
            outside = True
        if outside:
            skipped.append({"path": path, "reason": "outside the repository"})
            continue
        head, change = head_text(patch, working_tree_reader(root)(rel))
        change = dataclasses.replace(change, path=rel)
        if head is None and change.status != "D":
            reason = "binary" if change.binary else "its lines match neither side of the working tree"
            skipped.append({"path": path, "reason": reason})
            continue
        changes.append(change)
        if head is not None:
            heads[change.path] = head
    if not changes and not skipped:
        raise InvalidInputError("the diff changes no file; pass a unified diff (`git diff` output)")
    return changes, heads, skipped


def _review_patch(args, cap: int) -> tuple[dict, list, object]:
    from whylens.cli.common import location
    from whylens.cli.why import links_for
    from whylens.retrieval.review import review

    if args.base or args.head:
        raise InvalidInputError("give either --diff or --base/--head, not both")
    where = location(args)
    root = where.root
    changes, heads, skipped = patch_changes(root, read_patch(args.diff))
    with open_reader(args, where) as reader:
        suggestions = review(reader, root, changes, heads.get, cap=cap)
        links = links_for(reader, root)
    info = {"base": None, "head": None, "diff": {"files": len(changes), "skipped": skipped}}
    return info, suggestions, links


def cmd_pr_comments(args) -> int:
    from whylens.history.diff import diff_changes
    from whylens.history.repo import open_repository
    from whylens.cli.why import links_for
    from whylens.retrieval.review import review

    if args.cap < 0:
        raise InvalidInputError("--max must be 0 or more")
    if args.diff:
        info, suggestions, links = _review_patch(args, args.cap)
        for item in info["diff"]["skipped"]:
            print(f"whylens: not reviewed: {item['path']} ({item['reason']})", file=sys.stderr)
        return _print(args.format, info, suggestions, links)
    with open_repository(args.repo) as repo:
        base = pick_base(repo, args.base)
        head = repo.resolve(args.head) if args.head else None
        changes = diff_changes(repo, base, head)
        read_head = revision_reader(repo, head) if head else working_tree_reader(repo.root)
        with open_reader(args) as reader:
            suggestions = review(reader, repo.root, changes, read_head, cap=args.cap)
            links = links_for(reader, repo.root)
    return _print(args.format, {"base": base, "head": head}, suggestions, links)


def _print(form: str, info: dict, suggestions, links) -> int:
    from whylens.render import review as render

    base, head = info["base"], info["head"]
    if form == "json":
        out = {**info, "suggestions": suggestions_json(suggestions)}
        print(json.dumps(out, ensure_ascii=False, indent=2))
    elif form == "github":
        print(json.dumps(render.github(suggestions, links, commit_id=head), ensure_ascii=False,
                         indent=2))
    elif form == "sarif":
        print(json.dumps(render.sarif(suggestions, links, base=base, head=head), ensure_ascii=False,
                         indent=2))
    elif base is None:
        print(render.markdown(suggestions, links))
    else:
        print(render.markdown(suggestions, links, base=base[:12],
                              head=head[:12] if head else "working tree"))
    return 0
