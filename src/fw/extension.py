"""How a pillar plugs into every App: an :class:`Extension`, built at start by a registered factory.

The App knows no pillar by name. A pillar registers a factory (the facade, :mod:`fw`, wires
fw's own: authentication); when an App is first built, after configuration is parsed, it calls
every factory once and composes what they return. So the App imports no pillar, and a pillar
needs nothing from the App but this protocol.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from fw.core.middleware import Middleware
from fw.core.routes import BaseRoute


class Extension(Protocol):
    """A pillar plugged into the App when it starts (authentication is one).

    ``routes`` are served ahead of the application's own; ``middleware`` decides every request
    before its route is served, in order (:class:`fw.core.middleware.Middleware`).
    ``startup`` raises :class:`fw.StartupError` to refuse to start; it runs before the first
    request, both under ``fw.run`` and under any ASGI server's lifespan.
    """

    def routes(self) -> Sequence[BaseRoute]: ...

    def middleware(self) -> Sequence[Middleware]: ...

    async def startup(self) -> None: ...

    async def shutdown(self) -> None: ...


@runtime_checkable
class Probed(Protocol):
    """An extension that depends on a service it does not contact at startup (an identity
    provider it reaches at the first sign-in, say), and can contact it on request.

    ``fw doctor`` calls ``probe`` after a successful ``startup``, so a deployment check meets
    what the first request would; ``probe`` raises :class:`fw.StartupError` naming the key.
    """

    async def probe(self) -> None: ...


#: Outcomes a readiness check reports by raising :class:`NotReady` (any other failure is
#: ``unavailable``, one that runs out of time ``timeout``; a passing check is ``ok``).
NOT_LOADED = "not_loaded"
NOT_STARTED = "not_started"


class NotReady(Exception):
    """A readiness check's failure with its outcome (:data:`NOT_LOADED`...), raised by a probe."""

    def __init__(self, outcome: str) -> None:
        super().__init__(outcome)
        self.outcome = outcome


@dataclass(frozen=True, slots=True)
class Probe:
    """One readiness check: ``check`` returns when ready and raises otherwise.

    ``name`` says what it asks (``postgresql``, ``redis``, ``jwks``), never where that lives.
    """

    name: str
    check: Callable[[], Awaitable[None]]
    #: The client ``check`` asks (an engine, a Redis client), if any: an App asks a client that
    #: several probes name (sessions kept in the auth store's database) once.
    asks: object = field(default=None, compare=False)


@runtime_checkable
class Ready(Protocol):
    """An extension that opened something the App's readiness (``/readyz``) must ask: a store,
    a provider's keys.

    ``readiness_probes`` is called for every readiness round once the App started; it returns
    one cheap probe for each thing the extension opened or loaded, each asking the client the
    requests use, never a connection of its own. fw's authentication modes offer their stores,
    the issuer's keys or the provider's discovery (:mod:`fw.auth.probes`).
    """

    def readiness_probes(self) -> Sequence[Probe]: ...


@dataclass(frozen=True)
class OpenApiSecurity:
    """How a pillar secures the App's operations, as the OpenAPI document declares it.

    A pillar that guards requests registers a provider with :func:`register_openapi_security`;
    the App hands what they describe to the document, which applies ``requirement`` and documents
    ``responses`` on exactly the operations whose path ``protects`` (a concrete path, wildcards
    filled in) and declares ``schemes`` under ``components.securitySchemes``.
    """

    schemes: Mapping[str, dict[str, Any]]
    #: The operation's ``security`` value: alternatives, each naming schemes of ``schemes``.
    requirement: Sequence[Mapping[str, Sequence[str]]]
    protects: Callable[[str], bool]
    #: Status code -> description, documented on every protected operation of a method
    #: (lower-case: ``get``, ``post``...); a 3xx is documented as a redirect, others as problems.
    responses: Callable[[str], Mapping[str, str]] = field(default=lambda method: {})


#: Describes a pillar's guard for one App from the parsed configuration; ``None`` while it is off.
SecurityProvider = Callable[[object], "OpenApiSecurity | None"]

_security_providers: list[SecurityProvider] = []


def register_openapi_security(provider: SecurityProvider) -> SecurityProvider:
    """Let ``provider`` describe its pillar's guard in every App's OpenAPI document (once)."""
    if provider not in _security_providers:
        _security_providers.append(provider)
    return provider


def openapi_security(app: object) -> list[OpenApiSecurity]:
    """What the registered providers describe for ``app``, in registration order."""
    return [found for provider in _security_providers if (found := provider(app)) is not None]


#: The paths a pillar serves to callers that carry no credentials, for one App (passed as an
#: opaque handle, ``None`` outside one) from the parsed configuration; empty while it serves none.
PublicPathsProvider = Callable[[object], Iterable[str]]

_public_path_providers: list[PublicPathsProvider] = []


def register_public_paths(provider: PublicPathsProvider) -> PublicPathsProvider:
    """Declare the paths ``provider`` names as public in every App (once): whatever an App's
    guards protect (``[auth.protection]``), each lets a request for exactly one of these paths
    through without credentials. fw's health endpoints and metrics scrape path are declared so:
    an orchestrator's probe or a Prometheus server carries no token or session."""
    if provider not in _public_path_providers:
        _public_path_providers.append(provider)
    return provider


def public_paths(app: object) -> tuple[str, ...]:
    """Every path the registered providers declare public for ``app``, once each, in
    registration order; a guard (an authentication mode) exempts exactly these."""
    return tuple(dict.fromkeys(path for provider in _public_path_providers for path in provider(app)))


#: Builds a pillar's extension for one App (passed as an opaque handle, so pillars can scope
#: their own state to it) from the parsed configuration; ``None`` while the pillar is off.
ExtensionFactory = Callable[[object], "Extension | None"]

_factories: list[ExtensionFactory] = []


def register_extension(factory: ExtensionFactory) -> ExtensionFactory:
    """Compose ``factory``'s extension into every App (once; registering it again is a no-op)."""
    if factory not in _factories:
        _factories.append(factory)
    return factory


def build_extensions(app: object) -> list[Extension]:
    """The extensions the registered factories build for ``app``, in registration order."""
    return [extension for factory in _factories if (extension := factory(app)) is not None]
