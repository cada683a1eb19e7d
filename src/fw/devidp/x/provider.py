"""The X-shaped stand-in as a Starlette application: X's OAuth 2.0 endpoints and its own-user lookup.

It answers the way X does, so the ``oauth_only`` mode meets in tests and under ``fw dev`` what it
meets in production: authorization code with PKCE ``S256`` (required) and ``state`` echoed, no
``iss``, no ID token; a token endpoint demanding HTTP Basic client authentication, with
single-use codes that expire and X's error wording; bearer tokens of two hours and a refresh
token only for ``offline.access``; ``GET /2/users/me`` answering ``{"data": {...}}`` or an RFC 7807
problem. Only the sign-in is fake: a user picker, no password.
"""

from __future__ import annotations

import html
import secrets
import time
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from fw.devidp.loopback import LoopbackOnly, redirect_allowed
from fw.devidp.model import AuthorizationGrant, DevClient
from fw.devidp.pages import (
    append_query,
    basic_credentials,
    oauth_error,
    page,
    picker_form,
    request_params,
    s256,
)
from fw.devidp.x.failures import failed_lookup, problem
from fw.devidp.x.model import (
    AUTHORIZE_PATH,
    KNOWN_SCOPES,
    TOKEN_PATH,
    USER_PATH,
    XRequest,
    XState,
    XTokenGrant,
    XUser,
)
from fw.responses import JSONResponse

AVATAR_PREFIX = "/profile_images/"
#: Every path the stand-in answers (to serve it next to another application).
STANDIN_PATHS = frozenset({AUTHORIZE_PATH, TOKEN_PATH, USER_PATH})
STANDIN_PREFIXES = (AVATAR_PREFIX,)
#: X's access tokens live two hours.
TOKEN_LIFETIME = 7200
#: The scopes ``GET /2/users/me`` needs at X.
LOOKUP_SCOPES = frozenset({"users.read", "tweet.read"})
#: The ``user.fields`` X accepts (the stand-in fills ``profile_image_url`` only).
USER_FIELDS = frozenset(
    {"id", "name", "username", "profile_image_url", "created_at", "description", "location",
     "protected", "url", "verified", "pinned_tweet_id", "public_metrics", "entities", "withheld"}
)  # fmt: skip
FOOTER = "fw development stand-in for X: no password is checked."
_AVATAR_COLOURS = ("#1d9bf0", "#7856ff", "#f91880", "#00ba7c", "#ff7a00")


def _client_error(description: str) -> Response:
    """X's page when an authorization request cannot be answered by a redirect."""
    body = (
        "<p>Something went wrong. You weren't able to give access to the App.</p>"
        f"<p>{html.escape(description)}</p>"
    )
    return page("Authorization refused", body, FOOTER, 400)


