"""classify(): table tests of subjects and authors → skip reasons; PR numbers."""

from __future__ import annotations

import pytest

from whylens.history.filters import classify, pr_of
from whylens.models import SKIP_REASONS, Commit

SHA = "a" * 40
PARENT = ("b" * 40,)
MERGE_PARENTS = ("b" * 40, "c" * 40)


def commit(subject: str, body: str = "", author: str = "Ada Lovelace",
           email: str = "ada@example.com", parents=PARENT, sha: str = SHA) -> Commit:
    return Commit(sha=sha, parents=parents, author=author, email=email, timestamp=0,
                  date="2023-11-14T22:13:20+00:00", subject=subject, body=body)


@pytest.mark.parametrize(("author", "email"), [
    pytest.param("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com",
                 id="dependabot"),
    pytest.param("renovate[bot]", "29139614+renovate[bot]@users.noreply.github.com",
                 id="renovate-bot"),
    pytest.param("Renovate Bot", "bot@renovateapp.com", id="renovate-app"),
    pytest.param("pre-commit-ci[bot]", "66853113+pre-commit-ci[bot]@users.noreply.github.com",
                 id="pre-commit-ci"),
    pytest.param("github-actions", "41898282+github-actions[bot]@users.noreply.github.com",
                 id="github-actions"),
    pytest.param("release-drafter[bot]", "x@example.com", id="any-bot-suffix"),
    pytest.param("Deploy", "deploy[bot]@example.com", id="bot-in-email"),
    pytest.param("dependabot-preview", "d@example.com", id="dependabot-preview"),
])
def test_bots(author, email):
    assert classify(commit("Add a cache to the resolver", "Real words here.", author, email)) \
        == "bot"


@pytest.mark.parametrize(("author", "email"), [
    ("Ada Lovelace", "ada@example.com"),
    ("Robert Botham", "robert@example.com"),  # "bot" inside a human name
    ("Abbott", "abbott@robotics.example"),
])
def test_humans_are_not_bots(author, email):
    assert classify(commit("Add a cache to the resolver", "", author, email)) is None


def test_merge_of_a_bot_branch_is_bot():
    c = commit("Merge pull request #881 from psf/dependabot/pip/urllib3-2.0",
               parents=MERGE_PARENTS)
    assert classify(c) == "bot"


@pytest.mark.parametrize("subject", [
    "v2.34.2", "2.31.0", "v3.0.0-rc1", "1.2", "Release 1.2.0", "Release v2.0.0",
    "release 2.31.0", "Released 0.9", "Releasing 4.5.6", "Version 2.3.4", "2.31.0 release",
    "Bump urllib3 from 1.26.5 to 1.26.18", "Bump actions/checkout from 3 to 4",
    "Bump https://github.com/psf/black from 22.3.0 to 23.1.0",
    "bump version to 2.32.0", "Bump version", "bumped version number", "Bump to 2.3.1",
    "Prepare release", "Prepare 2.3.0 release", "Prepare for release", "preparing the release",
    "Update version to 1.4", "chore(release): 1.2.3", "chore: release 2.0",
    "Changelog for 2.31.0", "version bump", "Release the v0.5.0!",
    "Setup HISTORY for next release", "Add release notes for 2.5.1", "Release notes",
    "Update HISTORY and version for v2.5.2",
    # found by the sentence labellers (notes/labels-sent-a.md, -b.md)
    "termcolor-0.3.3", "ignore-0.4.23", "grep-searcher-0.1.13", "grep-matcher: release 0.1.3",
    "changelog: 12.1.1", "[maven-release-plugin] prepare release gson-2.2.2",
    "prepare for next development iteration", "[maven-release-plugin] prepare for next development iteration",
    "Increase Sinatra::VERSION.",
])
def test_releases(subject):
    assert classify(commit(subject, "Some notes about what is in it.")) == "release"


@pytest.mark.parametrize("subject", [
    "Bump the default timeout because slow proxies time out",
    "Release the connection back to the pool on error",
    "Releasing a lock twice deadlocks the worker",
    "Version checks must accept pre-releases",
    "Fix 2.31.0 regression in redirects",
    "Prepare the request body lazily",
    "Release connection in digest auth 401 handler to allow the connection to be reused",
    "Trim release section, add back Twitter support",
    "grep-searcher: fix a panic on empty input",
    "Increase the version check tolerance for pre-releases",
])
def test_not_releases(subject):
    assert classify(commit(subject)) is None


