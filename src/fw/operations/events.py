"""The seam between what fw does outside the request itself and what observes it.

Store calls, calls to an identity provider and JWKS refreshes happen deep in code that knows
nothing of the App (protocol code, store engines). They report here, and here hands them to the
sinks an App turned on: the metrics (:mod:`fw.operations.metrics`) and the tracing
(:mod:`fw.operations.tracing`). With both off nothing is wrapped and every report is a check of
one module global: :func:`instrument_store` returns the store itself, :func:`provider_request`
a shared do-nothing context, :func:`jwks_refresh` returns at once.

This module imports neither ``prometheus_client`` nor OpenTelemetry; the sinks do, and only an
App that turns them on builds one. It imports nothing of fw either, so protocol code may report
here without learning about the App.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Mapping
from types import TracebackType
from typing import Any, Protocol, TypeVar
from urllib.parse import urlsplit

__all__ = [
    "MetricsSink",
    "ProviderCall",
    "SpanHandle",
    "TracingSink",
    "activate",
    "active",
    "bearer_verification",
    "deactivate",
    "instrument_store",
    "jwks_refresh",
    "provider_call",
    "provider_name",
    "provider_request",
    "reset",
    "session_read",
    "span",
]


class SpanHandle(Protocol):
    """One child span a tracing sink started."""

    def headers(self) -> Mapping[str, str]:
        """The propagation headers (``traceparent``) naming this span, for an outgoing request."""
        ...

    def end(self, error: BaseException | None, attributes: Mapping[str, str | int]) -> None: ...


class TracingSink(Protocol):
    def child(self, name: str, attributes: Mapping[str, str | int]) -> SpanHandle:
        """A span under the current one, not made current (a leaf: a store or provider call)."""
        ...

    def step(self, name: str) -> Any:
        """A context manager: a span under the current one, current while the block runs."""
        ...


class MetricsSink(Protocol):
    def store_observed(self, backend: str, operation: str, seconds: float) -> None: ...

    def provider_observed(self, provider: str, endpoint: str, outcome: str) -> None: ...

    def jwks_observed(self, outcome: str) -> None: ...


_metrics: MetricsSink | None = None
_tracing: TracingSink | None = None


def activate(*, metrics: MetricsSink | None = None, tracing: TracingSink | None = None) -> None:
    """Send the reports to these sinks from now on (the App that turned them on, at its start).

    Call it before the stores open: a store opened while every sink is off is never wrapped.
    """
    global _metrics, _tracing
    if metrics is not None:
        _metrics = metrics
    if tracing is not None:
        _tracing = tracing


def deactivate(*sinks: object) -> None:
    """Stop reporting to ``sinks`` (an App's, at its shutdown); another App's stay."""
    global _metrics, _tracing
    for sink in sinks:
        if sink is _metrics:
            _metrics = None
        if sink is _tracing:
            _tracing = None


def reset() -> None:
    """Stop reporting to any sink (tests, after an App that never shut down: a refused startup)."""
    global _metrics, _tracing
    _metrics = _tracing = None


def active() -> bool:
    """Whether any sink listens (metrics or tracing is on in this process)."""
    return _metrics is not None or _tracing is not None


# ---------------------------------------------------------------------------------------------
# Stores

#: The record stores an :class:`~fw.auth.stores.interfaces.AuthStore` holds as attributes.
_PARTS = frozenset({"accounts", "allowlist", "revocations", "ceremonies", "passkeys", "bootstrap"})

S = TypeVar("S")


def instrument_store(store: S, backend: str) -> S:
    """``store`` itself while metrics and tracing are off, else a stand-in timing every async
    method: ``fw_store_operation_duration_seconds{backend, operation}`` and a span per call.

    ``operation`` is the method's name, prefixed by the record store holding it
    (``sessions.load``, ``revocations.lookup``, ``accounts.resolve``). A session store (one with
    ``load`` and no ``accounts``) is prefixed ``sessions.``, and so are the sessions an auth store
    hands out with ``sessions()``.
    """
    if _metrics is None and _tracing is None:
        return store
    prefix = "" if hasattr(store, "accounts") or not hasattr(store, "load") else "sessions."
    return _Instrumented(store, backend, prefix)  # type: ignore[return-value]


class _Instrumented:
    """Forwards every attribute to the store; async methods come back timed (and remembered)."""

    def __init__(self, target: object, backend: str, prefix: str) -> None:
        object.__setattr__(self, "_fw_target", target)
        object.__setattr__(self, "_fw_backend", backend)
        object.__setattr__(self, "_fw_prefix", prefix)

    def __getattr__(self, name: str) -> Any:
        target = object.__getattribute__(self, "_fw_target")
        value = getattr(target, name)
        backend: str = object.__getattribute__(self, "_fw_backend")
        prefix: str = object.__getattribute__(self, "_fw_prefix")
        if name.startswith("_"):
            return value
        if name in _PARTS and not prefix:
            wrapped: Any = _Instrumented(value, backend, f"{name}.")
        elif name == "sessions" and not prefix and callable(value):
            wrapped = _sessions_opener(value, backend)
        elif inspect.iscoroutinefunction(value):
            wrapped = _timed(value, backend, prefix + name)
        else:
            return value
        object.__setattr__(self, name, wrapped)
        return wrapped

    def __setattr__(self, name: str, value: object) -> None:
        setattr(object.__getattribute__(self, "_fw_target"), name, value)
        object.__getattribute__(self, "__dict__").pop(name, None)  # wrapped again on next use

    def __repr__(self) -> str:
        return f"instrumented({object.__getattribute__(self, '_fw_target')!r})"


def _sessions_opener(opener: Callable[[], object], backend: str) -> Callable[[], object]:
    def sessions() -> object:
        return _Instrumented(opener(), backend, "sessions.")

    return sessions


def _timed(method: Callable[..., Awaitable[Any]], backend: str, operation: str) -> Callable[..., Any]:
    async def timed(*args: Any, **kwargs: Any) -> Any:
        metrics, tracing = _metrics, _tracing
        span = (
            tracing.child(f"store {operation}", {"db.system.name": backend, "db.operation.name": operation})
            if tracing is not None
            else None
        )
        error: BaseException | None = None
        started = time.perf_counter()
        try:
            return await method(*args, **kwargs)
        except BaseException as raised:
            error = raised
            raise
        finally:
            if metrics is not None:
                metrics.store_observed(backend, operation, time.perf_counter() - started)
            if span is not None:
                span.end(error, _NO_ATTRIBUTES)

    timed.__name__ = getattr(method, "__name__", operation)
    timed.__qualname__ = getattr(method, "__qualname__", operation)
    timed.__doc__ = getattr(method, "__doc__", None)
    return timed


_NO_ATTRIBUTES: Mapping[str, str | int] = {}


# ---------------------------------------------------------------------------------------------
# Providers


class ProviderCall:
    """One call to a provider in progress: the headers to send with it and what it came to.

    ``headers`` carries ``traceparent`` (the call's span) while tracing is on, else nothing.
    Call :meth:`answered` with the HTTP status once the provider answered; a call that raised
    before that counts as ``unreachable``, one that raised after as ``error``.
    """

    __slots__ = ("_metrics", "_span", "endpoint", "headers", "provider", "status")

    def __init__(
        self,
        provider: str,
        endpoint: str,
        metrics: MetricsSink | None,
        span: SpanHandle | None,
    ) -> None:
        self.provider = provider
        self.endpoint = endpoint
        self.status = 0
        self._metrics = metrics
        self._span = span
        self.headers: Mapping[str, str] = span.headers() if span is not None else _NO_HEADERS

    def answered(self, status: int) -> None:
        self.status = status

    async def __aenter__(self) -> ProviderCall:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if not self.status:
            outcome = "unreachable" if error is not None else "ok"
        elif error is not None or self.status >= 400:
            outcome = "error"
        else:
            outcome = "ok"
        if self._metrics is not None:
            self._metrics.provider_observed(self.provider, self.endpoint, outcome)
        if self._span is not None:
            attributes: dict[str, str | int] = {"fw.provider.outcome": outcome}
            if self.status:
                attributes["http.response.status_code"] = self.status
            self._span.end(error, attributes)


class _Unobserved(ProviderCall):
    """The provider call nobody watches: one shared instance, nothing recorded."""

    __slots__ = ()

    def answered(self, status: int) -> None:
        return None

    # The signature of ProviderCall.__aexit__ again, as an override must spell it out.
    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        return None


_NO_HEADERS: Mapping[str, str] = {}
_UNOBSERVED = _Unobserved("", "", None, None)


def provider_request(provider: str, endpoint: str, *, method: str = "GET") -> ProviderCall:
    """``async with provider_request("idp.example", "token", method="POST") as call:`` around
    one HTTP call to a provider: send ``call.headers`` along, report ``call.answered(status)``.

    Counts ``fw_provider_requests_total{provider, endpoint, outcome}`` (``ok``, ``error``: the
    provider answered 4xx/5xx or an answer fw refused, ``unreachable``: no answer) and traces a
    client span whose ``traceparent`` the provider receives. While both are off, the shared
    do-nothing call.
    """
    metrics, tracing = _metrics, _tracing
    if metrics is None and tracing is None:
        return _UNOBSERVED
    span = None
    if tracing is not None:
        span = tracing.child(
            f"{method} {endpoint}",
            {
                "http.request.method": method,
                "server.address": provider,
                "fw.provider.endpoint": endpoint,
            },
        )
    return ProviderCall(provider, endpoint, metrics, span)


def provider_call(url: str, endpoint: str, method: str = "GET") -> ProviderCall:
    """:func:`provider_request` for a call to ``url``, its provider named by :func:`provider_name`
    (worked out only while metrics or tracing is on)."""
    if _metrics is None and _tracing is None:
        return _UNOBSERVED
    return provider_request(provider_name(url), endpoint, method=method)


def provider_name(url: str) -> str:
    """The ``provider`` label of a call to ``url``: its host name (no port, path or credentials)."""
    try:
        return urlsplit(url).hostname or "unknown"
    except ValueError:
        return "unknown"


def jwks_refresh(outcome: str) -> None:
    """Count one fetch of a JSON Web Key Set: ``fw_jwks_refresh_total{outcome}`` (``ok``, ``error``)."""
    metrics = _metrics
    if metrics is not None:
        metrics.jwks_observed(outcome)


# ---------------------------------------------------------------------------------------------
# Steps of a request worth their own span


class _NoStep:
    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NO_STEP = _NoStep()


def span(name: str) -> Any:
    """``with events.span("...")``: a span under the request's, current while the block runs
    (so the store calls inside nest under it); a shared do-nothing context while tracing is off."""
    tracing = _tracing
    return _NO_STEP if tracing is None else tracing.step(name)


#: The span names of the two steps every authenticated request may take.
BEARER_VERIFICATION = "fw.auth verify bearer token"
SESSION_READ = "fw.auth read session"


def bearer_verification() -> Any:
    """``with events.bearer_verification():`` around verifying a presented bearer token."""
    tracing = _tracing
    return _NO_STEP if tracing is None else tracing.step(BEARER_VERIFICATION)


def session_read() -> Any:
    """``with events.session_read():`` around reading the browser session a cookie names."""
    tracing = _tracing
    return _NO_STEP if tracing is None else tracing.step(SESSION_READ)
