"""Indexing feature: run the child indexer when ready, watch for new commits, reindex command."""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from lsprotocol import types
from pygls.uris import to_fs_path

from whylens.lsp import protocol
from whylens.lsp.guard import guarded
from whylens.lsp.indexer import IndexManager
from whylens.lsp.server import Feature, WhyLensServer
from whylens.lsp.workspaces import RepoWorkspace

log = logging.getLogger(__name__)

WATCHER_REGISTRATION_ID = "whylens-git-refs"
GIT_GLOBS = ("**/.git/HEAD", "**/.git/refs/**", "**/.git/packed-refs")


class IndexingFeature(Feature):
    """Owns the index runs (``IndexManager``): one child process per repository at a time."""

    name: ClassVar[str] = "indexing"

    def __init__(self, server: WhyLensServer) -> None:
        super().__init__(server)
        self.manager = IndexManager(server)

    def register(self) -> None:
        self.server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(
            guarded(self.watched_files_changed))
        self.server.command(protocol.CMD_REINDEX)(guarded(self.reindex))

    # ---- hooks ------------------------------------------------------------------------------

    async def ready(self) -> None:
        for ws in self.server.workspaces.items:
            self.manager.start(ws)
        await self._watch_git()

    def folder_added(self, ws: RepoWorkspace) -> None:
        self.manager.start(ws)

    def folder_removed(self, ws: RepoWorkspace) -> None:
        self.manager.stop(ws)

    def shutdown(self) -> None:
        self.manager.shutdown()

    # ---- handlers ---------------------------------------------------------------------------

    def watched_files_changed(self, params: types.DidChangeWatchedFilesParams) -> None:
        if not self.server.settings.index.auto_update:
            return
        for ws in self.server.workspaces.items:
            if (any(_under_git_dir(change.uri, ws) for change in params.changes)
                    and self.manager.changed(ws)):
                log.info("%s: refs changed; updating the index", ws.name)
                self.manager.request(ws)

    def reindex(self, *args: Any) -> None:
        """``[]``: every repository; ``[folderUri]``: the one that folder (or file) is in."""
        target = args[0] if args and isinstance(args[0], str) else None
        chosen = [self.server.resolve_workspace(target)] if target else self.server.workspaces.items
        for ws in chosen:
            if ws is not None:
                self.manager.start(ws)

    async def _watch_git(self) -> None:
        """Ask the client to watch git refs, when it can register watchers dynamically."""
        server = self.server
        caps = server.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps else None
        if not (watched and watched.dynamic_registration) or not server.workspaces.items:
            log.info("client cannot watch files; polling HEAD instead")
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(watchers=[
            types.FileSystemWatcher(glob_pattern=glob) for glob in GIT_GLOBS])
        try:
            await server.client_register_capability_async(types.RegistrationParams(registrations=[
                types.Registration(id=WATCHER_REGISTRATION_ID,
                                   method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                   register_options=options)]))
        except Exception as exc:  # polling still covers it
            log.info("file watcher registration refused: %s", exc)


def _under_git_dir(uri: str, ws: RepoWorkspace) -> bool:
    path = to_fs_path(uri) if isinstance(uri, str) else None
    return path is not None and (path.startswith(str(ws.git_dir)) or "/.git/" in path)
