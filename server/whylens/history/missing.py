"""Objects the repository lacks: git's errors about them, partial clones, the objects present.

A repository may lack objects its history names: a partial clone (``git clone --filter=blob:none``
or ``--filter=blob:limit=1m``) fetches them from its promisor remote when a command needs one, a
mirror may have dropped its big blobs, a repository may be damaged. WhyLens never fetches:

- git is told not to (``GIT_NO_LAZY_FETCH``, ``gitcli.environment``: honoured since the
  security releases of May 2024, 2.39.4 … 2.45.1);
- on any git, a fetch git starts anyway cannot connect: ``protocol.allow=never`` on the command
  line (a ``protocol.<name>.allow`` the user set would win over it) and ``GIT_ALLOW_PROTOCOL``
  empty (it wins over every setting) are inherited by git's own children;
- and in a repository git would fetch for (``lazy_fetches``), WhyLens asks git for no object it
  lacks, so that an older git does not even start the fetch (and no git dies over it, after
  scanning its promisor packs, as 2.39 does): blob reads are checked against ``Presence`` first
  (``BlobReader``, ``Repository.read_file``), the walk's mailmap blob too (``mailmap_pin``), and
  the walk reads no blob (``walk``) unless ``patches_worth_reading`` (a ``blob:limit`` clone
  and a git that dies instead of fetching: then it reads on past the commits it dies on).

``names_missing_object(stderr)`` tells a git death over an object (the walk reads on past it)
from any other failure.
"""

from __future__ import annotations

import re
import weakref
from typing import TYPE_CHECKING
from functools import cache

if TYPE_CHECKING:
    import numpy as np

    from whylens.history.repo import Repository

_OBJECT_NAME = re.compile(r"(?<![0-9a-f])[0-9a-f]{40}(?:[0-9a-f]{24})?(?![0-9a-f])")
_PROMISOR_KEYS = r"^(remote\..+\.(promisor|partialclonefilter)|extensions\.partialclone)$"
_FALSE = frozenset({"false", "no", "off", "0"})
_CHUNK_LINES = 1 << 16

_partial: weakref.WeakKeyDictionary[Repository, tuple[bool, list[str]]] = \
    weakref.WeakKeyDictionary()
_present: weakref.WeakKeyDictionary[Repository, Presence] = weakref.WeakKeyDictionary()


def names_missing_object(stderr: str) -> bool:
    """Whether git died over an object it could not read: its message names the object
    ("unable to read <sha>", "could not fetch <sha> from promisor remote", "bad object <sha>")."""
    return bool(_OBJECT_NAME.search(stderr))


def lazy_fetches(repo: Repository) -> bool:
    """Whether git would fetch a missing object of ``repo`` from a promisor remote (a partial
    clone: ``remote.<name>.promisor``, ``remote.<name>.partialclonefilter`` or
    ``extensions.partialClone`` set). Asked once per repository."""
    return _promisors(repo)[0]


def patches_worth_reading(repo: Repository) -> bool:
    """Whether the walk should ask git for patches in this partial clone: only when its git
    dies instead of fetching (``GIT_NO_LAZY_FETCH``, ``honours_no_lazy_fetch``) and every
    promisor's filter is ``blob:limit=…`` (most blobs are there; the walk reads on past the
    commits of the big ones). Anything else (``blob:none``, trees filtered, an older git): no
    blob is asked for at all. Each death there costs git a scan of its promisor packs."""
    partial, filters = _promisors(repo)
    return (partial and bool(filters) and honours_no_lazy_fetch(repo.git_version)
            and all(f.startswith("blob:limit=") for f in filters))


# git releases that honour GIT_NO_LAZY_FETCH: the security releases of 2024-05-14 and later
_NO_LAZY_FETCH_SINCE: dict[tuple[int, ...], int] = {
    (2, 39): 4, (2, 40): 2, (2, 41): 1, (2, 42): 2, (2, 43): 4, (2, 44): 1, (2, 45): 1}


def honours_no_lazy_fetch(version: tuple[int, ...]) -> bool:
    if version[:2] >= (2, 46):
        return True
    since = _NO_LAZY_FETCH_SINCE.get(version[:2])
    return since is not None and len(version) > 2 and version[2] >= since


