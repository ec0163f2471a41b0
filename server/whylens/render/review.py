"""Review suggestions → markdown (to paste), GitHub "create a review" JSON, SARIF 2.1.0."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

from whylens import __version__
from whylens.markup import code, unescape
from whylens.history.links import WebLinks
from whylens.models import Suggestion

KIND_TITLES = {
    "reintroduces-revert": "Brings back a reverted change",
    "reintroduces-fixed": "Brings back code a fix replaced",
    "rewrites-fix": "Rewrites a fix",
    "reverted-before": "An earlier change here was reverted",
    "reintroduces-pitfall": "May reintroduce a fixed failure",
    "constraint": "A recorded constraint applies",
    "decision-context": "A past decision explains this code",
    "co-change": "Usually changes together with untouched code",
    "fragile": "Every recent change here needed a fix",
}
KIND_HELP = {
    "reintroduces-revert": "The added lines match (normalised tokens, winnowed fingerprints) lines "
                           "that a revert removed; the suggestion cites the reverted commit and "
                           "the revert, and quotes the revert's reason.",
    "reintroduces-fixed": "The added lines match lines that a fix replaced; the suggestion cites "
                          "the fix and quotes its reason.",
    "rewrites-fix": "The change removes lines that a fix added; the suggestion cites the fix.",
    "reverted-before": "A previous change to the same symbol was reverted; the suggestion links "
                       "the change and its revert.",
    "reintroduces-pitfall": "The added lines use code that a known failure of this code names; "
                            "the suggestion links the commit that fixed it.",
    "constraint": "A constraint recorded in the history (a Fact) is attached to the changed "
                  "code; the suggestion quotes it and links its commit.",
    "decision-context": "A decision record (distilled, unreviewed) explains why the code is as it "
                        "is; the change touches its decision or a rejected alternative.",
    "co-change": "History changes this file or symbol together with another one (support and "
                 "confidence over its recent commits) that this change leaves untouched.",
    "fragile": "Each of the changed symbol's last five changes was followed within 30 days by a "
               "fix of it; the suggestion cites the fixes.",
}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _kind_title(kind: str) -> str:
    return KIND_TITLES.get(kind, kind)


def markdown(suggestions: list[Suggestion], links: WebLinks | None = None, base: str | None = None,
             head: str | None = None, notices: Sequence[str] = ()) -> str:
    """A summary a human can paste into a review; ``notices`` (a capped diff, nothing to
    review) come first."""
    span = f" ({base or 'base'} → {head or 'working tree'})" if (base or head) else ""
    notes = [f"> {n}" for n in notices]
    if not suggestions:
        return "\n".join(notes + [f"WhyLens: nothing in the history calls for a comment on this "
                                   f"change{span}."])
    lines = [f"## WhyLens review suggestions{span}", "", *notes, *([""] if notes else [])]
    for s in suggestions:
        side = "" if s.side == "RIGHT" else " (deleted lines)"
        where = code(f"{s.path}:{s.line}") + side + (f" in {code(s.symbol)}" if s.symbol else "")
        lines.append(f"- **{_kind_title(s.kind)}** — {where} · confidence {s.confidence:.2f}")
        lines.append(f"  {s.body}")
    return "\n".join(lines)


def github(suggestions: list[Suggestion], links: WebLinks | None = None,
           commit_id: str | None = None, notices: Sequence[str] = ()) -> dict[str, Any]:
    """The body of ``POST /repos/{owner}/{repo}/pulls/{n}/reviews`` (event COMMENT).

    Every comment is on one line of the diff (``line`` + ``side``, no ``start_line``): the
    review's lines are changed lines, which GitHub can always place."""
    body = (f"WhyLens found {len(suggestions)} thing{'s' if len(suggestions) != 1 else ''} in "
            "this code's history worth a look." if suggestions else
            "WhyLens: nothing in the history calls for a comment on this change.")
    if notices:
        body += "\n\n" + "\n".join(f"> {n}" for n in notices)
    review = {
        "event": "COMMENT",
        "body": body,
        "comments": [{
            "path": s.path, "line": int(s.line), "side": s.side if s.side in ("LEFT", "RIGHT") else "RIGHT",
            "body": f"**{_kind_title(s.kind)}** (WhyLens)\n\n{s.body}",
        } for s in suggestions],
    }
    if commit_id:
        review["commit_id"] = commit_id
    return review


def _fingerprint(s: Suggestion) -> str:
    key = "|".join([s.kind, s.path, s.symbol or "", *s.evidence])
    return hashlib.sha1(key.encode("utf-8")).hexdigest()


def _evidence_uris(s: Suggestion, links: WebLinks | None) -> list[str]:
    if links is None:
        return []
    return [links.commit(e) for e in s.evidence if len(e) == 40 and all(c in "0123456789abcdef" for c in e)]


def sarif(suggestions: list[Suggestion], links: WebLinks | None = None, base: str | None = None,
          head: str | None = None, help_uri: str | None = None,
          notices: Sequence[str] = ()) -> dict[str, Any]:
    """A SARIF 2.1.0 log: one rule per kind, one result per suggestion (level ``note``).

    Each result's provenance URLs (commits it rests on) are in ``properties.helpUris`` and as
    links in ``message.markdown``; ``help_uri`` (documentation of the kinds) goes on the rules;
    ``notices`` become the invocation's tool notifications.
    """
    kinds = list(KIND_TITLES)
    rules: list[dict[str, Any]] = [{
        "id": f"whylens/{kind}",
        "name": "".join(part.title() for part in kind.split("-")),
        "shortDescription": {"text": KIND_TITLES[kind]},
        "fullDescription": {"text": KIND_HELP[kind]},
        "help": {"text": KIND_HELP[kind], "markdown": KIND_HELP[kind]},
        "defaultConfiguration": {"level": "note"},
        "properties": {"tags": ["history", "review"]},
    } for kind in kinds]
    if help_uri:
        for rule in rules:
            rule["helpUri"] = f"{help_uri}#{rule['id'].split('/')[-1]}"
    results = []
    for s in suggestions:
        index = kinds.index(s.kind) if s.kind in kinds else None
        result: dict[str, Any] = {
            "ruleId": f"whylens/{s.kind}",
            "level": "note",
            "message": {"text": _plain(s.body), "markdown": s.body},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": s.path, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": max(1, int(s.line))},
            }}],
            "partialFingerprints": {"whylensEvidence/v1": _fingerprint(s)},
            "properties": {"confidence": s.confidence, "evidence": list(s.evidence),
                           "side": s.side, "symbol": s.symbol,
                           "helpUris": _evidence_uris(s, links)},
        }
        if index is not None:
            result["ruleIndex"] = index
        results.append(result)
    run = {
        "tool": {"driver": {"name": "WhyLens", "version": __version__, "rules": rules}},
        "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The repository root."}}},
        "results": results,
    }
    if base or head:
        run["properties"] = {"base": base, "head": head or "working tree"}
    if notices:
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [
            {"level": "note", "message": {"text": n}} for n in notices]}]
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _plain(markdown_text: str) -> str:
    """Markdown links → "text (url)", backticks dropped, escapes undone: SARIF's required plain
    message."""
    text = re.sub(r"(?<!\\)\[([^\]]+)\]\(([^)]+)\)", r"\1 (\2)", markdown_text)
    return unescape(re.sub(r"(?<!\\)`+", "", text).replace("**", ""))
