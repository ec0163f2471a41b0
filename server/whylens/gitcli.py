"""git's command line and environment: the one place that builds them, for every git process.

No program the repository configures ever runs. Read-only commands can still start one: a
work-tree diff runs ``filter.<driver>.clean`` (and ``.process``) on files whose stat data changed,
``core.fsmonitor`` runs on any index read, diffs run ``diff.<driver>.textconv`` /
``diff.<driver>.command`` / ``diff.external``, a pager or a credential helper may start. So every
git process of WhyLens gets:

- ``--no-pager`` and fixed ``-c`` settings (``SAFE_SETTINGS``): no fsmonitor, hooks, pager,
  external diff, credential helper, ssh command, askpass, signature checks, and no transport at
  all (``protocol.allow=never``, and ``GIT_ALLOW_PROTOCOL`` empty in the environment, which also
  overrides a ``protocol.file.allow=always`` of the user's); so a partial clone never fetches:
  git >= 2.44 is told not to try (``GIT_NO_LAZY_FETCH``), and the fetch an older git starts
  for a missing object inherits both and cannot connect (``history.missing``: WhyLens asks such
  a git for no object it lacks);
- for a known repository, ``-c <key>=`` (``cat`` for a textconv) for each filter and diff
  driver program set in the repository's own configuration (``local`` / ``worktree`` scope,
  files it includes too), found
  by ``repository_settings`` (``git config --list --show-scope``, which runs nothing). Filter
  and diff drivers in the user's global or system configuration (git-lfs) are the user's own and
  keep working.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Mapping

GIT_TIMEOUT_S = 10
# Variables that would make git answer about another repository than the one asked about.
REDIRECTING = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE",
               "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
               "GIT_PREFIX")
SAFE_SETTINGS: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("core.sshCommand", "false"),
    ("core.askPass", "false"),
    ("credential.helper", ""),
    ("diff.external", ""),
    ("protocol.allow", "never"),
    ("log.showSignature", "false"),
    ("gpg.program", "false"),
)
# Keys of the repository's own configuration that name a program (git config key names are
# case-insensitive in their first and last part).
_PROGRAM_KEYS = re.compile(r"^(filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command))$",
                           re.IGNORECASE)
_REQUIRED_FILTER = re.compile(r"^filter\.(.+)\.required$", re.IGNORECASE)
_REPOSITORY_SCOPES = ("local", "worktree")


# A path byte that is not UTF-8 (a Latin-1 file name) ↔ one private-use character, U+F700 + byte:
# valid text for every store, distinct from every real name, and reversible to git's bytes.
_FOREIGN_BYTE = re.compile("[\udc80-\udcff]")
_FOREIGN_CHAR = re.compile("[\uf780-\uf7ff]")


def path_text(raw: bytes) -> str:
    """A path as git printed it → text that keeps every byte (see ``os_path``)."""
    return text_of_os_path(raw.decode("utf-8", "surrogateescape"))


def text_of_os_path(path: str) -> str:
    """A path from the OS (``sys.argv``, ``os.listdir``: undecodable bytes as surrogates) →
    the text the index keeps."""
    return _FOREIGN_BYTE.sub(lambda m: chr(ord(m.group()) - 0xDC00 + 0xF700), path)


def os_path(text: str) -> str:
    """The index's text of a path → the OS path (bytes as surrogates: ``open``, git args)."""
    return _FOREIGN_CHAR.sub(lambda m: chr(ord(m.group()) - 0xF700 + 0xDC00), text)


def global_options(neutralised: Iterable[str] = ()) -> list[str]:
    """The options before the subcommand: ``--no-pager``, ``SAFE_SETTINGS``, and an empty value
    for each of ``neutralised`` (from ``repository_settings``)."""
    args = ["--no-pager"]
    for key, value in SAFE_SETTINGS:
        args += ["-c", f"{key}={value}"]
    for key in neutralised:
        args += ["-c", f"{key}={_neutral_value(key)}"]
    return args


def _neutral_value(key: str) -> str:
    """An empty filter or diff command is no command; an empty textconv is an error ("cannot
    run"), so it becomes ``cat`` (the bytes as they are); a required filter is no longer."""
    if _REQUIRED_FILTER.match(key):
        return "false"
    return "cat" if key.lower().endswith(".textconv") else ""


def command(git: str, *args: str, neutralised: Iterable[str] = ()) -> list[str]:
    """The argv of a git command: ``git <global_options> <args>``."""
    return [git, *global_options(neutralised), *args]


def environment(pinned: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a git process: ours without the variables that redirect git, plus no
    optional locks (never touch the index file), no prompts, no pager, no lazy fetches, no
    transport, and ``pinned`` (``GIT_DIR``, ``GIT_WORK_TREE``)."""
    env = {k: v for k, v in os.environ.items() if k not in REDIRECTING}
    env.update({
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
        "GIT_NO_LAZY_FETCH": "1",  # partial clones: never fetch missing objects (git 2.44+)
        # no protocol at all, whatever protocol.<name>.allow says (the fetch an older git starts
        # for a missing object inherits it, and protocol.allow=never, and cannot connect)
        "GIT_ALLOW_PROTOCOL": "",
        "GIT_ASKPASS": "false",
        "SSH_ASKPASS": "false",
    })
    env.update(pinned or {})
    return env


def parse_scoped_list(raw: bytes) -> list[str]:
    """Keys to neutralise from ``git config -z --name-only --list --show-scope`` output (scope
    and name, each NUL-terminated): the program keys, and ``filter.*.required``, set in the
    repository's own configuration."""
    tokens = raw.decode("utf-8", "replace").split("\0")
    return _program_keys(key for scope, key in zip(tokens[0::2], tokens[1::2])
                         if scope in _REPOSITORY_SCOPES)


def _program_keys(keys: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(k for k in keys if _PROGRAM_KEYS.match(k) or _REQUIRED_FILTER.match(k)))


def repository_settings(git: str, git_dir: str, work_tree: str | None = None) -> list[str]:
    """The program keys set in this repository's own configuration (see ``parse_scoped_list``).

    Raises ``OSError`` when git cannot be run; a git too old for ``--show-scope`` (< 2.26) falls
    back to ``--local``."""
    pinned = {"GIT_DIR": git_dir, **({"GIT_WORK_TREE": work_tree} if work_tree else {})}
    env = environment(pinned)
    base = command(git, "config", "-z", "--name-only")
    out = subprocess.run([*base, "--list", "--show-scope"], capture_output=True, env=env,
                         timeout=GIT_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL)
    if out.returncode == 0:
        return parse_scoped_list(out.stdout)
    out = subprocess.run([*base, "--local", "--list"], capture_output=True, env=env,
                         timeout=GIT_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL)
    if out.returncode != 0:
        return []
    return _program_keys(out.stdout.decode("utf-8", "replace").split("\0"))