class XProvider:
    """Holds the state; ``asgi`` is the application to serve on loopback at ``origin``."""

    def __init__(self, state: XState, origin: str) -> None:
        self.state = state
        self.origin = origin.rstrip("/")
        self.app = Starlette(
            routes=[
                Route(AUTHORIZE_PATH, self.authorize, methods=["GET", "POST"]),
                Route(TOKEN_PATH, self.token, methods=["POST"]),
                Route(USER_PATH, self.me, methods=["GET"]),
                Route(AVATAR_PREFIX + "{user_id}.svg", self.avatar, methods=["GET"]),
            ]
        )
        self.asgi = LoopbackOnly(self.app, FOOTER)

    @property
    def authorization_endpoint(self) -> str:
        return f"{self.origin}{AUTHORIZE_PATH}"

    @property
    def token_endpoint(self) -> str:
        return f"{self.origin}{TOKEN_PATH}"

    @property
    def user_endpoint(self) -> str:
        """The own-user lookup, with the field list fw asks for."""
        return f"{self.origin}{USER_PATH}?user.fields=profile_image_url"

    def profile_image_url(self, user: XUser) -> str:
        return user.profile_image_url or f"{self.origin}{AVATAR_PREFIX}{quote(user.id)}.svg"

    def profile(self, user: XUser, fields: list[str]) -> dict[str, str]:
        """The ``data`` of a good lookup answer for ``user`` with the ``user.fields`` asked for."""
        profile = {"id": user.id, "name": user.name or user.username, "username": user.username}
        if "profile_image_url" in fields:
            profile["profile_image_url"] = self.profile_image_url(user)
        return profile

    async def _record(self, request: Request) -> None:
        """Add the request to ``state.requests`` (Starlette keeps the form for the handler)."""
        form = await request_params(request) if request.method == "POST" else {}
        self.state.requests.append(
            XRequest(
                request.method, request.url.path, dict(request.query_params), dict(request.headers), form
            )
        )

    # Authorization endpoint.
    async def authorize(self, request: Request) -> Response:
        await self._record(request)
        params = await request_params(request)
        client = self.state.clients.get(params.get("client_id", ""))
        redirect_uri = params.get("redirect_uri", "")
        if client is None:
            return _client_error("The client_id is not registered.")
        if not redirect_allowed(redirect_uri, client.redirect_uris):
            return _client_error(f"The redirect_uri {redirect_uri} is not registered.")
        scopes = params.get("scope", "").split()
        unknown = [scope for scope in scopes if scope not in KNOWN_SCOPES]
        if not scopes or unknown:
            return _client_error(f"Unknown or missing scopes: {' '.join(unknown) or '(none)'}.")
        state = params.get("state", "")

        def answer(query: dict[str, str]) -> Response:
            if state:
                query["state"] = state
            return RedirectResponse(append_query(redirect_uri, query), status_code=302)

        if params.get("response_type") != "code":
            return answer({"error": "unsupported_response_type"})
        if params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
            return answer({"error": "invalid_request"})
        if request.method == "GET":
            self.state.authorizations.append(dict(params))
        if params.get("deny") == "1":
            return answer({"error": "access_denied"})
        if self.state.authorization_failure is not None:
            return answer({"error": self.state.authorization_failure})
        chosen = params.get("user") if request.method == "POST" else self.state.preset_user
        user = self.state.user(chosen) if chosen else None
        if user is None:
            return self._picker(params)
        code = secrets.token_urlsafe(48)
        now = time.time()
        self.state.codes[code] = AuthorizationGrant(
            client_id=client.client_id,
            redirect_uri=redirect_uri,
            code_challenge=params["code_challenge"],
            nonce="",
            scope=" ".join(scopes),
            sub=user.id,
            auth_time=int(now),
            expires_at=now + self.state.code_lifetime,
        )
        return answer({"code": code})

    def _picker(self, params: dict[str, str]) -> Response:
        choices = [(u.id, f"{u.name or u.username} @{u.username}") for u in self.state.users.values()]
        asked = html.escape(params.get("scope", ""))
        form = picker_form(self.authorization_endpoint, params, choices)
        return page("Authorize app", f"<p>The app asks for: <code>{asked}</code></p>{form}", FOOTER)

    # Token endpoint.
    async def token(self, request: Request) -> Response:
        await self._record(request)
        form = await request_params(request)
        client = self._authenticated_client(request.headers.get("authorization", ""))
        if client is None:
            return oauth_error("unauthorized_client", "Missing valid authorization header", 401)
        grant_type = form.get("grant_type", "")
        failure = self.state.token_failure
        if failure is not None and grant_type == "authorization_code":
            return oauth_error(failure.error, failure.description, failure.status)
        if grant_type == "authorization_code":
            return self._code_grant(form, client)
        if grant_type == "refresh_token":
            return self._refresh_grant(form, client)
        return oauth_error("invalid_request", "Value passed for the grant type was invalid.")

    def _authenticated_client(self, header: str) -> DevClient | None:
        """The confidential client the Basic header proves; X takes no other client authentication."""
        credentials = basic_credentials(header)
        if credentials is None:
            return None
        client = self.state.clients.get(credentials[0])
        if client is None or not client.client_secret:
            return None
        return client if secrets.compare_digest(credentials[1], client.client_secret) else None

    def _code_grant(self, form: dict[str, str], client: DevClient) -> Response:
        grant = self.state.codes.pop(form.get("code", ""), None)
        if grant is None or grant.expires_at < time.time() or grant.client_id != client.client_id:
            return oauth_error("invalid_grant", "Value passed for the authorization code was invalid.")
        if form.get("redirect_uri") != grant.redirect_uri:
            wording = "Value passed for the redirect uri did not match the uri of the authorization code."
            return oauth_error("invalid_request", wording)
        verifier = form.get("code_verifier", "")
        if not verifier or not secrets.compare_digest(s256(verifier), grant.code_challenge):
            return oauth_error(
                "invalid_request", "Value passed for the code verifier did not match the code challenge."
            )
        return self._issue(client, grant.sub, grant.scope)

    def _refresh_grant(self, form: dict[str, str], client: DevClient) -> Response:
        grant = self.state.refresh_tokens.pop(form.get("refresh_token", ""), None)
        if grant is None or grant.client_id != client.client_id:
            return oauth_error("invalid_request", "Value passed for the token was invalid.")
        return self._issue(client, grant.user_id, grant.scope)

    def _issue(self, client: DevClient, user_id: str, scope: str) -> Response:
        access = secrets.token_urlsafe(48)
        expires_at = time.time() + TOKEN_LIFETIME
        self.state.access_tokens[access] = XTokenGrant(client.client_id, user_id, scope, expires_at)
        body: dict[str, str | int] = {
            "token_type": "bearer",
            "expires_in": TOKEN_LIFETIME,
            "access_token": access,
            "scope": scope,
        }
        if "offline.access" in scope.split():
            refresh = secrets.token_urlsafe(48)
            self.state.refresh_tokens[refresh] = XTokenGrant(client.client_id, user_id, scope, expires_at)
            body["refresh_token"] = refresh
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    # The own-user lookup.
    async def me(self, request: Request) -> Response:
        await self._record(request)
        header = request.headers.get("authorization", "")
        token = header[7:] if header.lower().startswith("bearer ") else ""
        grant = self.state.access_tokens.get(token)
        user = self.state.users.get(grant.user_id) if grant is not None else None
        if grant is None or user is None or grant.expires_at < time.time():
            return problem(401)
        if not set(grant.scope.split()) >= LOOKUP_SCOPES:
            return problem(403)
        fields = [f for f in request.query_params.get("user.fields", "").split(",") if f]
        invalid = [f for f in fields if f not in USER_FIELDS]
        if invalid:
            return _invalid_fields(invalid)
        profile = self.profile(user, fields)
        failure = self.state.lookup_failure
        if failure is not None:
            status, reset_after = self.state.lookup_failure_status, self.state.lookup_reset_after
            return failed_lookup(failure, status, reset_after, user, profile)
        return JSONResponse({"data": profile})

    async def avatar(self, request: Request) -> Response:
        await self._record(request)
        user = self.state.users.get(request.path_params["user_id"])
        if user is None:
            return Response(status_code=404)
        initial = html.escape((user.name or user.username or "?")[:1].upper())
        colour = _AVATAR_COLOURS[sum(map(ord, user.id)) % len(_AVATAR_COLOURS)]
        svg = (
            "<svg xmlns='http://www.w3.org/2000/svg' width='48' height='48' viewBox='0 0 48 48'>"
            f"<circle cx='24' cy='24' r='24' fill='{colour}'/>"
            "<text x='24' y='31' font-size='22' text-anchor='middle' fill='#fff' "
            f"font-family='sans-serif'>{initial}</text></svg>"
        )
        return Response(svg, media_type="image/svg+xml")


def _invalid_fields(invalid: list[str]) -> JSONResponse:
    listed = ",".join(invalid)
    return JSONResponse(
        {
            "errors": [
                {
                    "parameters": {"user.fields": invalid},
                    "message": f"The `user.fields` query parameter value [{listed}] is not allowed",
                }
            ],
            "title": "Invalid Request",
            "detail": "One or more parameters to your request was invalid.",
            "type": "https://api.x.com/2/problems/invalid-request",
        },
        status_code=400,
    )
