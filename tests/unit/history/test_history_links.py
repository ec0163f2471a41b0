"""links: PR numbers, closing and issue references, reverts, web URLs (pure text)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from whylens.history.links import (
    WebLinks,
    closing_refs,
    issue_refs,
    pr_number,
    revert_subject,
    reverted_numbers,
    reverted_shas,
)


@pytest.mark.parametrize(("subject", "body", "expected"), [
    ("Merge pull request #123 from ada/fix-pool", "", 123),
    ("Add retries to the adapter (#6710)", "", 6710),
    ("Add retries (#12) to the adapter", "", None),
    ("Merged in feature/x (pull request #45)", "", 45),
    ("Merge branch 'fix' into 'main'", "Fix it\n\nSee merge request group/sub/proj!12\n", 12),
    ("Fix #12", "", None),
    ("Plain subject", "Mentions #9 in passing", None),
])
def test_pr_number(subject, body, expected):
    assert pr_number(subject, body) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Fixes #12", [12]),
    ("fix #1, closes #2 and resolves #3", [1, 2, 3]),
    ("Closed: #7", [7]),
    ("This resolved psf/requests#4821 at last", [4821]),
    ("Fixes https://github.com/psf/requests/issues/5000", [5000]),
    ("Closes https://gitlab.com/g/p/-/issues/31", [31]),
    ("Fixes #1, #2 and #3", [1, 2, 3]),
    ("fixed #4\nFIXES #4", [4]),
    ("Refs #5; see #6", []),
    ("The fix is to close the socket (#8 was wrong)", []),
    ("prefix #9", []),
])
def test_closing_refs(text, expected):
    assert closing_refs(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Refs #5; see #6 and #5", [5, 6]),
    ("owner/repo#12 and GH-13", [12, 13]),
    ("https://github.com/o/r/pull/77 and https://github.com/o/r/issues/78", [77, 78]),
    ("C#1 is a language; &#12; is an entity; url/#3 is a fragment", []),
    ("no references", []),
])
def test_issue_refs(text, expected):
    assert issue_refs(text) == expected


def test_reverts():
    sha = "0123456789abcdef0123456789abcdef01234567"
    assert reverted_shas(f"This reverts commit {sha}.\n\nAnd this reverts commit abcdef1.") \
        == [sha, "abcdef1"]
    assert reverted_shas("Nothing reverted here") == []
    assert revert_subject('Revert "Use a pool for connections"') == "Use a pool for connections"
    assert revert_subject('Revert "Revert "Use a pool""') == 'Revert "Use a pool"'
    assert revert_subject("Revert Use a pool for connections") == "Use a pool for connections"
    assert revert_subject("Revert: use a pool") == "use a pool"
    assert revert_subject("Reverting 'use a pool'") == "use a pool"
    assert revert_subject("Use a revert-safe pool") is None


@pytest.mark.parametrize("text,shas", [
    ("This reverts commit 1a2b3c4d5e6f.", ["1a2b3c4d5e6f"]),
    ("revert 1a2b3c4d and 5e6f7a8b", ["1a2b3c4d", "5e6f7a8b"]),
    ("partially revert 0123abc", ["0123abc"]),
    ("This partially reverts commit 0123abcd.", ["0123abcd"]),
    ("Reverts commits 1a2b3c4, 5e6f7a8 and 9f9f9f1", ["1a2b3c4", "5e6f7a8", "9f9f9f1"]),
    ("Partial revert of 1a2b3c4d", ["1a2b3c4d"]),
    ("Reverted in 1a2b3c4d", []),  # names the reverting commit, not the reverted one
    ("This reverts the deadbeef change", []),  # a word made of hex letters is not a sha
])
def test_reverted_shas_in_any_wording(text, shas):
    assert reverted_shas(text) == shas


@pytest.mark.parametrize("subject,numbers", [
    ("Revert #3362", [3362]), ("reverting 3362 because it broke proxies", [3362]),
    ("Revert PR 12", [12]), ("revert pull request #9 (it broke)", [9]),
    ("Merge pull request #3400 from psf/revert-3362-fix-proxy", [3362]),
    ("Revert psf/requests#77", [77]),
    ("Revert to version 2.0.1", []), ("Reverted 2 commits", []), ("Reverted 100 lines", []),
    ("revert 1a2b3c4d", []),
])
def test_reverted_numbers(subject, numbers):
    assert reverted_numbers(subject) == numbers


@pytest.mark.parametrize(("url", "base", "kind"), [
    ("git@github.com:psf/requests.git", "https://github.com/psf/requests", "github"),
    ("https://github.com/psf/requests.git", "https://github.com/psf/requests", "github"),
    ("https://github.com/psf/requests", "https://github.com/psf/requests", "github"),
    ("https://github.com/psf/requests/", "https://github.com/psf/requests", "github"),
    ("ssh://git@github.com/psf/requests.git", "https://github.com/psf/requests", "github"),
    ("ssh://git@github.com:22/psf/requests", "https://github.com/psf/requests", "github"),
    ("git://github.com/psf/requests.git", "https://github.com/psf/requests", "github"),
    ("https://user:s3cret@github.com/psf/requests.git", "https://github.com/psf/requests",
     "github"),
    ("git@gitlab.com:group/sub/proj.git", "https://gitlab.com/group/sub/proj", "gitlab"),
    ("https://gitlab.example.org:8443/g/p.git", "https://gitlab.example.org:8443/g/p", "gitlab"),
    ("git@bitbucket.org:team/repo.git", "https://bitbucket.org/team/repo", "bitbucket"),
    ("https://bitbucket.org/team/repo", "https://bitbucket.org/team/repo", "bitbucket"),
])
def test_web_links_from_remote(url, base, kind):
    links = WebLinks.from_remote(url)
    assert (links.base, links.kind) == (base, kind)
    assert "s3cret" not in links.base


@pytest.mark.parametrize("url", ["", "/srv/git/repo.git", "file:///srv/repo",
                                 "https://example.com/o/r.git", "git@github.com:onlyname",
                                 "C:\\repos\\x"])
def test_web_links_unknown(url):
    assert WebLinks.from_remote(url) is None


def test_web_link_urls():
    sha = "0123456789abcdef0123456789abcdef01234567"
    gh = WebLinks.from_remote("git@github.com:psf/requests.git")
    assert gh.commit(sha) == f"https://github.com/psf/requests/commit/{sha}"
    assert gh.pr(12) == "https://github.com/psf/requests/pull/12"
    assert gh.issue(13) == "https://github.com/psf/requests/issues/13"
    assert gh.file("src/requests/a b.py", sha, 7) == \
        f"https://github.com/psf/requests/blob/{sha}/src/requests/a%20b.py#L7"
    gl = WebLinks.from_remote("git@gitlab.com:g/p.git")
    assert gl.commit(sha) == f"https://gitlab.com/g/p/-/commit/{sha}"
    assert gl.pr(3) == "https://gitlab.com/g/p/-/merge_requests/3"
    assert gl.issue(4) == "https://gitlab.com/g/p/-/issues/4"
    assert gl.file("x.py", sha) == f"https://gitlab.com/g/p/-/blob/{sha}/x.py"
    bb = WebLinks.from_remote("git@bitbucket.org:t/r.git")
    assert bb.commit(sha) == f"https://bitbucket.org/t/r/commits/{sha}"
    assert bb.pr(5) == "https://bitbucket.org/t/r/pull-requests/5"
    assert bb.file("x.py", sha, 9) == f"https://bitbucket.org/t/r/src/{sha}/x.py#lines-9"


def test_web_links_from_base_round_trip():
    gh = WebLinks.from_remote("git@github.com:psf/requests.git")
    assert WebLinks.from_base(gh.base, gh.kind) == gh
    assert WebLinks.from_base("https://github.com/psf/requests/", "github") == gh
    assert WebLinks.from_base("", "github") is None
    assert WebLinks.from_base("https://x/y", "sourcehut") is None


def test_links_and_filters_import_without_gitpython():
    code = ("import sys, whylens.history.links\n"
            "assert 'git' not in sys.modules, 'GitPython was imported'\n"
            "import whylens.history\n"
            "assert 'git' not in sys.modules\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
