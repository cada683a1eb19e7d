"""Servers for the signed-in page benchmark: fw's browser session against hand-built peers.

``python benchmarks/signed_in_servers.py KIND '<json>'`` serves, on 127.0.0.1 at the given port,
``GET /page`` (the signed-in page: 200 with the account's ID and name, 401 without a session)
and ``GET /login`` (starts a session for the account ``bench`` and sets its cookie, so the
runner signs in once the way each framework does). Kinds:

* ``fw-cookie``, ``fw-redis``: an ``oidc_only`` App with ``session.backend`` ``cookie`` (the
  record sealed with AES-256-GCM in the cookie) or ``redis``; ``/page`` is a protected path, so
  fw's protection decision and its account re-read (an in-memory account lookup, called at most
  once per 30 s) are part of every request, as in an application;
* ``starlette-cookie``: Starlette with its ``SessionMiddleware`` (a signed, unencrypted cookie);
* ``starlette-redis``: Starlette and ``redis.asyncio`` written by hand: a random cookie, one
  ``GET`` of the JSON record behind it;
* ``litestar-cookie``, ``litestar-redis``: Litestar's client-side session (AES-GCM cookie) and
  its server-side session in its ``RedisStore``.

The handler of every peer reads the session and answers 401 without one: the same page.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

# FW_BENCH_SRC points at another fw source tree (an older commit) to measure it the same way.
sys.path.insert(0, os.environ.get("FW_BENCH_SRC") or str(Path(__file__).resolve().parents[1] / "src"))

#: The account every session belongs to.
ACCOUNT = {"account_id": "bench", "display_name": "Bench", "email": "bench@example.test"}
#: A base64url secret of 32 random bytes, fixed so every run seals alike (never a real secret).
SECRET = "pVq7oX3M0Ykq1cJ8n5c3y0b6D9Jr4uWm2sTQe1Lh8aE"


def fw_app(options: dict[str, Any]) -> Any:
    """The ``oidc_only`` App, configured from a TOML file as an application is."""
    import fw
    import fw.auth
    from fw import configuration
    from fw.auth import accounts
    from fw.auth.browser.cookies import cookie_policy, set_cookie
    from fw.auth.sessions import SessionSummary

    backend = options["backend"]
    store = f'redis_url = "{options["redis_url"]}"' if backend == "redis" else ""
    config = Path(options["workdir"]) / f"fw-{options['port']}.toml"
    config.write_text(
        f"""
[server]
host = "127.0.0.1"
port = {options["port"]}

[auth]
enabled = true
mode = "oidc_only"
protection.include = ["/page"]

[auth.oidc]
issuer = "http://127.0.0.1:9"
client_id = "bench"
allow_loopback_http = true

[session]
enabled = true
backend = "{backend}"
{store}

