"""What a review guards against: which fixes are failures, which files are the product, which
lines are only wiring.

A fix of a typo, the tests, the docs, lint, the build or a merge is not a failure a reviewer
guards against coming back; nor is a fix outside product source (tests, examples, docs, build
manifests, vendored or generated files) or in a file the change deletes or empties. Import
lines are a module's wiring, not the logic a fix guards. ``review_reapply`` and
``review_fragile`` share these.
"""

from __future__ import annotations

import re

from whylens.retrieval.review_hunks import FileView
from whylens.symbols.languages import language_for_path
from whylens.symbols.skip import path_skip_reason

FIX = re.compile(r"\b(fix(e[sd]|ing)?|bug|regression|broke|broken|crash\w*|hotfix)\b", re.I)
REVERT_SUBJECT = re.compile(r"^\s*Revert\b", re.I)
# A fix of these is not a failure a reviewer guards against coming back.
NOT_A_FAILURE = re.compile(r"\b(typos?|tests?|testing|lint|flake8|pep8|docs?|documentation|spelling|"
                           r"tabs?/spaces|tabs? and spaces|indentation|"
                           r"grammar|whitespace|formatting|style|ci|build|travis|syntax|merge)\b", re.I)

# In-package test suites count as tests too (review12): flask's ``flask/testsuite/``, serde's
# ``test_suite/``, requests' ``testserver/``; a test module of one file (``test.py``, ``tests.js``,
# ``conftest.py``, ``*_tests.py``); benches and fixtures. A test-support library with its own
# name (``serde_test/src``, ``flask/testing.py``) stays product.
_NOT_PRODUCT = re.compile(r"(^|/)(tests?|spec|specs|__tests__|testing|test[_-]?suites?|testserver|fixtures?|"
                          r"examples?|samples?|demos?|docs?|benchmarks?|benches)/|"
                          r"(^|/)(test_[^/]*|tests?\.\w+|conftest\.py)$|_tests?\.\w+$|\.(test|spec)\.\w+$")
# Build and dependency manifests: a fix there is a fix of the build (requests' "fix setup.py for
# oauth removal", sinatra's Gemfile workarounds), not a failure of the product.
_BUILD = re.compile(r"(^|/)(setup\.py|Gemfile|[^/]+\.gemspec|Rakefile|[Gg]runtfile\.js|[Gg]ulpfile\.js|"
                    r"(webpack|rollup|karma)\.conf(ig)?\.\w+|Makefile|CMakeLists\.txt|build\.gradle(\.kts)?|"
                    r"noxfile\.py|fabfile\.py)$")
# An import line: which names a module uses is wiring, not the logic a fix guards.
_IMPORT = re.compile(r"^\s*(from\s+\S+\s+import\b|import\b|require(_relative)?\b|"
                     r"(var|let|const)\s+[\w${}\s,:]+=\s*require\s*\(|export\b.*\bfrom\b|#include\b)")


def not_guarded(view: FileView) -> bool:
    """Files whose fixes are not failures a review guards against: anything but product source,
    and files this change deletes whole, or empties (requests' "remove requests.async" left an
    empty file)."""
    emptied = view.head_text is not None and not view.head_text.strip()
    return view.change.status == "D" or emptied or not product_source(view.path)


def code_place(path: str) -> bool:
    """Not a test, example, doc or bench place (``product_source`` without the file kind and
    vendored tests: a vendored copy is code of its own project)."""
    return not _NOT_PRODUCT.search(path)


def product_source(path: str) -> bool:
    """Not tests, examples, docs, build manifests, files of no programming language, vendored or
    generated copies."""
    return not (_NOT_PRODUCT.search(path) or _BUILD.search(path) or language_for_path(path) is None
                or path_skip_reason(path) in ("vendored", "generated", "minified", "lock_file"))


def import_lines(lines: list[str]) -> set[int]:
    """The 1-based numbers of the lines that belong to import statements, with the lines of a
    bracketed list (``from x import (`` … ``)``, ``import {`` … ``} from``)."""
    out: set[int] = set()
    closer = ""
    for number, line in enumerate(lines, 1):
        if closer:
            out.add(number)
            closer = "" if closer in line else closer
        elif _IMPORT.match(line):
            out.add(number)
            for opener, close in (("(", ")"), ("{", "}")):
                if opener in line and close not in line.split(opener, 1)[1]:
                    closer = close
    return out
