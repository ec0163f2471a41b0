"""A GitHub tracker export → richer, coalesced records.

The export is a folder of GitHub REST API JSON as ``gh api --paginate`` saves it. The names
``fetch`` writes (and the ones to use by hand) are::

    issues.json           gh api --paginate 'repos/O/R/issues?state=closed&per_page=100'
    pulls.json            gh api --paginate 'repos/O/R/pulls?state=closed&per_page=100'
    comments.json         gh api --paginate 'repos/O/R/issues/comments?per_page=100'
    review_comments.json  gh api --paginate 'repos/O/R/pulls/comments?per_page=100'
    events.json           gh api --paginate 'repos/O/R/issues/events?per_page=100'  (optional)

Reading is liberal: every ``*.json`` file under the folder is read, each object is recognised by
its shape (not its file name), and a file may hold one array, concatenated pages ``[...][...]``
(what ``--paginate`` writes without ``--slurp``), ``--slurp``'s array of pages, or JSON lines.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from whylens.errors import InvalidInputError
from whylens.history.links import closing_refs
from whylens.models import Commit, Record, SymbolEvent
from whylens.records.about import explained_anchors
from whylens.records.extract import extract_fields, supersedes_refs, thread_shape
from whylens.records.github_api import fetch  # noqa: F401  (the opt-in live fetch, re-exported)
from whylens.records.history import MAX_ANCHORS, anchors_for, brought_in, coalesce, files_for, generations
from whylens.records.thread import ThreadBuilder

MAX_FILE_BYTES = 512 * 1024 * 1024
_NUMBER_TAIL = re.compile(r"/(\d+)/?$")


class TrackerExportError(InvalidInputError):
    """The export folder is missing, unreadable or holds no GitHub issues/pulls."""


@dataclass
class Export:
    """What a tracker export says, keyed by issue/PR number."""

    issues: dict[int, dict] = field(default_factory=dict)  # closed issues (not PRs)
    pulls: dict[int, dict] = field(default_factory=dict)  # PRs, /pulls fields win over /issues
    comments: dict[int, list[dict]] = field(default_factory=dict)  # conversation comments
    review_comments: dict[int, list[dict]] = field(default_factory=dict)
    closed_by: dict[int, list[str]] = field(default_factory=dict)  # "closed" events with a commit
    files: list[str] = field(default_factory=list)
    ignored: int = 0  # objects of no known shape


def load_export(folder: str | Path) -> Export:
    """Read every ``*.json`` under ``folder``; raise ``TrackerExportError`` when it is unusable."""
    root = Path(folder)
    if not root.is_dir():
        raise TrackerExportError(f"{folder} is not a folder; pass the folder `gh api` wrote into")
    export = Export()
    paths = sorted(p for p in root.rglob("*.json") if p.is_file())
    for path in paths:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise TrackerExportError(f"{path} is larger than {MAX_FILE_BYTES >> 20} MB; split it")
        text = path.read_bytes().decode("utf-8", "replace")
        for item in _json_values(text, path):
            _classify(item, export)
        export.files.append(str(path))
    if not export.issues and not export.pulls:
        raise TrackerExportError(
            f"no GitHub issues or pull requests found in {folder}; expected files such as "
            "issues.json and pulls.json saved by `gh api --paginate` (see `whylens records "
            "fetch-github`)"
        )
    for items in (*export.comments.values(), *export.review_comments.values()):
        items.sort(key=lambda c: (c.get("created_at") or "", c.get("id") or 0))
    return export


def merge_tracker(
    records: list[Record],
    export: Export,
    commits: list[Commit],
    events_by_commit: dict[str, list[SymbolEvent]] | None = None,
) -> list[Record]:
    """Records enriched by the tracker: threads with comments, provider fix edges, issues and
    the PRs that fixed them coalesced into one record owned by the issue.

    ``events_by_commit`` (optional) anchors records whose fixing commits were not anchored yet.
    """
    by_sha = {c.sha: c for c in commits}
    depth = generations(by_sha) if any(len(c.parents) > 1 for c in commits) else {}
    events = events_by_commit or {}
    out: dict[str, Record] = {r.id: r for r in records}
    holder: dict[int, str] = {}  # PR number → id of the record that holds it
    enriched: set[int] = set()  # issues whose record already has the tracker's thread
    for given in records:
        if given.kind == "pr" and given.number is not None:
            holder[given.number] = given.id
        if given.partner is not None:
            holder[given.partner] = given.id

    for number in sorted(export.pulls):
        pull = export.pulls[number]
        if not pull.get("merged_at") or _is_bot(pull):
            continue
        old = out.pop(holder.get(number, f"pr-{number}"), None)
        refs = [n for n in closing_refs(f"{pull.get('title') or ''}\n{pull.get('body') or ''}")
                if n != number]
        issue_no = refs[0] if refs else (old.number if old and old.kind == "issue" else None)
        record = _pull_record(number, pull, issue_no, export, old, by_sha, events, depth)
        if record is None:
            if old is not None:
                out[old.id] = old
            continue
        existing = out.get(record.id)
        out[record.id] = coalesce(existing, record) if existing else record
        holder[number] = record.id
        if record.kind == "issue" and record.number is not None:
            enriched.add(record.number)

    for number in sorted(export.issues):
        issue = export.issues[number]
        if number in enriched:
            _add_closers(out, number, export, by_sha, events)
            continue
        from_issue = _issue_record(number, issue, export, out.get(f"issue-{number}"), by_sha,
                                   events)
        if from_issue is not None:
            out[from_issue.id] = from_issue

    result = list(out.values())
    result.sort(key=lambda r: (r.date, r.id), reverse=True)
    return result


def _add_closers(out: dict[str, Record], number: int, export: Export, by_sha, events) -> None:
    """An issue already owned (closed by a PR) whose close event also names commits."""
    record = out[f"issue-{number}"]
    closers = [s for s in export.closed_by.get(number, []) if s in by_sha]
    extra = tuple(s for s in closers if s not in record.fixing_commits)
    if extra:
        fixing = record.fixing_commits + extra
        record = replace(record, fixing_commits=fixing, fix_edge_source="provider")
        out[record.id] = replace(record, anchors=explained_anchors(
            record, _union(record.anchors, anchors_for(fixing, events)), events))


def _pull_record(number, pull, issue_no, export, old, by_sha, events, depth) -> Record | None:
    landing = pull.get("merge_commit_sha")
    commit = by_sha.get(landing) if landing else None
    if commit is not None and commit.skip_reason in ("bot", "release"):
        return None
    fixing = list(old.fixing_commits) if old else []
    if commit is not None and landing not in fixing:
        fixing.insert(0, landing)
        if len(commit.parents) > 1:
            fixing.extend(c.sha for c in brought_in(commit, by_sha, depth) if c.sha not in fixing)
    elif landing and not fixing:
        fixing.append(landing)  # merged into a history we were not given; still the tracker's word
    issue = export.issues.get(issue_no) if issue_no is not None else None
    builder = ThreadBuilder()
    if issue is not None:
        _add_item(builder, issue, issue_no, export)
        builder.add_paragraph(f"Fixed by pull request #{number}: {_title(pull)}", "description",
                              _login(pull), pull.get("html_url"))
    else:
        builder.add_paragraph(_title(pull), "description", _login(pull), pull.get("html_url"))
    builder.add_text(pull.get("body") or "", "description", _login(pull), pull.get("html_url"))
    _add_comments(builder, export, number)
    if old is not None:
        builder.extend(u for u in old.thread if u.kind == "commit")
    owner_is_issue = issue_no is not None
    title = _title(issue) if issue is not None else (old.title if owner_is_issue and old else _title(pull))
    raw = "\n".join(filter(None, [pull.get("body"), (issue or {}).get("body")]))
    return _record(
        id=f"issue-{issue_no}" if owner_is_issue else f"pr-{number}",
        kind="issue" if owner_is_issue else "pr",
        number=issue_no if owner_is_issue else number,
        partner=number if owner_is_issue else None,
        title=title, builder=builder, fixing=fixing, old=old, by_sha=by_sha, events=events,
        edge="provider" if landing else (old.fix_edge_source if old else "none"),
        merged=True, raw=raw, date=(commit.date if commit else pull.get("merged_at") or ""),
        url=(issue or pull).get("html_url"), author=(old.author if old else _login(issue or pull)),
    )


def _issue_record(number, issue, export, old, by_sha, events) -> Record | None:
    closers = [s for s in export.closed_by.get(number, []) if s in by_sha]
    if old is None and not closers:
        if issue.get("state_reason") == "not_planned" or not (issue.get("body") or "").strip():
            return None  # closed without a fix and without a story
    fixing = list(old.fixing_commits) if old else []
    fixing.extend(s for s in closers if s not in fixing)
    builder = ThreadBuilder()
    _add_item(builder, issue, number, export)
    if old is not None:
        builder.extend(old.thread)  # what the history knew: the PR description, the commits
    edge = "provider" if closers else (old.fix_edge_source if old else "none")
    landing = by_sha.get(fixing[0]) if fixing else None
    return _record(
        id=f"issue-{number}", kind="issue", number=number, partner=old.partner if old else None,
        title=_title(issue), builder=builder, fixing=fixing, old=old, by_sha=by_sha, events=events,
        edge=edge, merged=bool(fixing), raw=issue.get("body") or "",
        date=landing.date if landing else (issue.get("closed_at") or issue.get("created_at") or ""),
        url=issue.get("html_url"), author=old.author if old else _login(issue),
    )


def _record(*, id, kind, number, partner, title, builder, fixing, old, by_sha, events, edge,
            merged, raw, date, url, author) -> Record:
    units = builder.freeze()
    fields = extract_fields(title, units, units[0].id if units else None)
    known = [by_sha[s] for s in fixing if s in by_sha]
    anchors = _union(old.anchors if old else (), anchors_for(fixing, events))
    files = _union(old.files if old else (), files_for(known))
    supersedes = tuple(dict.fromkeys((*(old.supersedes if old else ()), *supersedes_refs(raw))))
    record = Record(
        id=id, kind=kind, number=number, title=title, problem=fields.problem, cause=fields.cause,
        decision=fields.decision, rejected=fields.rejected, fixing_commits=tuple(fixing),
        partner=partner, merged=merged, supersedes=supersedes, fix_edge_source=edge,
        thread_shape=thread_shape(units, fields), distilled_by="rules", thread=units,
        anchors=anchors, files=files, author=author, date=date or (old.date if old else ""), url=url,
    )
    return replace(record, anchors=explained_anchors(record, anchors, events))


def _add_item(builder: ThreadBuilder, item: dict, number: int, export: Export) -> None:
    """An issue: its title (U1), body and conversation."""
    builder.add_paragraph(_title(item), "description", _login(item), item.get("html_url"))
    builder.add_text(item.get("body") or "", "description", _login(item), item.get("html_url"))
    for comment in export.comments.get(number, []):
        if not _is_bot(comment):
            builder.add_text(comment.get("body") or "", "comment", _login(comment), comment.get("html_url"))


def _add_comments(builder: ThreadBuilder, export: Export, number: int) -> None:
    for comment in export.comments.get(number, []):
        if not _is_bot(comment):
            builder.add_text(comment.get("body") or "", "comment", _login(comment), comment.get("html_url"))
    for comment in export.review_comments.get(number, []):
        if not _is_bot(comment):
            builder.add_text(comment.get("body") or "", "review", _login(comment), comment.get("html_url"))


def _union(a, b) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*a, *b)))[:MAX_ANCHORS]


def _title(item: dict | None) -> str:
    return " ".join(str((item or {}).get("title") or "").split()) or "(untitled)"


def _login(item: dict | None) -> str:
    user = (item or {}).get("user") or {}
    return str(user.get("login") or "") if isinstance(user, dict) else ""


def _is_bot(item: dict) -> bool:
    user = item.get("user") or {}
    return isinstance(user, dict) and (user.get("type") == "Bot" or str(user.get("login", "")).endswith("[bot]"))


def _json_values(text: str, path: Path):
    """Every object in ``text``: arrays (also concatenated pages, and arrays of pages) or lines."""
    decoder = json.JSONDecoder()
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos] in " \t\r\n\ufeff":
            pos += 1
        if pos >= end:
            return
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise TrackerExportError(
                f"{path} is not valid JSON at line {exc.lineno} column {exc.colno} ({exc.msg}); "
                "re-run the export (a cut-off download leaves a half-written file)"
            ) from None
        yield from _flatten(value)


def _flatten(value):
    if isinstance(value, list):
        for item in value:
            yield from _flatten(item)
    elif isinstance(value, dict):
        if isinstance(value.get("items"), list) and "total_count" in value:  # a search result page
            yield from _flatten(value["items"])
        else:
            yield value


def _classify(item: dict, export: Export) -> None:
    number = item.get("number")
    if "diff_hunk" in item or "pull_request_review_id" in item:
        pr = _tail_number(item.get("pull_request_url"))
        if pr is not None:
            export.review_comments.setdefault(pr, []).append(item)
            return
    elif "event" in item and isinstance(item.get("issue"), dict):
        issue_no = item["issue"].get("number")
        if item.get("event") == "closed" and item.get("commit_id") and isinstance(issue_no, int):
            export.closed_by.setdefault(issue_no, []).append(item["commit_id"])
        return
    elif "issue_url" in item and "body" in item and number is None:
        issue_no = _tail_number(item.get("issue_url"))
        if issue_no is not None:
            export.comments.setdefault(issue_no, []).append(item)
            return
    elif isinstance(number, int) and ("merge_commit_sha" in item or "head" in item):
        export.pulls[number] = {**export.pulls.get(number, {}), **item}
        return
    elif isinstance(number, int) and "title" in item:
        if isinstance(item.get("pull_request"), dict):
            merged_at = item["pull_request"].get("merged_at")
            base = {**item, **({"merged_at": merged_at} if merged_at else {})}
            export.pulls[number] = {**base, **export.pulls.get(number, {})}
        elif item.get("state", "closed") == "closed":
            export.issues[number] = item
        return
    export.ignored += 1


def _tail_number(url) -> int | None:
    match = _NUMBER_TAIL.search(str(url or ""))
    return int(match.group(1)) if match else None