[middleware.rdb]
dsn = "{options["dsn"]}"
"""
    )
    app = fw.App()
    accounts.set_account_lookup(
        lambda account_id: accounts.Account(account_id, "Bench", "bench@example.test"), app=app
    )

    @app.route("GET /page")
    async def page(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        assert user is not None  # a protected path: fw answered 401 without a session
        return fw.JSONResponse({"account_id": user.account_id, "display_name": user.display_name})

    @app.route("GET /login")
    async def login(request: fw.Request) -> fw.Response:
        [extension] = [e for e in app.extensions if type(e).__module__.startswith("fw.auth.")]
        summary = SessionSummary(
            ACCOUNT["account_id"],
            ACCOUNT["display_name"],
            ACCOUNT["email"],
            "http://127.0.0.1:9",
            "bench",
            None,
        )
        value = await extension.sessions.start(summary)
        response = fw.JSONResponse({"signed_in": True})
        name = cookie_policy(request).session
        response.headers.append("set-cookie", set_cookie(name, value, secure=False))
        return response

    configuration.parse_config(["--config-path", str(config)])
    return app


def starlette_app(options: dict[str, Any]) -> Any:
    """Starlette's ``SessionMiddleware`` (cookie) or a hand-written ``redis.asyncio`` session."""
    import contextlib
    import secrets

    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.sessions import SessionMiddleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    unauthorized = Response(b'{"detail":"Unauthorized"}', 401, media_type="application/json")
    ttl = 8 * 3600

    if options["backend"] == "cookie":

        async def page(request: Request) -> Response:
            session = request.session
            if "account_id" not in session:
                return unauthorized
            return JSONResponse(
                {"account_id": session["account_id"], "display_name": session["display_name"]}
            )

        async def login(request: Request) -> Response:
            request.session.update(ACCOUNT)
            return JSONResponse({"signed_in": True})

        middleware = [Middleware(SessionMiddleware, secret_key=SECRET, max_age=ttl)]
        app = Starlette(routes=[Route("/page", page), Route("/login", login)], middleware=middleware)
    else:
        from redis import asyncio as aioredis

        client = aioredis.from_url(options["redis_url"])

        async def page(request: Request) -> Response:
            sid = request.cookies.get("sid")
            raw = await client.get(f"session:{sid}") if sid else None
            if raw is None:
                return unauthorized
            session = json.loads(raw)
            return JSONResponse(
                {"account_id": session["account_id"], "display_name": session["display_name"]}
            )

        async def login(request: Request) -> Response:
            sid = secrets.token_urlsafe(32)
            await client.set(f"session:{sid}", json.dumps({**ACCOUNT, "created_at": time.time()}), ex=ttl)
            response = JSONResponse({"signed_in": True})
            response.set_cookie("sid", sid, max_age=ttl, httponly=True, samesite="lax")
            return response

        @contextlib.asynccontextmanager
        async def lifespan(_app: Starlette) -> Any:
            yield
            await client.aclose()

        app = Starlette(routes=[Route("/page", page), Route("/login", login)], lifespan=lifespan)
    return app


def litestar_app(options: dict[str, Any]) -> Any:
    """Litestar's client-side (AES-GCM cookie) or server-side (``RedisStore``) session."""
    from litestar import Litestar, Request, get
    from litestar.exceptions import NotAuthorizedException
    from litestar.middleware.session.client_side import CookieBackendConfig
    from litestar.middleware.session.server_side import ServerSideSessionConfig
    from litestar.stores.redis import RedisStore

    @get("/page")
    async def page(request: Request[Any, Any, Any]) -> dict[str, Any]:
        session = request.session
        if "account_id" not in session:
            raise NotAuthorizedException()
        return {"account_id": session["account_id"], "display_name": session["display_name"]}

    @get("/login")
    async def login(request: Request[Any, Any, Any]) -> dict[str, Any]:
        request.set_session(dict(ACCOUNT))
        return {"signed_in": True}

    stores: dict[str, Any] = {}
    if options["backend"] == "cookie":
        config: Any = CookieBackendConfig(secret=SECRET[:32].encode(), max_age=8 * 3600)
    else:
        config = ServerSideSessionConfig(max_age=8 * 3600)
        stores["sessions"] = RedisStore.with_client(url=options["redis_url"])
    return Litestar(route_handlers=[page, login], middleware=[config.middleware], stores=stores)


def build(kind: str, options: dict[str, Any]) -> Any:
    """The ASGI app of ``kind`` (``fw-cookie``, ``starlette-redis``...) with ``options``:
    ``port``, ``workdir`` and ``dsn`` (fw's unused relational store), ``redis_url``."""
    framework, _, backend = kind.partition("-")
    if framework == "fw":
        os.environ["AUTH_OIDC_CLIENT_SECRET"] = "bench-secret"
        os.environ["SESSION_KEYRING_SECRET"] = SECRET
    builders = {"fw": fw_app, "starlette": starlette_app, "litestar": litestar_app}
    return builders[framework]({**options, "backend": backend})


if __name__ == "__main__":
    import uvicorn

    options = json.loads(sys.argv[2])
    app = build(sys.argv[1], options)
    uvicorn.run(app, host="127.0.0.1", port=options["port"], log_level="warning", access_log=False)
