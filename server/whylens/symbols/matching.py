"""Linking the definitions a commit deleted to those it added: moves and renames.

Within one commit, across all its files:
1. **moved**: same short name (``send``) and the same body (its text from the body on, members
   included, with comments and layout removed: ``formatting.squeeze``) under another parent or
   in another file: ``previous = "old_path::Old.send"``;
2. **renamed**: another short name, same body (at least ``MIN_RENAME_BODY`` squeezed bytes, so
   empty bodies do not pair), same kind: ``previous`` is the old qualified name in the same
   file, or ``"old_path::name"`` when the file differs (then the kind is ``moved``);
   **moved and changed**: the same qualified name and kind deleted from one file and added to
   another (requests's ``Settings`` from settings.py to config.py, edited on the way);
3. the members of a renamed or moved definition follow it: ``Old.m`` → ``New.m`` is a
   ``renamed`` event even when the member's own lines are untouched, so its history continues.
A pairing is made only when it is unique on both sides; what stays unpaired is ``added`` /
``deleted``. Bodies are read lazily: only a commit that deleted something needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from whylens.models import SymbolEvent
from whylens.symbols.tracking import FileState

MIN_RENAME_BODY = 12


class Body:
    """A definition's squeezed body, computed on first use."""

    __slots__ = ("_make", "_value")

    def __init__(self, make: Callable[[], bytes]) -> None:
        self._make: Callable[[], bytes] | None = make
        self._value = b""

    def __call__(self) -> bytes:
        if self._make is not None:
            self._value, self._make = self._make(), None
        return self._value


@dataclass(frozen=True, slots=True, eq=False)
class Added:
    path: str
    state: FileState
    index: int
    body: Body


@dataclass(frozen=True, slots=True, eq=False)
class Deleted:
    path: str  # the path of the file change (the new path when the file was renamed)
    old_path: str
    state: FileState
    index: int
    body: Body


def _name(state: FileState, index: int) -> str:
    return state.spans[index].name


def _short(state: FileState, index: int) -> str:
    return state.spans[index].short


def resolve(sha: str, added: list[Added], deleted: list[Deleted],
            existing: set[tuple[str, str]]) -> list[SymbolEvent]:
    """Events for one commit's unpaired definitions (``existing``: (path, symbol) already done)."""
    if not deleted:  # nothing to link: every unpaired definition is new
        return [SymbolEvent(sha, a.path, _name(a.state, a.index), "added") for a in added
                if (a.path, _name(a.state, a.index)) not in existing]
    links: list[tuple[Deleted, Added]] = []
    rest_a, rest_d = list(added), list(deleted)
    passes = (
        (lambda x: (_short(x.state, x.index), x.body()), 1),  # moved: same short name and body
        (lambda x: (x.state.spans[x.index].kind, x.body()), MIN_RENAME_BODY),  # renamed
        # moved and changed on the way: the same qualified name and kind in another file
        (lambda x: ((_name(x.state, x.index), x.state.spans[x.index].kind), x.path), 0),
    )
    for key, min_body in passes:
        found, rest_a, rest_d = _unique_pairs(rest_a, rest_d, key, min_body)
        links.extend(found)
    seen = set(existing)
    events: list[SymbolEvent] = []
    renamed = {(a.path, _name(d.state, d.index), _name(a.state, a.index)) for d, a in links}
    for d, a in links:
        events.append(_link_event(sha, d, a, renamed))
        seen.add((a.path, _name(a.state, a.index)))
    events.extend(_members(sha, links, seen, rest_a, rest_d))
    for a in rest_a:
        if (a.path, _name(a.state, a.index)) not in seen:
            events.append(SymbolEvent(sha, a.path, _name(a.state, a.index), "added"))
    for d in rest_d:
        events.append(SymbolEvent(sha, d.path, _name(d.state, d.index), "deleted"))
    return events


def _unique_pairs(added: list[Added], deleted: list[Deleted], key, min_body: int):
    """Pairs whose key occurs exactly once among ``added`` and once among ``deleted``. A key
    is (what must be equal, the body); the third pass's second part is the path instead, which
    must differ (a definition of the same name deleted and added in one file is two)."""
    by_a: dict = {}
    by_d: dict = {}
    cross = min_body == 0
    for a in added:
        k = key(a)
        if cross or len(k[1]) >= min_body:
            by_a.setdefault(k[0] if cross else k, []).append(a)
    for d in deleted:
        k = key(d)
        if cross:
            if k[0] in by_a and all(a.path != d.path for a in by_a[k[0]]):
                by_d.setdefault(k[0], []).append(d)
        elif k in by_a:
            by_d.setdefault(k, []).append(d)
    pairs = []
    for k, ds in by_d.items():
        if len(ds) == 1 and len(by_a[k]) == 1:
            pairs.append((ds[0], by_a[k][0]))
    paired_a = {id(a) for _, a in pairs}
    paired_d = {id(d) for d, _ in pairs}
    return (pairs, [a for a in added if id(a) not in paired_a],
            [d for d in deleted if id(d) not in paired_d])


def _link_event(sha: str, d: Deleted, a: Added, renamed: set[tuple[str, str, str]]) -> SymbolEvent:
    """``renamed`` in the same file (a new short name, or a parent that was renamed), else moved."""
    old_name, new_name = _name(d.state, d.index), _name(a.state, a.index)
    same_file = d.path == a.path and d.old_path == a.path
    parents = (a.path, old_name.rpartition(".")[0], new_name.rpartition(".")[0])
    if same_file and (_short(d.state, d.index) != _short(a.state, a.index)
                      or parents in renamed):
        return SymbolEvent(sha, a.path, new_name, "renamed", previous=old_name)
    return SymbolEvent(sha, a.path, new_name, "moved", previous=f"{d.old_path}::{old_name}")


def _members(sha: str, links: list[tuple[Deleted, Added]], seen: set[tuple[str, str]],
             rest_a: list[Added], rest_d: list[Deleted]) -> list[SymbolEvent]:
    """Members of a linked container keep their history under the container's new name.

    Updates ``rest_a`` / ``rest_d`` in place: a member that followed is neither added nor
    deleted.
    """
    events: list[SymbolEvent] = []
    followed_a: set[tuple[int, int]] = set()
    followed_d: set[tuple[int, int]] = set()
    for d, a in links:
        old_out, new_out = d.state, a.state
        old_prefix = _name(old_out, d.index) + "."
        new_prefix = _name(new_out, a.index) + "."
        same_file = d.path == a.path and d.old_path == a.path
        new_names = {x.name: k for k, x in enumerate(new_out.spans)}
        for i, span in enumerate(old_out.spans):
            old_name = span.name
            if not old_name.startswith(old_prefix) or (same_file and old_name in new_names):
                continue  # not a member, or its old name still exists (not a follower)
            new_name = new_prefix + old_name[len(old_prefix):]
            j = new_names.get(new_name)
            if j is None or (a.path, new_name) in seen:
                continue
            seen.add((a.path, new_name))
            followed_a.add((id(new_out), j))
            followed_d.add((id(old_out), i))
            if same_file:
                events.append(SymbolEvent(sha, a.path, new_name, "renamed", previous=old_name))
            else:
                events.append(SymbolEvent(sha, a.path, new_name, "moved",
                                          previous=f"{d.old_path}::{old_name}"))
    rest_a[:] = [x for x in rest_a if (id(x.state), x.index) not in followed_a]
    rest_d[:] = [x for x in rest_d if (id(x.state), x.index) not in followed_d]
    return events
