"""Past commits' diffs as the review reads them (real git output), and their stated reasons."""

from __future__ import annotations

from whylens.cli.review import history_patches
from whylens.history.repo import open_repository
from whylens.retrieval.review_patches import reason

from retrieval.retry_history import FIXED_DELAY, REVERT_REASON, build_retry_history


def test_patches_of_a_revert_and_a_fix_from_git(make_repo):
    repo = make_repo()
    shas = build_retry_history(repo)
    repo.commit("Add notes\n", {"docs/ü notes.md": "# Notes\n\nRetries back off.\n"})
    with open_repository(repo.root) as git:
        read = history_patches(git)
        got = read([shas["revert"], shas["timeout"], "0" * 40, "not a sha"], ["src/client.py"])
        notes = read([repo.shas[-1]], ["docs/ü notes.md"])
    assert set(got) == {shas["revert"], shas["timeout"]}
    revert = got[shas["revert"]]
    assert revert.message.startswith('Revert "Use a fixed retry delay"')
    patch = revert.files["src/client.py"]
    assert patch.removed == ((15, FIXED_DELAY.rstrip("\n")),)
    assert patch.added == ((15, "            time.sleep(backoff(attempt))"),)
    assert (14, "        except ConnectionError:") in patch.old_context  # context on both sides
    assert (16, "    raise ConnectionError(url)") in patch.new_context
    assert got[shas["timeout"]].files["src/client.py"].removed[0][1].strip() == "return session.get(url)"
    assert notes[repo.shas[-1]].files["docs/ü notes.md"].added[0] == (1, "# Notes")
    assert reason(revert.message) == REVERT_REASON


def test_reason_of_reverts_and_fixes():
    merge_revert = ('Revert "Merge pull request #1710 from someone/master"\n\nThis reverts commit '
                    + "a" * 40 + ", reversing\nchanges made to " + "b" * 40 + ".\n")
    assert reason(merge_revert) == "Merge pull request #1710 from someone/master"
    assert reason('Revert "Lukasa is lazy"\n\nThis reverts commit ' + "c" * 40 + ".") == "Lukasa is lazy"
    fix = ("Fix hang when the server never answers\n\nfetch waited forever on a silent server. "
           "Every request now has a timeout. Thanks to all who reported it.\n\n"
           "Signed-off-by: Ada <ada@example.com>")
    assert reason(fix, limit=80) == "fetch waited forever on a silent server. Every request now has a timeout."
    assert reason("Fix typo") == "Fix typo"
