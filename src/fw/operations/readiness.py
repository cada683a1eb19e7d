"""``/healthz`` and ``/readyz``: the health extension composed into every App (DESIGN 10.4).

Liveness answers ``200 {"status": "ok"}`` whenever the process serves a request. Readiness asks
every store the running App opened, and its bearer keys or provider discovery, a cheap question
(the probes its extensions offer, :mod:`fw.operations.probes`), all at once, each bounded by
:data:`PROBE_SECONDS`, so the answer comes within two seconds however many stores hang:
``200 {"status": "ok", "checks": {...}}`` when each answered, else ``503`` with ``Retry-After``
and the outcome of every check by name (``"redis": "timeout"``), never a DSN, host or secret.
A probe's failure is its outcome, never an error of the request. Requests arriving while the
stores are being asked share that one round, so a flood of probes costs the stores one
question each at a time.

Both endpoints set ``scope["fw.untracked"]``: metrics, tracing and the access log leave them
out. They are not in the OpenAPI document (it lists the application's routes only).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from fw.core.middleware import Middleware
from fw.core.routes import BaseRoute, Route
from fw.errors import StartupError
from fw.operations.health import health_settings
from fw.settings import HealthSettings

logger = logging.getLogger("fw.operations.health")

#: Seconds each probe may take; they run at once, so a readiness answer takes about this long at most.
PROBE_SECONDS = 1.5
#: ``Retry-After`` of a 503: about how often an orchestrator should ask again.
RETRY_AFTER = "5"
UNTRACKED = "fw.untracked"
_HEADERS = {"Cache-Control": "no-store"}
_LIVE = b'{"status":"ok"}'
_encode = msgspec.json.Encoder().encode


def _json(body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(body, status, headers={**_HEADERS, **(headers or {})}, media_type="application/json")


class Readiness:
    """The readiness answer of one App, from the probes of what its pillars opened."""

    def __init__(self, app: object, *, probe_seconds: float = PROBE_SECONDS) -> None:
        self.app = app
        self.probe_seconds = probe_seconds
        #: Set once the App's startup ran (every extension started), cleared at shutdown.
        self.started = False
        self._round: tuple[asyncio.AbstractEventLoop, asyncio.Task[dict[str, str]]] | None = None
        self._failing: frozenset[str] = frozenset()

    async def checks(self) -> dict[str, str]:
        """Each check's outcome (``ok`` when it passed); a round in flight is shared."""
        loop = asyncio.get_running_loop()
        current = self._round
        if current is None or current[0] is not loop or current[1].done():
            current = (loop, loop.create_task(self._ask()))
            self._round = current
        # Shielded: a client that hangs up must not cancel the round others are waiting on.
        return await asyncio.shield(current[1])

    async def _ask(self) -> dict[str, str]:
        from fw.operations.probes import NOT_STARTED, app_probes

        if not self.started:
            outcomes = {"startup": NOT_STARTED}
        else:
            try:
                probes = app_probes(self.app)
            except Exception as error:  # a pillar in a state no probe expected: not ready, say so
                logger.warning("readiness: the checks could not be listed (%s)", type(error).__name__)
                probes = []
                outcomes = {"checks": "unavailable"}
            else:
                found = await asyncio.gather(*(self._outcome(probe) for probe in probes))
                outcomes = dict(zip((probe.name for probe in probes), found, strict=True))
        self._note(outcomes)
        return outcomes

    async def _outcome(self, probe: Any) -> str:
        from fw.operations.probes import OK, TIMEOUT, UNAVAILABLE, NotReady

        try:
            async with asyncio.timeout(self.probe_seconds):
                await probe.check()
        except TimeoutError:
            return TIMEOUT
        except NotReady as failure:
            return failure.outcome
        except Exception as error:
            # Its type only: a driver's message may quote the DSN or the host.
            logger.debug("readiness check %s failed: %s", probe.name, type(error).__name__)
            return UNAVAILABLE
        return OK

    def _note(self, outcomes: dict[str, str]) -> None:
        """Log each change of the failing checks once, not every probe."""
        failing = frozenset(name for name, outcome in outcomes.items() if outcome != "ok")
        if failing != self._failing:
            if failing:
                named = ", ".join(f"{name} {outcomes[name]}" for name in sorted(failing))
                logger.warning("not ready: %s", named)
            else:
                logger.info("ready again: every check passed")
            self._failing = failing

    async def answer(self) -> Response:
        outcomes = await self.checks()
        if all(outcome == "ok" for outcome in outcomes.values()):
            return _json(_encode({"status": "ok", "checks": outcomes}))
        body = _encode({"status": "unavailable", "checks": outcomes})
        return _json(body, 503, {"Retry-After": RETRY_AFTER})


class Health:
    """The extension: the two routes, and the startup that checks their paths."""

    def __init__(self, app: object, settings: HealthSettings) -> None:
        self.settings = settings
        self.readiness = Readiness(app)

    def routes(self) -> Sequence[BaseRoute]:
        return [
            Route(self.settings.live_path, self.live, methods=["GET"], name="fw_health_live"),
            Route(self.settings.ready_path, self.ready, methods=["GET"], name="fw_health_ready"),
        ]

    def middleware(self) -> Sequence[Middleware]:
        return ()

    async def startup(self) -> None:
        check_paths(self.settings)
        self.readiness.started = True

    async def shutdown(self) -> None:
        self.readiness.started = False

    async def live(self, request: Request) -> Response:
        request.scope[UNTRACKED] = True
        return _json(_LIVE)

    async def ready(self, request: Request) -> Response:
        request.scope[UNTRACKED] = True
        return await self.readiness.answer()


def check_paths(settings: HealthSettings) -> None:
    """Refuse a path that is not a plain absolute path, or the same path for both endpoints."""
    for key, value in (("live_path", settings.live_path), ("ready_path", settings.ready_path)):
        if not value.startswith("/") or "{" in value or "}" in value or "?" in value or "//" in value:
            raise StartupError(f"server.health.{key}", value, "use a plain path such as /healthz")
    if settings.live_path == settings.ready_path:
        raise StartupError(
            "server.health.ready_path", settings.ready_path, "use a path other than server.health.live_path"
        )


def extension(app: object) -> Health | None:
    """The App's health factory (:func:`fw.extension.register_extension`): ``None`` while
    ``server.health.enabled`` is off."""
    settings = health_settings()
    if not settings.enabled:
        return None
    return Health(app, settings)
