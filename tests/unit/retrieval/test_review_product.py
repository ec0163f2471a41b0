"""What review counts as product source (review12): a test suite inside the package is tests,
and on a test file only its reverts and fixes speak, on real histories with git reading the past."""

from __future__ import annotations

import pytest

from whylens.cli.review import change_message, history_patches, revision_reader
from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.index.store import IndexStore
from whylens.retrieval.review import review
from whylens.retrieval.review_guarded import product_source

from histories import indexed_branch
from retrieval.retry_history import CLIENT_V5, build_retry_history


@pytest.mark.parametrize("path", [
    "flask/testsuite/basic.py", "test_suite/tests/test_de.rs", "testserver/server.py", "test.py",
    "test.js", "tests/conftest.py", "conftest.py", "flask/helpers_tests.py", "benches/bench_vec.rs",
    "tests/fixtures/app.py", "lib/sinatra/base_test.rb", "src/test/java/GsonTest.java",
])
def test_tests_inside_and_outside_the_package_are_not_product(path):
    assert not product_source(path)


@pytest.mark.parametrize("path", [
    "flask/testing.py", "serde_test/src/lib.rs", "requests/models.py", "lib/express/router.js",
    "src/latest.js", "contest.py", "attestation.py",
])
def test_product_code_and_test_support_libraries_are_product(path):
    assert product_source(path)


class _Moved:
    """The retry history with its client at another path."""

    def __init__(self, repo, path: str) -> None:
        self._repo, self._path = repo, path

    def commit(self, message: str, files: dict, **kw) -> str:
        return self._repo.commit(message, {self._path if p == "src/client.py" else p: text
                                           for p, text in files.items()}, **kw)


def _review_at(make_repo, index_dir, path: str, name: str, edit: tuple[str, str], message: str):
    repo, shas = indexed_branch(make_repo, index_dir, name, lambda r: build_retry_history(_Moved(r, path)))
    repo.write(path, CLIENT_V5.replace(*edit))
    head = repo.commit(message)
    with IndexStore(index_dir).reader() as reader, open_repository(repo.root) as git:
        base = git.resolve("main")
        out = review(reader, repo.root, diff_changes(git, base, head), revision_reader(git, head),
                     read_base=revision_reader(git, base), patches=history_patches(git),
                     message=change_message(git, base, head), gate=0.0)
    return out, shas


FIXED = ("            time.sleep(backoff(attempt))\n",
         "            delay = RETRY_DELAY\n            time.sleep(delay)\n")
MESSAGE = "Use a fixed delay between retries\n\nFixed delays make the tests predictable.\n"


def test_a_fact_of_the_product_is_a_constraint_there_not_in_an_in_package_test_suite(make_repo, tmp_path):
    said, shas = _review_at(make_repo, tmp_path / "a", "src/client.py", "product", FIXED, MESSAGE)
    assert any(shas["policy"] in s.evidence for s in said if s.kind == "constraint")
    quiet, _ = _review_at(make_repo, tmp_path / "b", "client/testsuite/client.py", "suite", FIXED, MESSAGE)
    assert [s for s in quiet if s.kind in ("constraint", "decision-context", "reintroduces-pitfall")] == []


def test_in_an_in_package_test_suite_a_fix_taken_out_is_silent_a_revert_brought_back_is_not(make_repo, tmp_path):
    drop = ("session.get(url, timeout=10)", "session.get(url)")
    out, shas = _review_at(make_repo, tmp_path / "c", "client/testsuite/client.py", "drop", drop, "Simplify\n")
    assert not [s for s in out if s.kind in ("rewrites-fix", "reintroduces-fixed")]
    back = ("            time.sleep(backoff(attempt))\n",
            "            time.sleep(RETRY_DELAY)\n")
    out, shas = _review_at(make_repo, tmp_path / "d", "client/testsuite/client.py", "back", back, "Simplify\n")
    assert [s.evidence for s in out if s.kind == "reintroduces-revert"] == [(shas["fixed"], shas["revert"])]
