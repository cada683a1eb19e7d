"""What presence and the remembered visitor add to a browser mode, composed once for all four.

A mode builds one :class:`BrowserAssurance` from its settings (``None`` while both are off) and
hands it to the session middleware, which asks it on every request whether the session's person
is absent and who this browser remembers; the mode mounts its routes, exempts its paths from
path protection (each answers for itself) and passes :meth:`BrowserAssurance.farewell` to its
logout, so every end of a session leaves the same note:

- ``GET {logout_path}/presence.js`` and ``POST {logout_path}/presence`` with presence on;
- ``POST {logout_path}/forget`` with the hint on: the note is dropped, 303 to ``/``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from fw.auth.assurance.hint import RememberedVisitor
from fw.auth.assurance.hint_cookie import Visitor, VisitorNotes, forget_cookie
from fw.auth.assurance.hint_rules import remembering
from fw.auth.assurance.presence import PresenceRules
from fw.auth.assurance.presence_endpoint import SCRIPT_NAME, PresenceEndpoints
from fw.auth.browser.cookies import cookie_secure
from fw.auth.browser.signout import ended_cookies
from fw.auth.browser.user import user
from fw.auth.sessions.manager import ActiveSession, Sessions, SessionSummary
from fw.auth.settings import AuthSettings
from fw.core.routes import BaseRoute, Route
from fw.problems import Problem


class BrowserAssurance:
    """Presence and the remembered visitor for one browser mode's App."""

    def __init__(
        self,
        auth: AuthSettings,
        sessions: Callable[[], Sessions],
        cross_origin: Callable[[Request], bool],
    ) -> None:
        assurance = auth.assurance
        base = auth.logout_path.rstrip("/")
        self.cross_origin = cross_origin
        self.report_path = f"{base}/presence"
        self.script_path = f"{base}/{SCRIPT_NAME}"
        self.forget_path = f"{base}/forget"
        self.presence: PresenceRules | None = None
        self._endpoints: PresenceEndpoints | None = None
        if assurance.presence.enabled:
            self.presence = PresenceRules.from_settings(assurance.presence)
            self._endpoints = PresenceEndpoints(
                self.presence, self.report_path, sessions, cross_origin, self.ended
            )
        #: ``forget`` answers whenever the hint is enabled, even with ``ttl = 0s`` (old notes go too).
        self.forgets = assurance.hint.enabled
        self.notes = VisitorNotes(assurance.hint) if remembering(assurance.hint) else None

    @classmethod
    def build(
        cls, auth: AuthSettings, sessions: Callable[[], Sessions], cross_origin: Callable[[Request], bool]
    ) -> BrowserAssurance | None:
        """The pieces ``auth.assurance`` turns on, or ``None`` when presence and the hint are off."""
        if not (auth.assurance.presence.enabled or auth.assurance.hint.enabled):
            return None
        return cls(auth, sessions, cross_origin)

    def routes(self) -> Sequence[BaseRoute]:
        routes: list[BaseRoute] = []
        if self._endpoints is not None:
            routes += [
                Route(self.script_path, self._endpoints.script, methods=["GET"]),
                Route(self.report_path, self._endpoints.report, methods=["POST"]),
            ]
        if self.forgets:
            routes.append(Route(self.forget_path, self.forget, methods=["POST"]))
        return routes

    def paths(self) -> frozenset[str]:
        """The paths that answer for themselves (401, 303), never through path protection."""
        found = {self.forget_path} if self.forgets else set()
        if self._endpoints is not None:
            found |= {self.report_path, self.script_path}
        return frozenset(found)

    def quiet(self, path: str) -> bool:
        """A request to ``path`` is no sign of activity: it leaves the session's idle clock alone."""
        return self._endpoints is not None and path == self.report_path

    def absent(self, session: ActiveSession, now: float | None = None) -> bool:
        """Presence is on and nobody was reported at this browser for ``absent_after``."""
        if self.presence is None:
            return False
        return self.presence.absent(session.record, time.time() if now is None else now)

    def note(self, visitor: Visitor, secure: bool) -> list[str]:
        """The Set-Cookie header remembering ``visitor`` (none while the hint is off)."""
        return self.notes.write(visitor, secure=secure) if self.notes is not None else []

    def ended(self, summary: SessionSummary, request: Request) -> list[str]:
        """Every Set-Cookie header of a session that ended without a logout (absence)."""
        return ended_cookies(request) + self.note(summary, cookie_secure(request))

    def departed(self, summary: SessionSummary) -> RememberedVisitor | None:
        """Who the browser remembers right after ``summary``'s session ended (none while the hint is off)."""
        return self.notes.remembered(summary) if self.notes is not None else None

    def farewell(self, request: Request, secure: bool) -> list[str]:
        """What a logout leaves besides its own cookies: the note of who signed out."""
        current = user(request)
        return self.note(current, secure) if current is not None else []

    def visitor(self, request: Request, secure: bool) -> tuple[RememberedVisitor | None, list[str]]:
        """Who this browser remembers, and the Set-Cookie headers refreshing or dropping the note."""
        if self.notes is None:
            return None, []
        return self.notes.read(request, secure=secure)

    async def forget(self, request: Request) -> Response:
        """``POST {logout_path}/forget``: the browser forgets its last visitor (303 to ``/``)."""
        if self.cross_origin(request):
            raise Problem("cross-origin request refused", status=403, code="cross_origin")
        response = RedirectResponse("/", status_code=303)
        response.headers.append("set-cookie", forget_cookie(secure=cookie_secure(request)))
        response.headers["cache-control"] = "no-store"
        return response
