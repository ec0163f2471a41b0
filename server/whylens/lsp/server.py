"""The WhyLens language server: shared state on a ``LanguageServer`` subclass, one ``Feature``
object per editor feature.

Lifecycle: ``initialize`` applies the options snapshot (``initializationOptions.settings``);
``initialized`` finds the repository of every workspace folder (a folder that is not one, or a
missing git, gets ONE message and no answers), opens the existing indexes, pulls the settings with
``workspace/configuration``, then tells the features (``Feature.ready``): the indexing feature
starts its child process.

A feature owns its state (caches, reported errors, index runs) and registers thin handlers that
call its methods; ``create_server`` builds them, so a test can also build a ``WhyLensServer`` and
one feature without starting stdio.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine, Iterable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from whylens import __version__
from whylens.config import Settings, parse_settings
from whylens.errors import GitMissingError, WhyLensError
from whylens.locate import locate
from whylens.lsp import logs, protocol
from whylens.lsp.documents import Documents
from whylens.lsp.workspaces import RepoWorkspace, Workspaces, index_dir_for

log = logging.getLogger(__name__)

ERROR_POPUPS_PER_MINUTE = 1
F = TypeVar("F", bound="Feature")


class Feature:
    """One editor feature: owns its state; ``register`` installs thin handlers on the server.

    Handlers are bound methods wrapped in ``guard.guarded``. pygls passes the server as the first
    argument when that parameter is named ``ls`` or annotated with a type the server is a subclass
    of, so a handler's first parameter is its params: an lsprotocol type, or ``Any`` for
    WhyLens's raw wire dicts and command arguments (never ``object``, which pygls would take for
    the server). The hooks below are called by the server; a feature overrides the ones it
    needs. A failing hook is logged and stops nothing else.
    """

    name: ClassVar[str]  # what ``whylens serve --exclude NAME`` leaves out

    def __init__(self, server: WhyLensServer) -> None:
        self.server = server

    def register(self) -> None:
        """Install this feature's handlers (``server.feature``/``server.command``)."""

    async def ready(self) -> None:
        """The workspaces are known (after ``initialized``)."""

    def folder_added(self, ws: RepoWorkspace) -> None:
        """A workspace folder was added after start-up."""

    def folder_removed(self, ws: RepoWorkspace) -> None:
        """A workspace folder left; its reader is closed right after."""

    def index_updated(self, ws: RepoWorkspace) -> None:
        """An index run finished for ``ws``: refresh what this feature shows."""

    def shutdown(self) -> None:
        """The client asked the server to shut down."""


class WhyLensServer(LanguageServer):
    """Holds everything the handlers share; handlers take it as their first parameter ``ls``."""

    def __init__(self) -> None:
        super().__init__("whylens", __version__, protocol_cls=protocol.WhyLensProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.settings = Settings()
        self.init_options: dict = {}
        self.workspaces = Workspaces()
        self.documents = Documents(self)
        self.features: dict[str, Feature] = {}  # by name, in registration order
        self.loop: asyncio.AbstractEventLoop | None = None
        self.log_handler = logs.install(self)
        self._shown: set[str] = set()
        self._error_popups: list[float] = []
        self._tasks: set[asyncio.Task[Any]] = set()

    # ---- features ---------------------------------------------------------------------------

    def add_feature(self, feature: Feature) -> None:
        """Register ``feature``'s handlers and hold it (one feature per name)."""
        if feature.name in self.features:
            raise ValueError(f"feature {feature.name!r} is already registered")
        feature.register()
        self.features[feature.name] = feature

    def feature_of(self, kind: type[F]) -> F | None:
        """The registered feature of class ``kind`` (None when it was excluded)."""
        return next((f for f in self.features.values() if isinstance(f, kind)), None)

    def index_updated(self, ws: RepoWorkspace) -> None:
        """Tell every feature that ``ws``'s index changed; one failing feature stops nothing."""
        for feature in self.features.values():
            try:
                feature.index_updated(ws)
            except Exception:  # logged with its traceback, the server carries on
                log.exception("%s: refreshing after an index update failed", feature.name)

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
        if source in (FeatureRequestError, JsonRpcException):
            return  # a request that failed is answered; a malformed message is the client's bug
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

    def send_status(self, payload: dict[str, Any]) -> None:
        self.protocol.notify(protocol.INDEX_STATUS, payload)

    # ---- tasks ------------------------------------------------------------------------------

    def run_task(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Start a background task whose failure is logged, never silent."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
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

    def add_folder(self, uri: str) -> RepoWorkspace | None:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if not path:
            self.show_once(f"folder:{uri}", f"WhyLens: {uri} is not a local folder; it is skipped")
            return None
        try:
            where = locate(Path(path))
        except GitMissingError as exc:
            self.show_once("git-missing", f"WhyLens: {exc}. WhyLens stays idle until then.")
            return None
        except WhyLensError as exc:
            self.show_once(f"folder:{uri}", f"WhyLens: {exc}. WhyLens stays idle for this folder.")
            return None
        override = self.init_options.get("indexDirectory") or self.settings.index.directory
        index_dir = index_dir_for(where, override if isinstance(override, str) else None)
        ws = self.workspaces.add(RepoWorkspace(uri, where.root, where.git_dir, index_dir))
        ws.reopen()
        log.info("%s: repository %s, index %s%s", ws.name, where.root, index_dir,
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


def _each_feature(server: WhyLensServer, hook: str, *args: Any) -> None:
    """Call ``hook`` on every feature; a coroutine becomes a logged background task; a failure
    is logged and the other features still get the call."""
    for feature in list(server.features.values()):
        name = f"{type(feature).__name__}.{hook}"
        try:
            result = getattr(feature, hook)(*args)
            if asyncio.iscoroutine(result):
                server.run_task(result, name)
        except Exception:
            log.exception("%s failed", name)


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
            ls.add_folder(uri)
        await ls.pull_settings()
        _each_feature(ls, "ready")

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: WhyLensServer,
                           params: types.DidChangeWorkspaceFoldersParams) -> None:
        for folder in params.event.removed or ():
            for ws in ls.workspaces.remove(folder.uri):
                _each_feature(ls, "folder_removed", ws)
                ws.drop_reader()
        for folder in params.event.added or ():
            added = ls.add_folder(folder.uri)
            if added is not None:
                _each_feature(ls, "folder_added", added)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: WhyLensServer, *args: Any) -> None:
        _each_feature(ls, "shutdown")

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: WhyLensServer,
                                       params: types.DidChangeConfigurationParams) -> None:
        caps = ls.client_capabilities.workspace
        if caps and caps.configuration:
            await ls.pull_settings()
        elif isinstance(params.settings, dict):
            ls.apply_settings(params.settings.get("whylens", params.settings))


def create_server(exclude: Iterable[str] = ()) -> WhyLensServer:
    """A server with every feature registered except those named in ``exclude``."""
    from whylens.lsp.features import feature_classes

    classes = feature_classes()
    server = WhyLensServer()
    _register_core(server)
    excluded = set(exclude)
    unknown = excluded - {cls.name for cls in classes}
    if unknown:
        raise ValueError(f"unknown feature(s) {', '.join(sorted(unknown))}; "
                         f"choose from {', '.join(cls.name for cls in classes)}")
    for cls in classes:
        if cls.name not in excluded:
            server.add_feature(cls(server))
    log.debug("features: %s", ", ".join(server.features))
    return server
