"""What an incremental run's revert detection needs of the commits earlier runs walked.

A revert names what it undoes by a full sha (found whatever run walked it), or by an
abbreviated sha, a PR number, a quoted subject, or it restores the file versions an earlier
change replaced. Those need the earlier commit itself (subject, PR, parents, blobs), which the
index does not keep, and a full run finds them because both commits sit in one record window.
``earlier_commits`` reads them back from git, only when they may matter:

- a message among the new commits names something that may lie before them
  (``records.reverts.names_earlier``): the last ``LOOKBACK`` commits before them, as many as a
  full run's record window holds;
- undo by content: for every file a new commit modifies, the last ``LAST_WRITERS`` stored
  commits that touched it, if they touched nothing the new commit leaves alone (an undo
  reverses every file of the earlier change).
"""

from __future__ import annotations

import contextlib
import itertools

from whylens.history.walk import read_commits, walk
from whylens.models import Commit
from whylens.pipeline.records import WINDOW_COMMITS
from whylens.records.reverts import names_earlier, undo_candidates

LOOKBACK = WINDOW_COMMITS
LAST_WRITERS = 3
MAX_READ = 200  # earlier commits read for undo by content, at most


def earlier_commits(repo, writer, last: str, commits: list[Commit]) -> list[Commit]:
    """Commits before ``last`` (inclusive) that reverts among ``commits`` may point at."""
    new = {c.sha for c in commits}
    found: dict[str, Commit] = {}
    if names_earlier(commits):
        with contextlib.closing(walk(repo, last, hunks=False)) as walked:
            found = {c.sha: c for c in itertools.islice(walked, LOOKBACK)}
    wanted: list[str] = []
    for commit in commits:
        paths = undo_candidates(commit)
        mine = {c.path for c in commit.changes}
        for path in paths:
            writers = [s for s in writer.last_writers(path, commit.timestamp, LAST_WRITERS + 20)
                       if s not in new][:LAST_WRITERS]
            for sha in writers:
                if sha not in found and sha not in wanted and set(writer.files_of(sha)) <= mine:
                    wanted.append(sha)
    found.update((c.sha, c) for c in read_commits(repo, wanted[:MAX_READ]))
    return list(found.values())
