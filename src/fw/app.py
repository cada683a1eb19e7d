"""The App: routes in ``"METHOD /path"`` form, pillars plugged in at start, served by uvicorn.

The Starlette application behind an App is built lazily, on the first ASGI event, because the
pillars it composes (auth above all) are chosen by configuration, and configuration is parsed
after the module that creates the App has been imported.
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

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

import fw.configuration as _config
from fw.binding.docs_route import DocsMode, check_docs, docs_in_effect, docs_mode
from fw.binding.limits import DEFAULT_LIMITS, guarded_receive, refuse_too_large
from fw.configuration.effective import register_effective
from fw.dispatch import StaticFirstRouter, handler_app
from fw.errors import ConfigError, StartupError
from fw.extension import Extension, build_extensions, openapi_security
from fw.problem_pages import for_people
from fw.problems import Problem, problem_from
from fw.routing import Pattern, parse_pattern
from fw.server_checks import check_server
from fw.settings import ServerSettings
from fw.stack import build_stack
from fw.userinfo import scrub

logger = logging.getLogger("fw")
# The App decides an unset server.docs by APP_ENV; the startup summary shows that decision.
register_effective("server.docs", docs_in_effect)

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
        self._asgi: ASGIApp | None = None
        #: The built app's middleware stack, called directly for HTTP (see :mod:`fw.stack`).
        self._stack: ASGIApp | None = None
        self._limits = DEFAULT_LIMITS

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
        """Add any Starlette middleware; the first added is the outermost."""
        self._refuse_after_build("add middleware")
        self._middleware.append(Middleware(middleware_class, **options))

    def on_startup(self, hook: StartupHook) -> StartupHook:
        self._on_startup.append(hook)
        return hook

    def on_shutdown(self, hook: StartupHook) -> StartupHook:
        self._on_shutdown.append(hook)
        return hook

    def _refuse_after_build(self, what: str) -> None:
        if self._asgi is not None:
            raise RuntimeError(f"cannot {what} after the App has started")

    # Composition.
    @property
    def extensions(self) -> list[Extension]:
        """The pillars configuration turned on; decided once, after configuration is parsed.

        Each pillar registered its factory with :func:`fw.extension.register_extension`.
        """
        if self._extensions is None:
            _config.ensure_parsed()
            self._extensions = build_extensions(self)
        return self._extensions

    def build(self) -> ASGIApp:
        """The Starlette application; built once."""
        if self._asgi is None:
            from fw.binding.docs_route import docs_routes
            from fw.binding.info import api_info
            from fw.binding.limits import BodyLimits
            from fw.binding.openapi_route import openapi_routes

            routes: list[BaseRoute] = []
            for ext in self.extensions:
                routes.extend(ext.routes())
            for entry in self.entries:
                route = Route(
                    entry.pattern.starlette_path,
                    entry.handler,
                    methods=_ALL_METHODS if entry.pattern.method is None else [entry.pattern.method],
                    name=entry.name,
                )
                kept: object = route.app
                if kept is not entry.handler:  # a request handler, not an ASGI app Starlette kept as is
                    route.app = handler_app(entry.handler)
                routes.append(route)
            routes.extend(openapi_routes(self, openapi_security(self)))
            server = _config.config(ServerSettings)
            title = api_info(entry.handler for entry in self.entries)["title"]
            routes.extend(docs_routes(self._docs_mode(server), title))
            routes.extend(self._mounts)
            # Applied by __call__ ahead of the middleware, where a BodyLimitMiddleware would sit.
            self._limits = BodyLimits.of(
                server.max_request_body, server.cbor_max_body, server.body_timeout.total_seconds()
            )
            middleware = list(self._middleware)
            for ext in self.extensions:
                middleware.extend(ext.middleware())
            core = Starlette(
                debug=self.debug,
                routes=routes,
                middleware=middleware,
                exception_handlers={
                    Problem: _render_error,
                    HTTPException: _render_http_exception,
                    Exception: _render_error,
                },
            )
            core.router = StaticFirstRouter(routes)
            core.middleware_stack = self._stack = build_stack(core)
            self._asgi = core
        return self._asgi

    @staticmethod
    def _docs_mode(server: ServerSettings) -> DocsMode:
        return docs_mode(server.docs, _config.source_of("server.docs"), _config.current_app_env())

    async def startup(self) -> None:
        """Run every startup check and hook; raises :class:`fw.StartupError` to refuse."""
        server = _config.config(ServerSettings)
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

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        stack = self._stack
        if stack is None or scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self._lifespan(receive, send)
                return
            core = self.build()
            if scope["type"] != "http":
                await core(scope, receive, send)
                return
            stack = self._stack
            assert stack is not None
        send = for_people(scope, send)  # fw's problems as pages when the request prefers HTML
        # server.max_request_body holds for every HTTP request, whether or not a handler binds it.
        guarded = guarded_receive(scope, receive, self._limits)
        if guarded is None:
            await refuse_too_large(self._limits, send)
            return
        scope["app"] = self._asgi  # what Starlette.__call__ sets before calling the same stack
        await stack(scope, guarded, send)

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
            _config.print_summary_once()
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


async def _render_error(request: Request, exc: Exception) -> Response:
    problem = problem_from(exc)
    if problem.status >= 500 and not isinstance(exc, Problem):
        logger.exception("unhandled error in %s %s", request.method, request.url.path, exc_info=exc)
    return problem.response()


async def _render_http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return Problem(status=exc.status_code, code=code, headers=exc.headers).response()


def run(app: App, argv: Sequence[str] | None = None) -> None:
    """Parse configuration, refuse to start on any startup error, print the summary, serve.

    A configuration or startup error prints one line to stderr and exits with status 1 before
    anything listens; ``--generate-config toml|env`` prints a template and exits 0.
    """
    import uvicorn

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        _config.parse_config(args)
        template = _config.requested_template()
        if template is not None:
            sys.stdout.write(template)
            raise SystemExit(0)
        asyncio.run(_preflight(app))
    except (ConfigError, StartupError) as error:
        sys.stderr.write(f"fw: {error}\n")
        raise SystemExit(1) from None
    server = _config.config(ServerSettings)
    _config.print_summary_once()
    uvicorn.run(app, host=server.host, port=server.port, log_level="info", lifespan="on")


async def _preflight(app: App) -> None:
    """Startup checks in their own event loop, so a refusal happens before uvicorn binds."""
    await app.startup()
    await app.shutdown()
