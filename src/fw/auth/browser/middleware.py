"""Resolve the browser session before every handler, re-read the account, guard protected paths.

With ``[auth.assurance]`` on, the same pass ends a session nobody was present at (presence) and
reads the note of the last visitor (the remembered visitor): see :mod:`fw.auth.assurance`.

Failures never leak: an unusable cookie is dropped (anonymous is a normal state); a store that
cannot answer is a 503; a protected path without a session goes through login or gets a 401.

Every request first gets its mode's :class:`~fw.auth.browser.cookies.CookiePolicy` in its scope,
so the session cookie is read and written under one name (``__Host-fw_session`` outside
development) and every endpoint below sets ``Secure`` cookies the same way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from fw.auth.accounts import AccountSeams
from fw.auth.assurance.context import CONTEXT_KEY, AssuranceContext
from fw.auth.assurance.hint import REMEMBERED_KEY
from fw.auth.assurance.presence_browser import BrowserAssurance
from fw.auth.browser.anonymous import refuse_anonymous
from fw.auth.browser.answers import unavailable
from fw.auth.browser.cookies import DEVELOPMENT, POLICY_KEY, CookiePolicy, expire_cookie, set_cookie
from fw.auth.browser.user import User
from fw.auth.caller import Authentication, record
from fw.auth.outcome import note
from fw.auth.protection import Protection
from fw.auth.sessions.manager import (
    SESSION_SCOPE_KEY,
    ActiveSession,
    Sessions,
    SessionSummary,
)
from fw.auth.stores.errors import StoreUnavailable
from fw.caching import SESSION_DEPENDENT, forbid_storing
from fw.core.middleware import Amend, Decision
from fw.operations import events
from fw.problem_pages import LOGIN_PATH_KEY

logger = logging.getLogger("fw.auth")


def _may_carry_a_session(scope: Scope, cookie_name: bytes) -> bool:
    """False when no ``Cookie`` header names the session cookie, so the request has no session.

    A byte search, not a cookie parse: it may say True for a request without a session (the
    name inside another cookie's value), never False for one with it.
    """
    for name, value in scope["headers"]:  # noqa: SIM110 - a loop, not any() over a generator's frame
        if name == b"cookie" and cookie_name in value:
            return True
    return False


@dataclass
class BrowserAuth:
    """What the middleware needs from the mode that installs it."""

    sessions: Callable[[], Sessions]
    accounts: AccountSeams
    protection: Protection
    login_path: str
    unauthenticated: str
    exempt: frozenset[str]
    #: What the assurance guards of this mode need (recorded in every request's scope).
    assurance: AssuranceContext | None = None
    #: Presence and the remembered visitor (``[auth.assurance]``); ``None`` while both are off.
    presence: BrowserAssurance | None = None
    #: Whether cookies are ``Secure`` and the session cookie's name (recorded in every request's scope).
    cookies: CookiePolicy = DEVELOPMENT
    #: ``auth.mode``, as the decision on each request is recorded (:mod:`fw.auth.outcome`).
    mode: str = "browser"


class BrowserSessionMiddleware:
    """Every browser mode installs this one middleware; only :class:`BrowserAuth` differs.

    Its decision (:class:`fw.core.middleware.Middleware`): an anonymous request to a path that
    needs no session is handed on as it is; a request carrying a session cookie (or any request,
    with presence on) is resolved against the session store, then refused, or handed on with the
    cookies to set amended into the response.
    """

    def __init__(self, auth: BrowserAuth) -> None:
        self.auth = auth
        #: The session cookie's name, read here and written by every endpoint of the mode.
        self.session_cookie = auth.cookies.session
        self._session_cookie_bytes = self.session_cookie.encode("latin-1")

    def decide(self, scope: Scope) -> Decision:
        """``None`` for a request without a session, to a path that does not require one, with
        presence and the remembered visitor off (the cookie policy and the assurance context
        recorded for the endpoints that set cookies themselves); otherwise :meth:`_resolve_request`."""
        if scope["type"] != "http":
            return None
        auth = self.auth
        scope[POLICY_KEY] = auth.cookies  # every cookie set in answer follows the App's policy
        scope[LOGIN_PATH_KEY] = auth.login_path  # where an error page for a person links to sign in
        if auth.assurance is not None:
            scope[CONTEXT_KEY] = auth.assurance
        if auth.presence is not None or _may_carry_a_session(scope, self._session_cookie_bytes):
            return self._resolve_request(scope)
        path = scope["path"]
        if path not in auth.exempt and auth.protection.requires_auth(path):
            return self._resolve_request(scope)
        note(scope, auth.mode, "anonymous")
        return None

    async def _resolve_request(self, scope: Scope) -> Response | Amend | None:
        """Any HTTP request: the session resumed, the account re-read, cookies set as needed."""
        request = Request(scope)
        auth = self.auth
        cookies: list[str] = []
        secure = auth.cookies.secure(request)
        try:
            with events.session_read():
                current, active, departed = await self._resolve(request, cookies, secure)
        except StoreUnavailable as error:
            logger.error("session or account store unavailable: %s", error)
            note(scope, auth.mode, "unavailable", "")
            return unavailable("session or account store").response()
        if current is not None:
            record(scope, Authentication("session", current.account_id, current.issuer, current.key, current))
            scope[SESSION_SCOPE_KEY] = active
            scope[SESSION_DEPENDENT] = True  # a signed-in request's answer is no-store
            note(scope, auth.mode, "allowed")
        presence = auth.presence
        if presence is not None and departed is not None:
            scope[REMEMBERED_KEY] = presence.departed(departed)  # the note written just now
        elif presence is not None:
            visitor, noted = presence.visitor(request, secure)
            scope[REMEMBERED_KEY] = visitor
            cookies += noted
        path = scope["path"]
        if current is None and path not in auth.exempt and auth.protection.requires_auth(path):
            note(scope, auth.mode, "rejected", "session_ended" if cookies else "no_session")
            response = self._refuse(request)
            for header in cookies:
                response.headers.append("set-cookie", header)
            return response
        if current is None:
            note(scope, auth.mode, "anonymous")
        if not cookies and active is None and current is None:
            return None
        session_cookie = self.session_cookie

        def amend(headers: MutableHeaders) -> None:
            if cookies:  # most signed-in answers have none: no Set-Cookie header is read
                # A handler that rewrote the session (a step-up) sent the newer cookie: keep it.
                prefix = f"{session_cookie}="
                rewritten = any(h.startswith(prefix) for h in headers.getlist("set-cookie"))
                for header in cookies:
                    if not (rewritten and header.startswith(prefix)):
                        headers.append("set-cookie", header)
            renewal = _renewal(active, headers, secure, session_cookie)
            if renewal:
                headers.append("set-cookie", renewal)
            if SESSION_DEPENDENT in scope:  # signed in, or the handler read fw.auth.user
                forbid_storing(headers)

        return amend

    async def _resolve(
        self, request: Request, cookies: list[str], secure: bool
    ) -> tuple[User | None, ActiveSession | None, SessionSummary | None]:
        """The signed-in user and their session; or, for a session that presence just ended,
        the summary of who left (the remembered visitor of this very request)."""
        value = request.cookies.get(self.session_cookie)
        if not value:
            return None, None, None
        sessions = self.auth.sessions()
        presence = self.auth.presence
        quiet = presence is not None and presence.quiet(request.url.path)
        active = await sessions.resume(value, touch=not quiet)
        if active is None:
            cookies.append(expire_cookie(self.session_cookie, secure=secure))
            return None, None, None
        summary = active.summary
        if presence is not None and presence.absent(active):
            # Nobody was reported at this browser for absent_after: the session ends as at a logout.
            logger.info("session of account %s ended: nobody present", summary.account_id)
            await sessions.end(active.value)
            cookies += presence.ended(summary, request)
            return None, None, summary
        accounts = self.auth.accounts
        if accounts.reread_due(summary.account_id):
            # Claimed before the lookup, so requests arriving meanwhile do not repeat it: at most
            # one re-read per account per interval. A failed lookup gives the claim back.
            accounts.mark_read(summary.account_id)
            try:
                account = await accounts.lookup(summary.account_id)
            except BaseException:
                accounts.forget(summary.account_id)
                raise
            if account is None or not account.active:
                accounts.forget(summary.account_id)
                await sessions.end(active.value)
                cookies.append(expire_cookie(self.session_cookie, secure=secure))
                return None, None, None
            fresh = replace(
                summary,
                display_name=account.display_name or summary.display_name,
                email=account.email or summary.email,
            )
            if fresh != summary:
                await sessions.refresh(active, fresh)
                summary = fresh
        # Every field copied by name; alike in shape to other calls of many keywords, not in meaning.
        current = User(
            summary.account_id,
            summary.display_name,
            summary.email,
            summary.issuer,
            summary.key,
            method=summary.method,
            auth_time=summary.auth_time,
            provider=summary.provider,
            subject=summary.subject,
            username=summary.username,
            avatar_url=summary.avatar_url,
        )
        return current, active, None

    def _refuse(self, request: Request) -> Response:
        return refuse_anonymous(request, self.auth.login_path, self.auth.unauthenticated)


def _renewal(active: ActiveSession | None, headers: MutableHeaders, secure: bool, name: str) -> str | None:
    """The session cookie to send when the session's value changed while serving (a renewed seal),
    decided when the answer starts so it carries the last value; never when the handler set the
    session cookie itself (a sign-in, a logout)."""
    if active is None or not active.renewed:
        return None
    prefix = f"{name}="
    if any(header.startswith(prefix) for header in headers.getlist("set-cookie")):
        return None
    # The browser may keep the cookie only until the session's absolute expiry, never longer.
    max_age = max(1, int(active.expires_at - time.time()))
    return set_cookie(name, active.value, secure=secure, max_age=max_age)