@pytest.mark.parametrize("subject", [
    "wip", "WIP", "fix typo", "Fix typo.", "typo", "typos", "Fix typos in README",
    "fixed a typo", "update readme", "Update README.md", "formatting", "Formatting", "lint",
    "fix lint", "cleanup", "Clean up", "minor", "Minor fixes", "whitespace",
    "Remove trailing whitespace", "style", "docs: fix typo", "chore: cleanup", "update",
    "Update CHANGELOG.md", "...", "black", "Run black", "reformat", "Fix doc typo (#6467)",
    "Typo fixed", "Fixing a small typo.", "Correct unfortunate typo.",
    "Fix spelling errors, typos.", "Fix small typo in the Support docs", "readme update",
    "Readme Updates", "revised readme", "Fix couple of typos in HISTORY.rst",
    "Bump to viper 1.8.1", "deps: qs@2.2.0", "deps: send@0.13.1", "build: ejs@3.1.9",
    "update serde_json to 1.0.5",
])
def test_trivial_without_body(subject):
    assert classify(commit(subject)) == "trivial"
    assert classify(commit(subject, "Signed-off-by: Ada <ada@example.com>")) == "trivial"


@pytest.mark.parametrize("subject", ["fix typo", "wip", "cleanup", "minor"])
def test_trivial_subject_with_a_body_is_kept(subject):
    body = "The typo was in a header name, so servers rejected the request."
    assert classify(commit(subject, body)) is None


@pytest.mark.parametrize("subject", [
    "Fix typo in header name that broke auth",  # says what broke: kept
    "Clean up sockets when the pool closes",
    "Minor speedup of header parsing",
    "Format error messages with the status code",
    "Fix typo that broke the proxy bypass check",
    "False -> True typo in verify default",
])
def test_substantive_subjects_are_kept(subject):
    assert classify(commit(subject)) is None


def test_ignored_revisions():
    assert classify(commit("Reformat with black 23"), ignore_revs={SHA}) == "ignored"
    assert classify(commit("Reformat with black 23"), ignore_revs={"f" * 40}) is None


@pytest.mark.parametrize(("subject", "body", "pr", "reason"), [
    ("Merge pull request #123 from ada/fix-pool", "Fix the pool", 123, None),
    ("Merge branch 'main' into feature", "", None, "merge"),
    ("Merge remote-tracking branch 'origin/main'", "", None, "merge"),
    ("Merge branch 'fix' into 'main'", "Fix it\n\nSee merge request group/proj!12", 12, None),
    ("Merged in feature/x (pull request #45)", "", 45, None),
])
def test_merges(subject, body, pr, reason):
    c = commit(subject, body, parents=MERGE_PARENTS)
    assert pr_of(c) == pr
    assert classify(c) == reason


@pytest.mark.parametrize(("subject", "pr"), [
    ("Add retries to the adapter (#6710)", 6710),
    ("Add retries (#12) to the adapter", None),
    ("Fix #12: retries", None),
])
def test_squash_pr_numbers(subject, pr):
    assert pr_of(commit(subject)) == pr
    assert classify(commit(subject)) is None


def test_every_reason_is_a_known_one():
    samples = [commit("wip"), commit("v1.0.0"), commit("x", author="renovate[bot]"),
               commit("Merge branch 'x'", parents=MERGE_PARENTS)]
    reasons = {classify(c) for c in samples} | {classify(commit("Real"), ignore_revs={SHA})}
    assert reasons == set(SKIP_REASONS)


def test_release_pattern_never_backtracks_on_long_version_suffixes():
    """A subject with a long alphanumeric suffix after a version used to take seconds (and with
    a full sha, forever) in the release check; it must be linear."""
    import time

    from whylens.history.filters import is_release

    started = time.process_time()
    assert not is_release("v2.0.0-alpha.1." + "abcdef0123456789" * 3 + " fix the parser")
    assert not is_release("1.2" + "a" * 60 + "!")
    assert time.process_time() - started < 0.5  # exponential backtracking took minutes
