"""Indexing feature: run the child indexer when ready, watch for new commits, reindex command."""

from __future__ import annotations

import logging

from lsprotocol import types

from whylens.lsp import protocol
from whylens.lsp.guard import guarded
from whylens.lsp.indexer import IndexManager
from whylens.lsp.server import WhyLensServer

log = logging.getLogger(__name__)

WATCHER_REGISTRATION_ID = "whylens-git-refs"
GIT_GLOBS = ("**/.git/HEAD", "**/.git/refs/**", "**/.git/packed-refs")


def register(server: WhyLensServer) -> None:
    manager = IndexManager(server)
    server.index_manager = manager

    async def ready() -> None:
        for ws in server.workspaces.items:
            manager.start(ws)
        await _watch_git(server)

    server.on_ready.append(ready)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @guarded
    def watched_files_changed(ls: WhyLensServer, params: types.DidChangeWatchedFilesParams):
        if not ls.settings.index.auto_update:
            return
        for ws in ls.workspaces.items:
            if any(_under_git_dir(change.uri, ws) for change in params.changes) and manager.changed(ws):
                log.info("%s: refs changed; updating the index", ws.name)
                manager.request(ws)

    @server.command(protocol.CMD_REINDEX)
    @guarded
    def reindex(ls: WhyLensServer, *args):
        target = args[0] if args and isinstance(args[0], str) else None
        chosen = [ls.resolve_workspace(target)] if target else list(ls.workspaces.items)
        for ws in chosen:
            if ws is not None:
                manager.start(ws)
        return None

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: WhyLensServer, *args):
        manager.shutdown()


async def _watch_git(server: WhyLensServer) -> None:
    """Ask the client to watch git refs, when it can register watchers dynamically."""
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


def _under_git_dir(uri: str, ws) -> bool:
    from pygls.uris import to_fs_path

    path = to_fs_path(uri) if isinstance(uri, str) else None
    return bool(path) and (path.startswith(str(ws.git_dir)) or "/.git/" in path)
