"""A change that re-applies a reverted change's lines is caught, however the revert was made and
whichever index run saw it: a revert merged from a ``revert-N`` branch, a revert an incremental
run indexed after the reverted change, a revert of a trivial commit, a one-token revert."""

from __future__ import annotations

from whylens.cli.review import change_message, history_patches, revision_reader
from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.retrieval.review import review

CLIENT = '''\
class Client:
    def fetch(self, url):
        response = self.session.get(url, timeout=self.timeout)
        return response.json()

    def close(self):
        self.session.close()
'''
CACHED = CLIENT.replace(
    "        response = self.session.get(url, timeout=self.timeout)\n",
    "        if url in self.cache:\n            return self.cache[url]\n"
    "        response = self.session.get(url, timeout=self.timeout)\n"
    "        self.cache[url] = response\n",
)


def _caught(repo, index_dir, base: str, head: str) -> list:
    """The re-introduced reverts at the gate when reviewing ``base..head``."""
    with open_repository(repo.root) as git, IndexStore(index_dir).reader() as reader:
        changes = diff_changes(git, base, head)
        found = review(reader, repo.root, changes, revision_reader(git, head),
                       read_base=revision_reader(git, base), patches=history_patches(git),
                       message=change_message(git, base, head))
    return [s for s in found if s.kind == "reintroduces-revert"]


def _merge(repo, branch: str, message: str) -> str:
    """Merge ``branch`` into the checked-out branch with a merge commit; its sha."""
    repo.clock += 86_400
    stamp = f"{repo.clock} +0000"
    env = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com", "GIT_AUTHOR_DATE": stamp,
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
           "GIT_COMMITTER_DATE": stamp}
    repo.git("merge", "-q", "--no-ff", "-m", message, branch, env=env)
    return repo.git("rev-parse", "HEAD")


def _reapply(repo, revert: str, name: str = "again") -> str:
    """A branch off main that brings back exactly what ``revert`` took out; its head sha."""
    repo.git("checkout", "-q", "-b", name, "main")
    diff = repo.git("diff", "--binary", revert, f"{revert}^1") + "\n"
    repo.git("apply", "--index", input=diff.encode())
    return repo.commit("Cache fetched responses again\n")


def test_a_revert_made_by_merging_a_revert_branch_is_read_as_the_merge_changed_the_mainline(
        make_repo, index_dir):
    repo = make_repo("merged")
    repo.commit("Add the client\n", {"src/client.py": CLIENT})
    repo.git("checkout", "-q", "-b", "cache")
    repo.commit("Cache fetched responses\n", {"src/client.py": CACHED})
    repo.git("checkout", "-q", "main")
    _merge(repo, "cache", "Merge pull request #7 from ada/cache")
    repo.git("checkout", "-q", "-b", "revert-7-cache")
    # not the same blob as before the cache (a comment more): no undo by content, and no
    # revert wording: only the merge says what it reverts
    repo.commit("Take the cache out again\n", {"src/client.py": CLIENT.replace(
        "class Client:\n", "class Client:\n    # no cache: responses go stale\n")})
    repo.git("checkout", "-q", "main")
    merge = _merge(repo, "revert-7-cache", "Merge pull request #9 from ada/revert-7-cache\n\n"
                   "Revert the cache: responses went stale.")
    run_index(repo.root, index_dir)
    head = _reapply(repo, merge)
    found = _caught(repo, index_dir, merge, head)
    assert [s.evidence[1] for s in found] == [merge]
    assert found[0].confidence >= 0.95 and "responses went stale" in found[0].body


def test_a_revert_indexed_after_what_it_reverted_is_still_paired(make_repo, index_dir):
    """The reverted change was indexed by an earlier run; the revert names it by its subject
    only, or restores the file as it was: the incremental run pairs them all the same."""
    repo = make_repo("later")
    repo.commit("Add the client\n", {"src/client.py": CLIENT})
    first = repo.commit("Cache fetched responses\n", {"src/client.py": CACHED})
    run_index(repo.root, index_dir)
    by_subject = repo.commit('Revert "Cache fetched responses"\n\nResponses went stale.\n',
                             {"src/client.py": CLIENT})
    assert run_index(repo.root, index_dir).mode == "incremental"
    with IndexStore(index_dir).reader() as reader:
        assert reader.reverts_of(first) == [by_subject]
    found = _caught(repo, index_dir, by_subject, _reapply(repo, by_subject))
    assert [s.evidence for s in found] == [(first, by_subject)]

    repo.git("checkout", "-q", "main")
    again = repo.commit("Cache fetched responses\n\nWith an expiry this time.\n", {"src/client.py": CACHED})
    run_index(repo.root, index_dir)
    undone = repo.commit("Expiry is not enough yet\n", {"src/client.py": CLIENT})  # by content
    run_index(repo.root, index_dir)
    with IndexStore(index_dir).reader() as reader:
        assert reader.reverts_of(again) == [undone]
    found = _caught(repo, index_dir, undone, _reapply(repo, undone, "again2"))
    assert [s.evidence[1] for s in found] == [undone]  # it undid both caches: either is cited


