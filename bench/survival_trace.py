"""``replay_review.py --survival-trace`` (round 33, tuning only): the new engine's
``rewrites-fix`` never goes silent on a kept fix (``review_survival.keeps_fix``), and the share of
the fix's tokens the change adds again is recorded for each such finding, in the "file" and
"hunk" scopes and over the whole change, so that ``tune_survival.py`` can score every threshold
from one replay."""

from __future__ import annotations

import dataclasses


def install() -> list:
    """Patch the engine for the trace; returns the list the findings go to (the caller empties
    it per change)."""
    from whylens.retrieval import review_reapply, review_survival
    found_list: list = []
    original = review_reapply._report
    original_check = review_reapply.check
    changed: list = []  # every file view of the change under review (for the "change" scope)

    def check(ctx, views, patches):
        changed[:] = views
        return original_check(ctx, views, patches)

    def report(ctx, prints, item, commit, found, moves=None, patch=None):
        if patch is not None and item.kind == "fix" and found.taken:
            at = {prints.removed.line_of(k) for k in found.taken}
            _side, line = review_reapply._anchor(prints, found)
            row = {"path": prints.view.path, "line": line, "fix": item.sha}
            for scope in ("file", "hunk"):
                kept = review_survival.survival(prints.view, patch, at, scope)
                row[scope] = [kept.kept, kept.total]
            # "change" (not a setting of the engine): the added lines of every file of the change
            everywhere = dataclasses.replace(prints.view, added=tuple(x for v in changed for x in v.added))
            kept = review_survival.survival(everywhere, patch, at, "file")
            row["change"] = [kept.kept, kept.total]
            found_list.append(row)
        original(ctx, prints, item, commit, found, moves, patch)

    review_reapply._report = report
    review_reapply.check = check
    review_reapply.keeps_fix = lambda found: False
    return found_list
