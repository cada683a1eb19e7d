"""A minimal X-shaped provider on loopback for these tests: authorize, token, own-user lookup.

It behaves as X does where fw depends on it (PKCE S256 checked at the token endpoint, codes used
once, HTTP Basic client authentication, ``{"data": {...}}`` lookups) and can be told to fail in
each way X can. Every request it receives is recorded, so tests can check what fw sent.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from fw.background import BackgroundServer

VERIFIER_MISMATCH = "Value passed for the code verifier did not match the code challenge."
CLIENT_ID = "x-client"
CLIENT_SECRET = "x-secret"
ALICE = {
    "id": "2244994945",
    "username": "alice",
    "name": "Alice A.",
    "profile_image_url": "https://pbs.example/a.jpg",
}
BOB = {"id": "783214", "username": "bob", "name": "Bob B.", "profile_image_url": "https://pbs.example/b.jpg"}


@dataclass
class Seen:
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    form: dict[str, str]


@dataclass
class StandIn:
    origin: str = ""
    users: dict[str, dict[str, Any]] = field(default_factory=lambda: {"alice": ALICE, "bob": BOB})
    signing_in: str = "alice"
    #: ``error`` put on the callback instead of a code.
    authorize_error: str = ""
    #: (error, description) the token endpoint answers instead of a token.
    token_error: tuple[str, str] | None = None
    #: Replaces the lookup's answer.
    lookup: Callable[[], Response] | None = None
    seen: list[Seen] = field(default_factory=list)
    #: Every access token issued, to look for it where it must never be.
    issued: list[str] = field(default_factory=list)
    _codes: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    _tokens: dict[str, str] = field(default_factory=dict)

    @property
    def endpoints(self) -> dict[str, str]:
        return {
            "authorization_endpoint": f"{self.origin}/i/oauth2/authorize",
            "token_endpoint": f"{self.origin}/2/oauth2/token",
            "user_endpoint": f"{self.origin}/2/users/me?user.fields=profile_image_url",
        }

    def paths(self, path: str) -> list[Seen]:
        return [seen for seen in self.seen if seen.path == path]

    async def _record(self, request: Request) -> Seen:
        form = {k: str(v) for k, v in (await request.form()).items()} if request.method == "POST" else {}
        seen = Seen(request.url.path, dict(request.query_params), dict(request.headers), form)
        self.seen.append(seen)
        return seen

    async def authorize(self, request: Request) -> Response:
        seen = await self._record(request)
        query = seen.query
        back: dict[str, str] = {"state": query.get("state", "")}
        if self.authorize_error:
            back["error"] = self.authorize_error
        else:
            code = secrets.token_urlsafe(16)
            self._codes[code] = (query["code_challenge"], query["redirect_uri"], self.signing_in)
            back["code"] = code
        return RedirectResponse(f"{query['redirect_uri']}?{urlencode(back)}", status_code=302)

    async def token(self, request: Request) -> Response:
        seen = await self._record(request)
        basic = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        if seen.headers.get("authorization") != f"Basic {basic}":
            return JSONResponse({"error": "unauthorized_client"}, status_code=401)
        if self.token_error is not None:
            error, description = self.token_error
            return JSONResponse({"error": error, "error_description": description}, status_code=400)
        grant = self._codes.pop(seen.form.get("code", ""), None)
        if grant is None:
            return JSONResponse(
                {"error": "invalid_grant", "error_description": "Value passed for the token was invalid."},
                400,
            )
        challenge, redirect_uri, who = grant
        digest = hashlib.sha256(seen.form.get("code_verifier", "").encode()).digest()
        if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != challenge:
            return JSONResponse(
                {
                    "error": "invalid_request",
                    "error_description": VERIFIER_MISMATCH,
                },
                400,
            )
        if seen.form.get("redirect_uri") != redirect_uri:
            return JSONResponse({"error": "invalid_request"}, 400)
        token = f"xat-{secrets.token_urlsafe(32)}"
        self.issued.append(token)
        self._tokens[token] = who
        return JSONResponse(
            {
                "token_type": "bearer",
                "expires_in": 7200,
                "access_token": token,
                "scope": "users.read tweet.read",
            }
        )

    async def me(self, request: Request) -> Response:
        seen = await self._record(request)
        if self.lookup is not None:
            return self.lookup()
        who = self._tokens.get(seen.headers.get("authorization", "").removeprefix("Bearer "))
        if who is None:
            return JSONResponse(
                {"title": "Unauthorized", "type": "about:blank", "status": 401, "detail": "Unauthorized"}, 401
            )
        return JSONResponse({"data": self.users[who]})

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/i/oauth2/authorize", self.authorize),
                Route("/2/oauth2/token", self.token, methods=["POST"]),
                Route("/2/users/me", self.me),
            ]
        )


@contextmanager
def running_standin() -> Iterator[StandIn]:
    standin = StandIn()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    standin.origin = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = BackgroundServer(standin.app(), sock, what="the X stand-in", name="x-standin")
    server.start()
    try:
        yield standin
    finally:
        server.stop()
