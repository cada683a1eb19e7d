"""How the access log, metrics and tracing reach an App: one extension, one request observer.

:func:`extension` is the factory fw registers (:func:`fw.operations.pillar.register`): for an App whose
configuration turns none of the three on it builds nothing, and the App pays nothing per
request. Otherwise it holds the hooks that are on and the extensions they come with (the
``/metrics`` route, the last spans exported at shutdown); the App then asks :func:`observer_of`
for the one :class:`~fw.operations.observer.RequestObserver` carrying those hooks. The observer
calls the App again for the request (the request ID then set), so it sits outside everything
the App does: problem pages, the body limit, the middleware.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.types import ASGIApp

from fw.core.middleware import Middleware
from fw.core.routes import BaseRoute
from fw.extension import Extension
from fw.operations.accesslog import access_log_hook
from fw.operations.health import health_paths
from fw.operations.observer import RequestHook, build_observer


class Observability:
    """The extension of the hooks that are on: their routes, startups and shutdowns."""

    def __init__(self, hooks: Sequence[RequestHook], parts: Sequence[Extension]) -> None:
        self.hooks = tuple(hooks)
        self.parts = tuple(parts)

    def routes(self) -> Sequence[BaseRoute]:
        return [route for part in self.parts for route in part.routes()]

    def middleware(self) -> Sequence[Middleware]:
        return ()

    async def startup(self) -> None:
        for part in self.parts:
            await part.startup()

    async def shutdown(self) -> None:
        for part in reversed(self.parts):
            await part.shutdown()


def extension(app: object) -> Observability | None:
    """The observability of ``app`` as its configuration asks, ``None`` while all is off."""
    from fw.operations.metrics import metrics_hook
    from fw.operations.tracing import tracing_hook

    metrics = metrics_hook()
    tracing = tracing_hook(project_name(app), untracked_paths=health_paths())
    hooks = [hook for hook in (access_log_hook(), metrics, tracing) if hook is not None]
    if not hooks:
        return None
    parts: list[Extension] = []
    if metrics is not None:
        parts.append(metrics.extension())
    if tracing is not None:
        parts.append(tracing.extension())
    return Observability(hooks, parts)


def observer_of(app: ASGIApp, extensions: Sequence[object]) -> ASGIApp | None:
    """The request observer of ``app`` for the hooks its :class:`Observability` holds, or ``None``."""
    for found in extensions:
        if isinstance(found, Observability):
            return build_observer(app, found.hooks, untracked=health_paths())
    return None


def project_name(app: object) -> str:
    """The service name tracing reports when ``service_name`` is empty: the top-level package of
    the module that declares the App's handlers (``fw-app`` for an App without any)."""
    for entry in getattr(app, "entries", ()):
        module = getattr(getattr(entry, "handler", None), "__module__", None)
        if isinstance(module, str) and module not in ("__main__", "builtins"):
            return module.partition(".")[0]
    return "fw-app"
