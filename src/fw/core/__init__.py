"""fw's own request core, on public APIs only: routes and the router, the one middleware
protocol, the error boundary, and the request path that joins them (see docs/architecture.md).

Public names for extensions: :class:`Route` and :class:`Mount` (what an extension serves),
:class:`Middleware`, :data:`Decision` and :data:`Amend` (what it decides), and :class:`Pipeline`
(fw's middleware in front of any other ASGI application).
"""

from fw.core.middleware import Amend, Decision, Middleware, Pipeline
from fw.core.routes import BaseRoute, Mount, Route

__all__ = ["Amend", "BaseRoute", "Decision", "Middleware", "Mount", "Pipeline", "Route"]