def test_reverting_a_trivial_edit_and_a_one_token_change_are_caught(make_repo, index_dir):
    """A trivial commit ("Update README.md", no body) is left out of file histories, and
    ``return None`` for ``return ('', '')`` names nothing a fingerprint keeps: both revert pairs
    are still matched when a change brings them back."""
    repo = make_repo("small")
    auth = ("def auth_from_url(url):\n    parsed = urlparse(url)\n    if parsed.username:\n"
            "        return (parsed.username, parsed.password)\n    else:\n        return ('', '')\n")
    repo.commit("Add auth_from_url\n", {"src/auth.py": auth, "README.md": "# Client\n\nFast.\n"})
    none = repo.commit("auth_from_url returns None if nothing is found\n",
                       {"src/auth.py": auth.replace("return ('', '')", "return None")})
    back = repo.commit(f"Revert the None return\n\nThis reverts commit {none}.\nCallers unpack it.\n",
                       {"src/auth.py": auth})
    edit = repo.commit("Update README.md", {"README.md": "# Client\n\nFast and small.\n"})
    undo = repo.commit("Update README.md", {"README.md": "# Client\n\nFast.\n"})
    run_index(repo.root, index_dir)
    assert [s.evidence for s in _caught(repo, index_dir, back, _reapply(repo, back))] == [(none, back)]
    readme = _caught(repo, index_dir, undo, _reapply(repo, undo, "readme"))
    assert [s.evidence for s in readme] == [(edit, undo)]


DISPATCH = '''\
module.exports = function dispatchRequest(config) {
  var adapter;
  var started = Date.now();
  if (typeof config.adapter === 'function') {
    // For custom adapter support
    adapter = config.adapter;
  } else if (typeof XMLHttpRequest !== 'undefined') {
    // For browsers use XHR adapter
    adapter = require('../adapters/xhr');
  } else if (typeof process !== 'undefined') {
    // For node use HTTP adapter
    adapter = require('../adapters/http');
  }
  return adapter(config);
};
'''
NODE_FIRST = DISPATCH.replace(
    "  } else if (typeof XMLHttpRequest !== 'undefined') {\n"
    "    // For browsers use XHR adapter\n    adapter = require('../adapters/xhr');\n", "").replace(
    "    adapter = require('../adapters/http');\n",
    "    adapter = require('../adapters/http');\n"
    "  } else if (typeof XMLHttpRequest !== 'undefined') {\n"
    "    // For browsers use XHR adapter\n    adapter = require('../adapters/xhr');\n")


def test_a_revert_that_only_reorders_lines_is_caught_when_the_order_comes_back(make_repo, index_dir):
    """Found on axios (held-out) 7cf19f6 "Reverting #234": the revert swaps two ``else if``
    branches back. Every line is on both sides of it, so no fingerprint is only on one: the
    order is the evidence. Putting the branches back in the reverted order is caught (on the
    revert and on a later commit); swapping other lines of the file is not."""
    repo = make_repo("order")
    repo.commit("Add dispatchRequest\n", {"lib/dispatch.js": DISPATCH})
    node = repo.commit("Prefer the node adapter when process is defined (#234)\n",
                       {"lib/dispatch.js": NODE_FIRST})
    revert = repo.commit(f"Reverting #234\n\nThis reverts commit {node}.\nElectron has both: it needs XHR.\n",
                         {"lib/dispatch.js": DISPATCH})
    later = repo.commit("Add a README\n", {"README.md": "# dispatch\n"})
    run_index(repo.root, index_dir)
    for base, name in ((revert, "again"), (later, "again-later")):
        found = _caught(repo, index_dir, base, _reapply(repo, revert, name))
        assert [s.evidence for s in found] == [(node, revert)]
        assert found[0].confidence >= 0.95 and "Electron has both" in found[0].body
        assert "back in the order it undid" in found[0].body
    repo.git("checkout", "-q", "main")
    other = repo.commit("Start the clock first\n", {"lib/dispatch.js": DISPATCH.replace(
        "  var adapter;\n  var started = Date.now();\n", "  var started = Date.now();\n  var adapter;\n")})
    assert _caught(repo, index_dir, later, other) == []
