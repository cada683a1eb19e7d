"""How a pillar plugs into every App: an :class:`Extension`, built at start by a registered factory.

The App knows no pillar by name. A pillar registers a factory (the facade, :mod:`fw`, wires
fw's own: authentication); when an App is first built, after configuration is parsed, it calls
every factory once and composes what they return. So the App imports no pillar, and a pillar
needs nothing from the App but this protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from starlette.middleware import Middleware
from starlette.routing import BaseRoute


class Extension(Protocol):
    """A pillar plugged into the App when it starts (authentication is one).

    ``startup`` raises :class:`fw.StartupError` to refuse to start; it runs before the first
    request, both under ``fw.run`` and under any ASGI server's lifespan.
    """

    def routes(self) -> Sequence[BaseRoute]: ...

    def middleware(self) -> Sequence[Middleware]: ...

    async def startup(self) -> None: ...

    async def shutdown(self) -> None: ...


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
