"""Is a sentence one step of a squashed pull request rather than an explanation?

A squash merge's body lists the PR's commits, one subject a line: "Update errors_test.go",
"test(form): fix test code", "get_netrc_auth: code cleanup", "Adds review changes". Such a
line names a file, the tests or the code and a chore done to it, and says nothing about why
the change was made; in a snippet it takes the room of a sentence that explains.

A step is a short line (``MAX_WORDS``, after a conventional-commit or ``symbol:`` prefix) whose
words are all chores, housekeeping nouns (tests, docs, code, typo, review, ...), file names
and function words, with at most one other word when it has a housekeeping noun ("update
pycharm instructions", "add req.auth test coverage"). "Added res.cookie() options test" or
"disallow nan values in json serialize" name what changed and stay quotable.
"""

from __future__ import annotations

import re

from whylens.index.analysis import STOP_WORDS

MAX_WORDS = 7
_PREFIX = re.compile(r"^\s*[\w./-]+(?:\([^)]*\))?!?:\s+")
_TOKEN = re.compile(r"[\w./()'-]+")
_FILE = re.compile(r"[\w./-]*\w\.(?:go|py|js|mjs|cjs|ts|tsx|jsx|md|rst|txt|json|ya?ml|toml|c|h|cc|"
                   r"cpp|hpp|rb|rs|java|kt|kts|gradle|cfg|ini|lock|sh|tcl|html|css|xml|mod|sum)",
                   re.I)
CHORES = frozenset("""
    add adds added adding update updates updated updating fix fixes fixed fixing remove removes
    removed removing delete deletes deleted rename renames renamed move moves moved use uses used
    bump bumps bumped revert reverts reverted apply applies applied address addresses addressed
    merge merged format formats formatted lint linted tidy tidied clean cleans cleaned cleanup
    refactor refactors refactored improve improves improved tweak tweaks tweaked change changes
    changed adjust adjusts adjusted correct corrects corrected make makes made run rerun resolve
    resolves resolved try tries tried polish polished simplify simplified rewrite rewrote
    reformat reformatted sort sorted drop drops dropped restore restored regenerate regenerated
    another further final again also minor small some more few other extra missing new old
    up wip clarify clarified
""".split())
HOUSEKEEPING = frozenset("""
    test tests testing tested testcase testcases spec specs code comment comments typo typos doc
    docs documentation readme changelog history lint linter linting style styles format formatting
    review reviews feedback suggestion suggestions changes example examples spacing whitespace
    indentation indent import imports ci workflow workflows build version versions deps dependency
    dependencies filename coverage nit nits wording grammar spelling link links license
    authors copyright fixture fixtures mock mocks case cases unit e2e instructions description
    descriptions message messages variable variables name names naming lines line conflict
    conflicts stuff things thing cleanup submodule submodules
""".split())


def is_step(sentence: str) -> bool:
    """A squashed PR's step line (see the module docstring)."""
    text = _PREFIX.sub("", sentence.strip(), count=1)
    tokens = [t.strip(".,;:!?'\"()") for t in _TOKEN.findall(text)]
    tokens = [t for t in tokens if t and not t.lstrip("#").isdigit()]
    if not tokens or len(tokens) > MAX_WORDS:
        return False
    housekeeping = other = 0
    for token in tokens:
        low = token.lower()
        if _FILE.fullmatch(token) or low in HOUSEKEEPING:
            housekeeping += 1
        elif low not in STOP_WORDS and low not in CHORES:
            other += 1
    return housekeeping > 0 and other <= 1
