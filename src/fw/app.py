"""The App: routes in ``"METHOD /path"`` form, pillars plugged in at start, served by uvicorn.

The request path behind an App (:mod:`fw.core`: error boundary, middleware, router) is built
lazily, on the first ASGI event, because the pillars it composes (auth above all) are chosen by
configuration, and configuration is parsed after the module that creates the App has been
imported.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.datastructures import URLPath
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

import fw.configuration as _config
import fw.pillars as _pillars
from fw.binding.docs_route import DocsMode, check_docs, docs_mode
from fw.binding.limits import (
    BODYLESS_METHODS,
    DEFAULT_LIMITS,
    FRAMED_VERSIONS,
    guarded_receive,
    refuse_too_large,
)
from fw.binding.limits import SCOPE_KEY as LIMITS_KEY
from fw.configuration.owner import Owned, release
from fw.core.boundary import ErrorBoundary
from fw.core.router import Router
from fw.core.routes import BaseRoute, Mount, Route
from fw.core.serve import RequestPath
from fw.errors import ConfigError, StartupError
from fw.extension import Extension, build_extensions, openapi_security
from fw.operations.wiring import observer_of
from fw.problem_pages import REQUEST_ID_KEY, for_people
from fw.routing import Pattern, parse_pattern
from fw.server_checks import check_server
from fw.settings import ServerSettings
from fw.userinfo import scrub

logger = logging.getLogger("fw")

Handler = Callable[[Request], Awaitable[Response]] | Callable[[Request], Response]
StartupHook = Callable[[], Awaitable[None]]
#: A decorated handler keeps its own signature, so calling it directly still type-checks.
HandlerT = TypeVar("HandlerT", bound=Handler)
_ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


@dataclass(frozen=True, slots=True)
class RouteEntry:
    """One ``@app.route`` registration, kept for OpenAPI and for tools."""

    pattern: Pattern
    handler: Handler
    name: str | None


class App:
    """An ASGI application. Create it at module level, decorate handlers, serve with ``fw.run``."""

    def __init__(self, *, middleware: Sequence[Middleware] = (), debug: bool = False) -> None:
        self.debug = debug
        self.entries: list[RouteEntry] = []
        self._mounts: list[BaseRoute] = []
        self._middleware = list(middleware)
        self._on_startup: list[StartupHook] = []
        self._on_shutdown: list[StartupHook] = []
        self._extensions: list[Extension] | None = None
        #: The request path (error boundary, middleware, router), built once at the first event.
        self._stack: ASGIApp | None = None
        self._router: Router | None = None
        self._pages_at_entry = False
        #: The request observer (request ID, access log, metrics, tracing), when one is on.
        self._observer: ASGIApp | None = None
        self._limits = DEFAULT_LIMITS
        #: Its configuration (kept from its first start) and its pillars' state: see fw.configuration.owner.
        self.owned = Owned(self)

    # Building the route table.
    def route(self, pattern: str, *, name: str | None = None) -> Callable[[HandlerT], HandlerT]:
        """Register a handler for ``"METHOD /path/{id}"`` (no method: every method)."""

        def decorate(handler: HandlerT) -> HandlerT:
            self.add_route(pattern, handler, name=name)
            return handler

        return decorate

    def add_route(self, pattern: str, handler: Handler, *, name: str | None = None) -> None:
        self._refuse_after_build("add a route")
        self.entries.append(RouteEntry(parse_pattern(pattern), handler, name))

    def mount(self, path: str, app: ASGIApp, *, name: str | None = None) -> None:
        """Mount any ASGI application (static files, another framework) under ``path``."""
        self._refuse_after_build("mount an application")
        self._mounts.append(Mount(path, app=app, name=name))

    def add_middleware(self, middleware_class: Any, **options: Any) -> None:
        """Add any ASGI middleware class (``cls(app, **options)``); the first added is the outermost.

        It runs inside the App's error boundary and outside the pillars' middleware.
        """
        self._refuse_after_build("add middleware")
        self._middleware.append(Middleware(middleware_class, **options))

    def on_startup(self, hook: StartupHook) -> StartupHook:
        self._on_startup.append(hook)
        return hook

    def on_shutdown(self, hook: StartupHook) -> StartupHook:
        self._on_shutdown.append(hook)
        return hook

    def _refuse_after_build(self, what: str) -> None:
        if self._stack is not None:
            raise RuntimeError(f"cannot {what} after the App has started")

    # Composition.
    @property
    def extensions(self) -> list[Extension]:
        """The pillars configuration turned on; decided once, after configuration is parsed.

        Each pillar registered its factory with :func:`fw.extension.register_extension`.
        """
        if self._extensions is None:
            _pillars.install()  # fw's own pillars join on first use, not on import
            _config.bind(self)
            self._extensions = build_extensions(self)
        return self._extensions

    def build(self) -> ASGIApp:
        """The request path: error boundary, middleware (the application's, then the pillars'), router."""
        if self._stack is None:
            from fw.binding.docs_route import docs_routes
            from fw.binding.info import api_info
            from fw.binding.limits import BodyLimits
            from fw.binding.openapi_route import openapi_routes

            routes: list[BaseRoute] = []
            for ext in self.extensions:
                routes.extend(ext.routes())
            for entry in self.entries:
                methods = _ALL_METHODS if entry.pattern.method is None else [entry.pattern.method]
                routes.append(
                    Route(
                        entry.pattern.starlette_path,
                        entry.handler,
                        methods=methods,
                        name=entry.name,
                        template=entry.pattern.path,
                    )
                )
            routes.extend(openapi_routes(self, openapi_security(self)))
            server = _config.bound(self).config(ServerSettings)
            title = api_info(entry.handler for entry in self.entries)["title"]
            routes.extend(docs_routes(self._docs_mode(server), title))
            routes.extend(self._mounts)
            # Applied by __call__ ahead of the middleware, where a BodyLimitMiddleware would sit.
            self._limits = BodyLimits.of(
                server.max_request_body, server.cbor_max_body, server.body_timeout.total_seconds()
            )
            self._router = Router(routes)
            pillars = [middleware for ext in self.extensions for middleware in ext.middleware()]
            # With ASGI middleware of the application's own, problems become pages at the entry,
            # so that theirs do too; otherwise the request path does it for its answers only.
            self._pages_at_entry = bool(self._middleware)
            stack: ASGIApp = RequestPath(
                self._router, pillars, debug=self.debug, pages=not self._pages_at_entry
            )
            if self._middleware:  # the application's own ASGI middleware, inside a boundary of their own
                for cls, args, kwargs in reversed(self._middleware):
                    stack = cls(stack, *args, **kwargs)
                stack = ErrorBoundary(stack, debug=self.debug)
            self._observer = observer_of(self, self.extensions)
            self._stack = stack
        return self._stack

    @property
    def routes(self) -> list[BaseRoute]:
        """Every route the App serves, in the order the router tries them (built on first use)."""
        self.build()
        assert self._router is not None
        return list(self._router.routes)

    def url_path_for(self, name: str, /, **params: Any) -> URLPath:
        """The path of the route called ``name`` (what ``request.url_for`` asks the App)."""
        self.build()
        assert self._router is not None
        return self._router.url_path_for(name, **params)

    def _docs_mode(self, server: ServerSettings) -> DocsMode:
        configuration = _config.bound(self)
        return docs_mode(server.docs, configuration.source_of("server.docs"), configuration.app_env)

    async def startup(self) -> None:
        """Run every startup check and hook; raises :class:`fw.StartupError` to refuse."""
        _pillars.install()
        server = _config.bind(self).config(ServerSettings)
        await check_server(server)
        check_docs(self._docs_mode(server))
        for ext in self.extensions:
            await ext.startup()
        for hook in self._on_startup:
            await hook()

    async def shutdown(self) -> None:
        for hook in reversed(self._on_shutdown):
            await hook()
        for ext in reversed(self.extensions):
            await ext.shutdown()
        release(self)  # a stopped App no longer answers fw.config reads made without a request

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        stack = self._stack
        kind = scope["type"]
        if stack is None:
            if kind == "lifespan":
                await self._lifespan(receive, send)
                return
            stack = self.build()
        scope["app"] = self  # what request.url_for and fw's helpers find the App by
        if kind != "http":
            if kind == "lifespan":
                await self._lifespan(receive, send)
                return
            await stack(scope, receive, send)
            return
        # The observer wraps the App itself and calls it again with the request ID set, rather
        # than a method holding the rest of this one: an App without metrics, tracing or access
        # log (the usual one) then pays one attribute test here, not a coroutine frame more.
        observer = self._observer
        if observer is not None and REQUEST_ID_KEY not in scope:
            await observer(scope, receive, send)
            return
        if self._pages_at_entry:  # middleware of the application's own may answer problems too
            send = for_people(scope, send)
        # server.max_request_body holds for every HTTP request, whether or not a handler binds it.
        # A dict of the headers is built in C: cheaper than a loop over them for two lookups.
        limits = self._limits
        headers = dict(scope["headers"])
        if (
            b"content-length" in headers
            or b"transfer-encoding" in headers
            or scope["method"] not in BODYLESS_METHODS
            or scope.get("http_version") not in FRAMED_VERSIONS
        ):
            guarded = guarded_receive(scope, receive, limits)
            if guarded is None:
                await refuse_too_large(limits, send if self._pages_at_entry else for_people(scope, send))
                return
            receive = guarded
        else:
            scope[LIMITS_KEY] = limits  # nothing can arrive: read by the body decoders all the same
        await stack(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        """The ASGI lifespan protocol, answered by the App itself.

        A refusal to start reaches the server as one line (``fw: key = value: fix``) in the
        ``startup.failed`` message, so uvicorn or any other server prints that line and exits
        instead of a traceback (uvicorn logs no traceback once ``startup.failed`` was sent);
        anything unexpected still carries its traceback.
        """
        await receive()  # lifespan.startup
        try:
            self.build()
            await self.startup()
            _config.bound(self).print_summary_once()
            # What startup built lives as long as the App: moved out of the collector's sight, a
            # full collection while serving scans only what requests made, and no longer stalls
            # every request in flight for as long (the tail of a loaded server's latency).
            gc.freeze()
        except (ConfigError, StartupError) as error:
            await send({"type": "lifespan.startup.failed", "message": f"fw: {error}"})
            raise  # servers that already read the message stay quiet; test clients see the error
        except BaseException:
            # The server logs this message: a URL a driver quotes in it keeps its password to itself.
            await send({"type": "lifespan.startup.failed", "message": scrub(traceback.format_exc())})
            raise
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown
        gc.unfreeze()  # what the App leaves behind after shutdown can be collected again
        try:
            await self.shutdown()
        except BaseException:
            await send({"type": "lifespan.shutdown.failed", "message": traceback.format_exc()})
            raise
        await send({"type": "lifespan.shutdown.complete"})


def run(app: App, argv: Sequence[str] | None = None) -> None:
    """Parse configuration, refuse to start on any startup error, print the summary, serve.

    A configuration or startup error prints one line to stderr and exits with status 1 before
    anything listens; ``--generate-config toml|env`` prints a template and exits 0.
    """
    import uvicorn

    from fw.operations.logsetup import configure_logging

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        _pillars.install()
        _config.parse_config(args)
        template = _config.requested_template()
        if template is not None:
            sys.stdout.write(template)
            raise SystemExit(0)
        logging_options = configure_logging()
        asyncio.run(_preflight(app))
    except (ConfigError, StartupError) as error:
        sys.stderr.write(f"fw: {error}\n")
        raise SystemExit(1) from None
    server = _config.config(ServerSettings)
    _config.print_summary_once()
    uvicorn.run(app, host=server.host, port=server.port, log_level="info", lifespan="on", **logging_options)


async def _preflight(app: App) -> None:
    """Startup checks in their own event loop, so a refusal happens before uvicorn binds."""
    await app.startup()
    await app.shutdown()
