"""``POST {logout_path}/presence`` takes one tick of the presence script; ``GET
{logout_path}/presence.js`` serves that script, configured for this App.

The report endpoint answers 204 to a signed-in browser's well-formed tick. It refuses a page of
another origin exactly like logout does (403), a browser without a session with 401 (the script
stops and reloads the page), a body that is not ``application/json`` with 415, one larger than
:data:`MAX_BODY` with 413 and anything but ``{"active": bool, "gap": seconds}`` with 400. A
tick is no sign of activity by itself: the session middleware resumes the session for it
without moving the idle clock, and only a report of input (:class:`Verdict.PRESENT`) does.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable
from importlib.resources import files

from starlette.requests import Request
from starlette.responses import Response

from fw.auth.assurance.presence import PRESENT_AT, PresenceRules, Report, Verdict
from fw.auth.browser.answers import unavailable
from fw.auth.sessions.manager import Sessions, SessionSummary, active_session
from fw.auth.stores.errors import StoreUnavailable
from fw.binding.body import UnsupportedMediaType, body_error, decode_json, read_limited
from fw.problems import Problem, field, validation

logger = logging.getLogger("fw.auth")

#: A tick is a few dozen bytes.
MAX_BODY = 1024
SCRIPT_NAME = "presence.js"
SCRIPT_MEDIA_TYPE = "text/javascript; charset=utf-8"
#: Where the served script receives its settings.
_CONFIG_SLOT = "__FW_PRESENCE_CONFIG__"

#: The Set-Cookie headers of a session that just ended (given its summary and the request ending it).
SessionEnded = Callable[[SessionSummary, Request], list[str]]


def presence_script(report_path: str, interval_seconds: float) -> bytes:
    """The script, reporting to ``report_path`` every ``interval_seconds``."""
    template = files("fw.auth.assurance").joinpath(SCRIPT_NAME).read_text("utf-8")
    config = json.dumps({"endpoint": report_path, "interval": max(1, round(interval_seconds * 1000))})
    return template.replace(_CONFIG_SLOT, config).encode("utf-8")


async def read_report(request: Request) -> Report:
    """The tick in the body: ``{"active": true|false, "gap": seconds >= 0}``; other members are ignored."""
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type != "application/json":
        raise UnsupportedMediaType("send the presence report as application/json")
    raw = await read_limited(request, MAX_BODY)
    if not raw:
        raise body_error('send {"active": true|false, "gap": seconds}')
    body = decode_json(raw).values
    errors = []
    active, gap = body.get("active"), body.get("gap")
    if not isinstance(active, bool):
        errors.append(field("active", "payload", "must be true or false"))
    if isinstance(gap, bool) or not isinstance(gap, int | float) or not math.isfinite(gap) or gap < 0:
        errors.append(field("gap", "payload", "must be a number of seconds, 0 or more"))
    if errors:
        raise validation(*errors)
    assert isinstance(active, bool) and isinstance(gap, int | float)
    return Report(active, float(gap))


class PresenceEndpoints:
    """The two presence routes of one browser mode."""

    def __init__(
        self,
        rules: PresenceRules,
        report_path: str,
        sessions: Callable[[], Sessions],
        cross_origin: Callable[[Request], bool],
        ended: SessionEnded,
    ) -> None:
        self.rules = rules
        self.sessions = sessions
        self.cross_origin = cross_origin
        self.ended = ended
        self._script = presence_script(report_path, rules.interval)

    async def script(self, request: Request) -> Response:
        return Response(self._script, media_type=SCRIPT_MEDIA_TYPE, headers={"cache-control": "no-cache"})

    async def report(self, request: Request) -> Response:
        try:
            response = await self._report(request)
        except Problem as problem:
            response = problem.response()
        response.headers["cache-control"] = "no-store"
        return response

    async def _report(self, request: Request) -> Response:
        if self.cross_origin(request):
            raise Problem("cross-origin presence report refused", status=403, code="cross_origin")
        session = active_session(request.scope)
        if session is None:
            raise Problem("sign-in required", status=401, code="unauthorized")
        report = await read_report(request)
        now = time.time()
        verdict = self.rules.judge(report, session.record, now)
        try:
            if verdict is Verdict.ABSENT:
                await self.sessions().end(session.value)
            elif verdict is Verdict.PRESENT:
                await self.sessions().note(session, **{PRESENT_AT: now, "last_seen": now})
        except StoreUnavailable as error:
            logger.error("session store unavailable during a presence report: %s", error)
            raise unavailable("session store") from None
        if verdict is Verdict.ABSENT:
            logger.info("session of account %s ended: away for %.0fs", session.summary.account_id, report.gap)
            response = Problem(
                "the session ended: nobody was at this browser", status=401, code="absent"
            ).response()
            for cookie in self.ended(session.summary, request):
                response.headers.append("set-cookie", cookie)
            return response
        return Response(status_code=204)
