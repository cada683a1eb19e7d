"""``POST auth.oidc.backchannel_logout_path``: the provider ends sessions it holds no cookie of.

OpenID Connect Back-Channel Logout 1.0: the provider POSTs a form-encoded ``logout_token``
when a person's provider session ends. The token is verified by :mod:`fw.auth.oidc.backchannel`
(signature with the provider's keys, the logout-token claim rules); its ``jti`` is taken once
in the ``auth.backend`` ceremony store, so a replayed token is refused in every process; then
every session carrying the mark of its ``sid`` (or, without one, of its ``sub``) is destroyed
in the session store, which every app process shares. The answer is 200, or 400
``{"error": "invalid_request"}`` for anything that did not end the sessions (section 2.8),
always ``Cache-Control: no-store``. Cookie sessions cannot be reached from here: the mode
refuses that combination at startup.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import Response

from fw.auth.modes.oidc_only.started import Started
from fw.auth.oidc import OidcError
from fw.auth.oidc.backchannel import MAX_LOGOUT_TOKEN_BYTES, LogoutToken, verify_logout_token
from fw.auth.sessions.marks import provider_session_mark, provider_subject_mark
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.interfaces import CeremonyStore
from fw.responses import JSONResponse

logger = logging.getLogger("fw.auth")

_FORM = "application/x-www-form-urlencoded"
#: Room for the one form field and its name; a larger body is refused before it is parsed.
_MAX_BODY = MAX_LOGOUT_TOKEN_BYTES + 64
_HEADERS = {"cache-control": "no-store"}


def _answer(status: int) -> Response:
    body = {} if status == 200 else {"error": "invalid_request"}
    return JSONResponse(body, status_code=status, headers=_HEADERS)


def spent_key(token: LogoutToken) -> str:
    """The ceremony-store key under which a logout token's ``jti`` is kept once used."""
    digest = hashlib.sha256(f"{token.issuer}\0{token.jti}".encode()).hexdigest()
    return f"backchannel-logout:{digest}"


class BackchannelLogout:
    """The back-channel logout endpoint of the OIDC browser modes."""

    def __init__(
        self, client_id: str, started: Callable[[], Started], ceremonies: Callable[[], CeremonyStore]
    ) -> None:
        self.client_id = client_id
        self.started = started
        self.ceremonies = ceremonies

    async def receive(self, request: Request) -> Response:
        token = await _logout_token(request)
        if token is None:
            return _answer(400)
        started = self.started()
        try:
            verified = await verify_logout_token(started.provider, token, client_id=self.client_id)
        except OidcError as error:  # a rejected token, or keys that could not be fetched
            logger.info("back-channel logout refused: %s", error)
            return _answer(400)
        try:
            ended = await self._end_sessions(started, verified)
        except StoreUnavailable as error:
            logger.error("back-channel logout could not reach a store: %s", error)
            return _answer(400)
        if ended is None:
            logger.info("back-channel logout refused: jti %r was already used", verified.jti)
            return _answer(400)
        logger.info("back-channel logout ended %d session(s) of %s", ended, verified.issuer)
        return _answer(200)

    async def _end_sessions(self, started: Started, token: LogoutToken) -> int | None:
        """Spend the jti, then destroy the sessions; ``None`` when the jti was spent before.

        When the sessions cannot be destroyed the jti is given back, so the provider's retry of
        the same token is not refused as a replay.
        """
        key = spent_key(token)
        expires = datetime.fromtimestamp(token.expires_at, UTC)
        ceremonies = self.ceremonies()
        if not await ceremonies.put(key, {"kind": "backchannel-logout"}, expires):
            return None
        if token.sid:
            mark = provider_session_mark(token.issuer, token.sid)
        else:
            mark = provider_subject_mark(token.issuer, token.subject)
        try:
            return await started.sessions.end_marked(mark)
        except StoreUnavailable:
            await ceremonies.take(key)
            raise


async def _logout_token(request: Request) -> str | None:
    """The ``logout_token`` form field of a small form-encoded body, else ``None``."""
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type != _FORM:
        return None
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > _MAX_BODY):
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > _MAX_BODY:
            return None
    try:
        fields = parse_qs(body.decode("ascii"), keep_blank_values=True, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        return None
    values = fields.get("logout_token", [])
    if len(values) != 1 or not values[0]:
        return None
    return values[0]
