"""`whylens pr-comments`: review suggestions for a diff, grounded in the history it touches.

This process may run git (the language server runs it as a child): it reads the head and base
sides of the changed files, the change's commit messages, and the diffs of the few past reverts
and fixes the review asks for (``history_patches``).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from whylens.gitcli import os_path
from whylens.cli.common import add_repo_args, open_reader
from whylens.errors import InvalidInputError, UnknownRevisionError
from whylens.symbols.skip import MAX_SOURCE_BYTES

FORMATS = ("markdown", "json", "github", "sarif")
MAX_MESSAGE_CHARS = 20_000


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
    p.add_argument("--gate", type=float, default=None, metavar="C",
                   help="show suggestions from this confidence on (default: the calibrated gate; "
                        "lower shows more, and less precise, comments)")
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


def indexed_reader(repo, reader, base: str | None):
    """A reader of files at the index's revision when that is not ``base`` (the index's line
    blame is of its lines: ``retrieval.review_lines``), else None; None too when the repository
    does not have that commit (an index copied from elsewhere: lines are then taken as they are)."""
    last = (getattr(reader, "meta", None) or {}).get("last_sha")
    if not last or last == base:
        return None
    try:
        return revision_reader(repo, repo.resolve(last))
    except (UnknownRevisionError, ValueError):
        return None


def branch_commits(repo, base: str, head: str | None) -> frozenset[str]:
    """The commits of ``base..head`` (``head`` None: the checked-out ``HEAD``, whose commits
    the working tree builds on): the change's own, which an index of the branch holds and a
    review must not cite as its history (``retrieval.review_own``). Empty when unknown."""
    from whylens.retrieval.review_own import MAX_OWN

    try:
        tip = head or repo.resolve("HEAD")
    except (UnknownRevisionError, ValueError):
        return frozenset()
    if not tip or tip == base:
        return frozenset()
    status, out, _ = repo.run("rev-list", f"--max-count={MAX_OWN}", tip, f"^{base}", "--",
                              check=False)
    return frozenset(out.decode("ascii", "replace").split()) if status == 0 else frozenset()


def history_patches(repo):
    """A ``PatchReader`` over ``repo``: one ``git log --no-walk -p`` for the asked commits,
    limited to the asked paths (unreadable or unknown commits are simply absent). A merge
    commit's patch is its diff against its first parent: a revert made by merging a
    ``revert-…`` branch is read as what it changed on the mainline."""
    from whylens.history.walk import config_pins
    from whylens.retrieval.review_patches import CONTEXT, LOG_FORMAT, parse_log

    # git < 2.31 has no --diff-merges: -m prints one patch per parent, the first one first
    # (parse_log keeps a commit's first patch)
    merges = ["--diff-merges=first-parent"] if repo.git_version >= (2, 31) else ["-m"]

    def read(shas: list[str], paths: list[str]):
        shas = [s for s in shas if len(s) == 40 and all(c in "0123456789abcdef" for c in s)]
        if not shas or not paths:
            return {}
        status, out, _ = repo.run(
            *config_pins(), "-c", "log.showSignature=false", "-c", "i18n.logOutputEncoding=UTF-8",
            "log", "--no-walk=unsorted", "--ignore-missing", f"--format={LOG_FORMAT}", "-p",
            *merges, f"-U{CONTEXT}", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
            "--src-prefix=a/", "--dst-prefix=b/",
            *shas, "--", *[f":(literal){p}" for p in paths], check=False)
        return parse_log(out.decode("utf-8", "replace")) if status == 0 else {}
    return read


def change_message(repo, base: str, head: str | None) -> str:
    """The commit messages of ``base..head`` (what the change says about itself)."""
    if head is None:
        return ""
    text = repo.git("log", "--no-merges", "--format=%B", "-n", "200", f"{base}..{head}")
    return text[:MAX_MESSAGE_CHARS]


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


def check_range(repo, base: str, head: str | None, args) -> None:
    """Bad input a review cannot answer well, each with what to do instead."""
    if head is None and not repo.is_bare:
        unmerged = repo.git("ls-files", "-u", "-z").split("\0")
        paths = sorted({entry.split("\t", 1)[1] for entry in unmerged if "\t" in entry})
        if paths:
            shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
            raise InvalidInputError(f"the working tree has unmerged paths ({shown}): finish or "
                                    "abort the merge or rebase first, or pass --head REV to review "
                                    "a commit")
    tip = head or repo.resolve("HEAD")
    if tip != base and not repo.is_ancestor(base, tip):
        from whylens.history.diff import merge_base

        common = merge_base(repo, base, tip)
        hint = (f"; to review what {args.head or 'HEAD'} adds, pass --base {common[:12]} (their "
                "merge base)") if common else "; they share no history"
        raise InvalidInputError(f"{args.head or 'HEAD'} ({tip[:12]}) does not descend from the "
                                f"base {args.base or base[:12]}{hint}")


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


def patch_changes(root: Path, text: str) -> tuple[list, dict[str, str], list[dict],
                                                   dict[str, str]]:
    """(changes, head text by path, skipped files with the reason, base text by path) for a
    unified diff."""
    from whylens.history.patch import base_text, head_text, parse_patch
    from whylens.retrieval.paths import repo_relative

    changes, heads, skipped, bases = [], {}, [], {}
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
        current = working_tree_reader(root)(rel)
        head, change = head_text(patch, current)
        change = dataclasses.replace(change, path=rel)
        if head is None and change.status != "D":
            reason = "binary" if change.binary else "its lines match neither side of the working tree"
            skipped.append({"path": path, "reason": reason})
            continue
        changes.append(change)
        if head is not None:
            heads[change.path] = head
        base = base_text(patch, current)
        if base is not None:
            bases[change.path] = base
    if not changes and not skipped:
        raise InvalidInputError("the diff changes no file; pass a unified diff (`git diff` output)")
    return changes, heads, skipped, bases


def _review_patch(args, cap: int, gate: dict) -> tuple[dict, object, object]:
    from whylens.cli.common import location
    from whylens.cli.why import links_for
    from whylens.history.repo import open_repository
    from whylens.retrieval.review import review_report

    if args.base or args.head:
        raise InvalidInputError("give either --diff or --base/--head, not both")
    where = location(args)
    root = where.root
    changes, heads, skipped, bases = patch_changes(root, read_patch(args.diff))
    # the two sides and the past diffs, as for --base/--head: re-applied reverts and fixes
    # are found by their lines (without them a diff got only the message-level checks)
    with open_repository(where) as repo, open_reader(args, where) as reader:
        report = review_report(reader, root, changes, heads.get, cap=cap, read_base=bases.get,
                               patches=history_patches(repo), **gate,
                               read_indexed=indexed_reader(repo, reader, None))
        links = links_for(reader, root)
    info = {"base": None, "head": None, "diff": {"files": len(changes), "skipped": skipped}}
    return info, report, links


def cmd_pr_comments(args) -> int:
    from whylens.history.diff import diff_changes
    from whylens.history.repo import open_repository
    from whylens.cli.why import links_for
    from whylens.retrieval.review import review_report

    if args.cap < 0:
        raise InvalidInputError("--max must be 0 or more")
    if args.gate is not None and not 0 <= args.gate <= 1:
        raise InvalidInputError("--gate must be between 0 and 1")
    gate = {} if args.gate is None else {"gate": args.gate}
    if args.diff:
        info, report, links = _review_patch(args, args.cap, gate)
        for item in info["diff"]["skipped"]:
            print(f"whylens: not reviewed: {item['path']} ({item['reason']})", file=sys.stderr)
        return _print(args.format, info, report, links)
    with open_repository(args.repo) as repo:
        try:
            base = pick_base(repo, args.base)
            head = repo.resolve(args.head) if args.head else None
        except UnknownRevisionError as err:
            raise InvalidInputError(str(err)) from err
        check_range(repo, base, head, args)
        changes = diff_changes(repo, base, head)
        read_head = revision_reader(repo, head) if head else working_tree_reader(repo.root)
        with open_reader(args) as reader:
            report = review_report(
                reader, repo.root, changes, read_head, cap=args.cap, **gate,
                read_base=revision_reader(repo, base), patches=history_patches(repo),
                message=change_message(repo, base, head),
                read_indexed=indexed_reader(repo, reader, base), own=branch_commits(repo, base, head))
            links = links_for(reader, repo.root)
    if head == base:  # asked on purpose or not, the answer is empty; say why
        report = dataclasses.replace(report, notices=(
            f"--base and --head are the same commit ({base[:12]}): there is no change to review.",))
    return _print(args.format, {"base": base, "head": head}, report, links)


def _print(form: str, info: dict, report, links) -> int:
    from whylens.render import review as render

    suggestions, notices = report.suggestions, list(report.notices)
    base, head = info["base"], info["head"]
    if form == "json":
        out = {**info, "suggestions": suggestions_json(suggestions), "notices": notices}
        print(json.dumps(out, ensure_ascii=False, indent=2))
    elif form == "github":
        print(json.dumps(render.github(suggestions, links, commit_id=head, notices=notices),
                         ensure_ascii=False, indent=2))
    elif form == "sarif":
        print(json.dumps(render.sarif(suggestions, links, base=base, head=head, notices=notices),
                         ensure_ascii=False, indent=2))
    elif base is None:
        print(render.markdown(suggestions, links, notices=notices))
    else:
        print(render.markdown(suggestions, links, base=base[:12],
                              head=head[:12] if head else "working tree", notices=notices))
    return 0