def _promisors(repo: Repository) -> tuple[bool, list[str]]:
    """(is a partial clone, the filters its promisor remotes record), read once."""
    known = _partial.get(repo)
    if known is None:
        status, out, _ = repo.run("config", "-z", "--get-regexp", _PROMISOR_KEYS, check=False)
        partial, filters = False, []
        for item in out.decode("utf-8", "replace").split("\0") if status == 0 else ():
            key, _, value = item.partition("\n")
            if key and not (key.endswith(".promisor") and value.strip().lower() in _FALSE):
                partial = True
            if key.endswith(".partialclonefilter"):
                filters.append(value.strip())
        known = _partial[repo] = (partial, filters)
    return known


def has_object(repo: Repository, sha: str | None) -> bool:
    """Whether WhyLens may ask git for ``sha``: always outside a partial clone (git answers
    "missing" there, or fails, without fetching); in one, only when the object is present."""
    if not lazy_fetches(repo):
        return True
    present = _present.get(repo)
    if present is None:
        present = _present[repo] = Presence.of(repo)
    return sha is not None and sha in present


def mailmap_pin(repo: Repository) -> list[str]:
    """``-c mailmap.blob=`` when the walk's mailmap blob (``mailmap.blob``, else ``HEAD:.mailmap``
    in a bare repository) is a blob a partial clone lacks: git would fetch it for ``--use-mailmap``.
    Nothing otherwise."""
    if not lazy_fetches(repo):
        return []
    status, out, _ = repo.run("config", "--get", "mailmap.blob", check=False)
    name = out.decode("utf-8", "replace").strip() if status == 0 else ""
    if not name and not repo.is_bare:
        return []
    status, out, _ = repo.run("rev-parse", "--verify", "-q", name or "HEAD:.mailmap",
                              check=False)
    sha = out.decode("ascii", "replace").strip() if status == 0 else None
    return [] if sha and has_object(repo, sha) else ["-c", "mailmap.blob="]


@cache
def _hex_tables() -> tuple[np.ndarray, np.ndarray]:
    """Hex digit → value, and the shifts that make 16 hex digits one 64-bit key. numpy is
    imported here, not at the top: the anchor worker imports this module (through the blob
    reader) and never needs it (importing numpy: 0.11 s of its start-up)."""
    import numpy as np

    hex_values = np.full(256, 0, dtype=np.uint64)
    hex_values[np.frombuffer(b"0123456789", np.uint8)] = np.arange(10, dtype=np.uint64)
    hex_values[np.frombuffer(b"abcdef", np.uint8)] = np.arange(10, 16, dtype=np.uint64)
    return hex_values, np.arange(60, -4, -4, dtype=np.uint64)


class Presence:
    """The objects present in a repository's object store, listed once by
    ``git cat-file --batch-all-objects`` (which never fetches), kept as sorted 64-bit prefixes
    of their names: 8 bytes an object. A prefix shared by a missing object and a present one
    (odds about n² / 2⁶⁵) would answer "present"; git then answers "missing" or fails."""

    def __init__(self, keys: np.ndarray) -> None:
        import numpy as np

        self._keys = np.sort(keys)

    @classmethod
    def of(cls, repo: Repository) -> Presence:
        import numpy as np

        hex_values, shifts = _hex_tables()
        proc = repo.popen(["cat-file", "--batch-all-objects", "--batch-check=%(objectname)",
                           "--unordered"])
        parts: list[np.ndarray] = []
        width = 0
        rest = b""
        try:
            while True:
                chunk = proc.stdout.read(1 << 20)
                if not chunk:
                    break
                data = rest + chunk
                width = width or data.find(b"\n") + 1  # 41 (sha-1) or 65 (sha-256)
                usable = len(data) - len(data) % width if width > 0 else 0
                rest = data[usable:]
                if usable:
                    rows = np.frombuffer(data, np.uint8, usable).reshape(-1, width)[:, :16]
                    parts.append((hex_values[rows] << shifts).sum(axis=1, dtype=np.uint64))
        finally:
            proc.close()
        return cls(np.concatenate(parts) if parts else np.zeros(0, np.uint64))

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, sha: object) -> bool:
        if not isinstance(sha, str) or len(sha) < 16:
            return False
        import numpy as np

        try:
            key = np.uint64(int(sha[:16], 16))
        except ValueError:
            return False
        at = int(np.searchsorted(self._keys, key))
        return at < len(self._keys) and self._keys[at] == key
