"""A response that depends on the session is never stored by a cache (``Cache-Control: no-store``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from auth_oidc.support import layers

import fw
from fw.testing import BrowserClient, TestIdentityProvider, configured


def make_app() -> fw.App:
    app = fw.App()

    @app.route("GET /greeting")
    async def greeting(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)  # the page now depends on who is signed in
        response = fw.JSONResponse({"user": user.account_id if user else None})
        response.headers["cache-control"] = "private, max-age=60"
        return response

    @app.route("GET /news")
    async def news(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"news": []}, headers={"cache-control": "public, max-age=60"})

    @app.route("GET /strict")
    async def strict(request: fw.Request) -> fw.Response:
        fw.auth.user(request)
        return fw.JSONResponse({}, headers={"cache-control": "private, no-store"})

    return app


@contextlib.contextmanager
def browser(idp: TestIdentityProvider, dsn: str) -> Iterator[BrowserClient]:
    settings = layers(idp.issuer, dsn, client_id=idp.client_id, client_secret=idp.client_secret)
    with configured(**settings), BrowserClient(make_app(), idp, base_url="http://localhost:8000") as client:
        yield client


def test_a_page_that_asked_who_is_signed_in_is_no_store_even_for_an_anonymous_visitor(
    idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    with browser(idp, sqlite_dsn) as client:
        response = client.get("/greeting")
        assert response.json() == {"user": None}
        assert response.headers["cache-control"] == "no-store"


def test_a_page_independent_of_the_session_keeps_its_caching_for_anonymous_visitors(
    idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    with browser(idp, sqlite_dsn) as client:
        assert client.get("/news").headers["cache-control"] == "public, max-age=60"


def test_every_answer_to_a_signed_in_request_is_no_store(idp: TestIdentityProvider, sqlite_dsn: str) -> None:
    with browser(idp, sqlite_dsn) as client:
        client.login("alice")
        greeting = client.get("/greeting")
        assert greeting.json()["user"] is not None
        assert greeting.headers["cache-control"] == "no-store"
        assert client.get("/news").headers["cache-control"] == "no-store"
        assert client.get("/nowhere").headers["cache-control"] == "no-store"


def test_a_handler_that_forbade_storing_keeps_its_own_words(
    idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    with browser(idp, sqlite_dsn) as client:
        assert client.get("/strict").headers["cache-control"] == "private, no-store"
        client.login("alice")
        assert client.get("/strict").headers["cache-control"] == "private, no-store"


def test_the_sign_in_redirect_is_no_store(idp: TestIdentityProvider, sqlite_dsn: str) -> None:
    with browser(idp, sqlite_dsn) as client:
        assert client.get("/auth/login", follow_redirects=False).headers["cache-control"] == "no-store"
