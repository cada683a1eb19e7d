"""Apps with guarded handlers, configured the way an application is (TOML and environment).

:func:`guarded_app` registers one page and one API per kind of requirement; :func:`policies_toml`
writes ``[[auth.assurance.policy]]`` entries after the tables :func:`auth_oidc.support.layers`
wrote (keys after a ``[[...]]`` header belong to that element, so they come last).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Mapping, Sequence
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from auth_oidc.support import provider_layers
from pillars import the_pillar

import fw
from fw.auth.sessions.manager import SESSION_COOKIE, SessionSummary
from fw.testing import BrowserClient, TestIdentityProvider, configured

#: Policies every test app configures: a working window and a boundary, as the spec advises.
POLICIES: tuple[Mapping[str, Any], ...] = (
    {"name": "read_settings", "max_age": "5m", "confirm": False},
    {"name": "write_settings", "max_age": "6m", "confirm": True},
    {"name": "each_time", "max_age": "0s", "confirm": False},
)


def policies_toml(entries: Sequence[Mapping[str, Any]]) -> str:
    text = ""
    for entry in entries:
        text += "[[auth.assurance.policy]]\n"
        for key, value in entry.items():
            rendered = ("true" if value else "false") if isinstance(value, bool) else f'"{value}"'
            text += f"{key} = {rendered}\n"
    return text


# Each test app declares its own routes, as a project would; they share a route's shape, not code.
def guarded_app() -> fw.App:
    """Pages and APIs behind each kind of guard, plus ``/me`` showing the session."""
    app = fw.App()

    @app.route("GET /me")
    async def me(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        if user is None:
            return fw.JSONResponse({"signed_in": False})
        return fw.JSONResponse({"signed_in": True, "account_id": user.account_id, "key": user.key})

    @app.route("GET /account")
    async def account(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": "account"})

    @app.route("GET /settings")
    @fw.auth.ensure(fw.auth.max_age(timedelta(minutes=5)))
    async def settings(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": "settings"})

    @app.route("GET /api/settings")
    @fw.auth.ensure_api(fw.auth.max_age(timedelta(minutes=5)))
    async def api_settings(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"settings": True})

    @app.route("GET /confirmed")
    @fw.auth.ensure(fw.auth.confirmed(timedelta(minutes=5)))
    async def confirmed_page(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": "confirmed"})

    @app.route("POST /account/delete")
    @fw.auth.ensure(fw.auth.confirmed(timedelta(0)))
    async def delete_account(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"deleted": True})

    @app.route("GET /once")
    @fw.auth.ensure(fw.auth.confirmed(timedelta(0)))
    async def once(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": "once"})

    @app.route("GET /policy/{name}")
    async def by_policy(request: fw.Request) -> fw.Response:
        name = request.path_params["name"]
        handler = fw.auth.ensure(_policy_page, fw.auth.policy(name))  # resolved per request
        return await handler(request)

    @app.route("GET /reading")
    @fw.auth.ensure(fw.auth.policy("read_settings"))
    async def reading(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": "reading"})

    @app.route("POST /api/writing")
    @fw.auth.ensure_api(fw.auth.policy("write_settings"))
    async def writing(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"written": True})

    @app.route("POST /api/once")
    @fw.auth.ensure_api(fw.auth.policy("each_time"))
    async def api_once(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"done": True})

    return app


async def _policy_page(request: fw.Request) -> fw.Response:
    return fw.JSONResponse({"page": "policy"})


@contextlib.contextmanager
def open_guarded(
    provider: TestIdentityProvider | str,
    dsn: str,
    *,
    policies: Sequence[Mapping[str, Any]] = POLICIES,
    base_url: str = "http://localhost:8000",
    **changes: Any,
) -> Iterator[tuple[BrowserClient, fw.App]]:
    """A browser-like client on :func:`guarded_app` in ``oidc_only`` (lifespan on), and the App."""
    arguments = provider_layers(provider, dsn, **changes)
    arguments["toml"] += policies_toml(policies)
    with configured(**arguments):
        app = guarded_app()
        with BrowserClient(app, provider, base_url=base_url) as client:
            yield client, app


def step_up_location(response: httpx2.Response) -> tuple[str, dict[str, list[str]]]:
    """The path and query of a guard's redirect to the login path."""
    assert response.status_code == 303, (response.status_code, response.text)
    location = urlsplit(response.headers["location"])
    return location.path, parse_qs(location.query)


def read_session(client: BrowserClient, app: fw.App) -> SessionSummary | None:
    """The browser's session as the store keeps it (``None``: none), read on the App's own loop."""
    value = client.cookies.get(SESSION_COOKIE)
    if not value:
        return None
    extension = the_pillar(app)
    sessions = extension.sessions if hasattr(extension, "sessions") else extension.oidc.sessions
    active = client.portal.call(sessions.resume, value)  # type: ignore[union-attr]
    return active.summary if active is not None else None


def concurrently(client: BrowserClient, app: fw.App, method: str, path: str, copies: int = 2) -> list[int]:
    """Send ``copies`` identical requests with the browser's cookies at once; their statuses."""

    async def send_all() -> list[int]:
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(
            transport=transport,
            base_url=str(client.base_url),
            cookies={SESSION_COOKIE: client.cookies.get(SESSION_COOKIE) or ""},
        ) as async_client:
            answers = await asyncio.gather(
                *(async_client.request(method, path, follow_redirects=False) for _ in range(copies))
            )
        return [answer.status_code for answer in answers]

    return client.portal.call(send_all)  # type: ignore[union-attr]


def suspend_quietly(client: BrowserClient, app: fw.App, account_id: str) -> None:
    """Suspend an account in the store only: its session learns it at the next re-read (30 s)."""
    extension = the_pillar(app)
    store = extension.auth_store  # type: ignore[attr-defined]
    assert client.portal.call(store.accounts.set_active, account_id, False)  # type: ignore[union-attr]
