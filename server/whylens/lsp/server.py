"""The WhyLens language server: state on a ``LanguageServer`` subclass, features from modules.

Lifecycle: ``initialize`` applies the options snapshot (``initializationOptions.settings``);
``initialized`` finds the repository of every workspace folder (a folder that is not one, or a
missing git, gets ONE message and no answers), opens the existing indexes, pulls the settings with
``workspace/configuration``, then tells the features (``on_ready`` hooks): the indexing feature
starts its child process.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from whylens import __version__
from whylens.config import Settings, parse_settings
from whylens.errors import GitMissingError, WhyLensError
from whylens.lsp import logs, protocol
from whylens.lsp.documents import Documents
from whylens.lsp.workspaces import RepoWorkspace, Workspaces, find_repository, index_dir_for

log = logging.getLogger(__name__)

ERROR_POPUPS_PER_MINUTE = 1


class WhyLensServer(LanguageServer):
    """Holds everything the handlers share; handlers take it as their first parameter ``ls``."""

    def __init__(self) -> None:
        super().__init__("whylens", __version__, protocol_cls=protocol.WhyLensProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.settings = Settings()
        self.init_options: dict = {}
        self.workspaces = Workspaces()
        self.documents = Documents(self)
        self.features: list[str] = []
        self.on_ready: list[Callable[[], Any]] = []  # called once the workspaces are known
        # called with the workspace after each index run, so features can refresh what they show
        self.on_index_updated: list[Callable[[Any], Any]] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        self.index_manager = None  # an indexer.IndexManager when the indexing feature is loaded
        self.log_handler = logs.install(self)
        self._shown: set[str] = set()
        self._error_popups: list[float] = []
        self._tasks: set[asyncio.Task] = set()

    def index_updated(self, ws) -> None:
        """Tell every feature that ``ws``'s index changed; one failing feature stops nothing."""
        for callback in self.on_index_updated:
            try:
                callback(ws)
            except Exception:  # noqa: BLE001 - logged with its traceback, the server carries on
                log.exception("refreshing after an index update failed")

    # ---- messages ---------------------------------------------------------------------------

    def show_once(self, key: str, message: str,
                  kind: types.MessageType = types.MessageType.Warning) -> None:
        """One ``window/showMessage`` per problem (``key``) per session; always logged."""
        log.warning("%s", message)
        if key in self._shown:
            return
        self._shown.add(key)
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def report_server_error(self, error: Exception, source) -> None:
        """Out-of-band errors: logged always, shown at most once a minute, never a traceback."""
        log.error("server error (%s): %s", getattr(source, "__name__", source), error)
        if source is FeatureRequestError:
            return
        now = time.monotonic()
        self._error_popups = [t for t in self._error_popups if now - t < 60]
        if len(self._error_popups) >= ERROR_POPUPS_PER_MINUTE:
            return
        self._error_popups.append(now)
        try:
            self.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Error,
                message=f"WhyLens: {error}. See the WhyLens output for details."))
        except Exception:
            log.debug("could not show the error", exc_info=True)

    def send_status(self, payload: dict) -> None:
        self.protocol.notify(protocol.INDEX_STATUS, payload)

    # ---- tasks ------------------------------------------------------------------------------

    def run_task(self, coro: Coroutine, name: str) -> asyncio.Task:
        """Start a background task whose failure is logged, never silent."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)

        def done(t: asyncio.Task) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("background task %s failed", name, exc_info=t.exception())

        task.add_done_callback(done)
        return task

    # ---- settings and workspaces ------------------------------------------------------------

    def apply_settings(self, raw: Any) -> None:
        settings, problems = parse_settings(raw)
        if problems:
            self.show_once("settings:" + "|".join(problems),
                           "WhyLens settings: " + "; ".join(problems))
        if settings != self.settings:
            log.info("settings: %s", settings)
        self.settings = settings
        self.log_handler.setLevel(logs.LEVEL_BY_SETTING[settings.logging.level])

    async def pull_settings(self) -> None:
        """``workspace/configuration`` for section ``whylens`` (when the client supports it)."""
        caps = self.client_capabilities.workspace
        if not (caps and caps.configuration):
            return
        scope = self.workspaces.items[0].folder_uri if self.workspaces.items else None
        try:
            result = await self.workspace_configuration_async(types.ConfigurationParams(
                items=[types.ConfigurationItem(section="whylens", scope_uri=scope)]))
        except Exception as exc:
            log.info("workspace/configuration failed: %s", exc)
            return
        if result and isinstance(result[0], dict):
            self.apply_settings(result[0])

    def folder_uris(self) -> list[tuple[str, str]]:
        folders = list(self.workspace.folders.values())
        if folders:
            return [(f.uri, f.name) for f in folders]
        root = self.workspace.root_uri
        return [(root, root)] if root else []

    def add_folder(self, uri: str, several: bool) -> RepoWorkspace | None:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if not path:
            self.show_once(f"folder:{uri}", f"WhyLens: {uri} is not a local folder; it is skipped")
            return None
        try:
            root, git_dir = find_repository(Path(path))
        except GitMissingError as exc:
            self.show_once("git-missing", f"WhyLens: {exc}. WhyLens stays idle until then.")
            return None
        except WhyLensError as exc:
            self.show_once(f"folder:{uri}", f"WhyLens: {exc}. WhyLens stays idle for this folder.")
            return None
        options = self.init_options
        storage = options.get("storagePath") or options.get("storageUri")
        if isinstance(storage, str) and storage.startswith("file:"):
            storage = to_fs_path(storage)
        override = options.get("indexDirectory") or self.settings.index.directory
        index_dir = index_dir_for(root, override if isinstance(override, str) else None,
                                  storage if isinstance(storage, str) else None, several)
        ws = self.workspaces.add(RepoWorkspace(uri, root, git_dir, index_dir))
        ws.reopen()
        log.info("%s: repository %s, index %s%s", ws.name, root, index_dir,
                 "" if ws.reader is not None else " (not built yet)")
        return ws

    def resolve_workspace(self, uri: str | None) -> RepoWorkspace | None:
        """The repository a URI (file or folder) belongs to, or the default one for None."""
        if uri is None:
            return self.workspaces.default()
        path = to_fs_path(uri) if isinstance(uri, str) and uri.startswith("file:") else None
        found = self.workspaces.for_path(Path(path)) if path else None
        if found is None:
            log.debug("refused %r: outside every workspace repository", uri)
            return None
        return found[0]


def _call_logged(server: WhyLensServer, fn: Callable) -> None:
    """Run a hook; a coroutine becomes a logged background task; a failure is logged."""
    try:
        result = fn()
        if asyncio.iscoroutine(result):
            server.run_task(result, getattr(fn, "__qualname__", "hook"))
    except Exception:
        log.exception("%s failed", getattr(fn, "__qualname__", fn))


def _register_core(server: WhyLensServer) -> None:
    """Lifecycle handlers every configuration needs (not a feature: cannot be excluded)."""

    @server.feature(types.INITIALIZE)
    def initialize(ls: WhyLensServer, params: types.InitializeParams) -> None:
        options = params.initialization_options
        ls.init_options = options if isinstance(options, dict) else {}
        ls.apply_settings(ls.init_options.get("settings"))

    @server.feature(types.INITIALIZED)
    async def initialized(ls: WhyLensServer, params: types.InitializedParams) -> None:
        ls.loop = asyncio.get_running_loop()
        ls.log_handler.start()
        folders = ls.folder_uris()  # before any await: requests may arrive right away
        for uri, _name in folders:
            ls.add_folder(uri, several=len(folders) > 1)
        await ls.pull_settings()
        for hook in ls.on_ready:
            _call_logged(ls, hook)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: WhyLensServer,
                           params: types.DidChangeWorkspaceFoldersParams) -> None:
        for folder in params.event.removed or ():
            for ws in ls.workspaces.remove(folder.uri):
                if ls.index_manager is not None:
                    ls.index_manager.stop(ws)
                ws.drop_reader()
        several = len(ls.workspace.folders) > 1
        for folder in params.event.added or ():
            ws = ls.add_folder(folder.uri, several)
            if ws is not None and ls.index_manager is not None:
                ls.index_manager.start(ws)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: WhyLensServer,
                                       params: types.DidChangeConfigurationParams) -> None:
        caps = ls.client_capabilities.workspace
        if caps and caps.configuration:
            await ls.pull_settings()
        elif isinstance(params.settings, dict):
            ls.apply_settings(params.settings.get("whylens", params.settings))


def create_server(exclude: Iterable[str] = ()) -> WhyLensServer:
    """A server with every feature module registered except ``exclude``."""
    from whylens.lsp.features import FEATURES, load

    server = WhyLensServer()
    _register_core(server)
    excluded = set(exclude)
    unknown = excluded - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown feature(s) {', '.join(sorted(unknown))}; "
                         f"choose from {', '.join(FEATURES)}")
    for name in FEATURES:
        if name not in excluded:
            load(name).register(server)
            server.features.append(name)
    log.debug("features: %s", ", ".join(server.features))
    return server
