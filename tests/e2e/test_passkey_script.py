"""passkey.js in a real browser: headless Chromium with the DevTools virtual authenticator runs
``fwPasskey.bootstrap()``, ``register()`` and ``login()`` against minimal ceremony endpoints built on
fw.auth.webauthn, with the browser's own JSON helpers and with the script's Base64url fallback."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from e2e.support import free_port
from e2e.webauthn import PasskeyBrowser, passkey_browser
from fw.auth.webauthn import (
    SCRIPT_MEDIA_TYPE,
    KnownCredential,
    PasskeyRejected,
    Rejection,
    RelyingParty,
    authentication_options,
    new_challenge,
    parse_authentication_response,
    parse_registration_response,
    passkey_script,
    registration_options,
    verify_authentication,
    verify_registration,
)
from fw.base64url import encode
from fw.problems import Problem

USER_HANDLE = b"smoke-account"
PAGE = '<!doctype html><title>passkeys</title><script src="/auth/passkey/passkey.js"></script>'
COPY_PAGE = '<!doctype html><title>copy</title><script src="/passkey.js" data-path="/auth/passkey"></script>'
#: Deleting these makes passkey.js take its own Base64url path, as in browsers without Level 3 JSON.
WITHOUT_JSON_HELPERS = """
delete PublicKeyCredential.parseCreationOptionsFromJSON;
delete PublicKeyCredential.parseRequestOptionsFromJSON;
delete PublicKeyCredential.prototype.toJSON;
"""


@dataclass
class Ceremonies:
    """In-memory ceremony state and credentials: the least a server needs to run passkey.js."""

    party: RelyingParty
    challenges: dict[str, bytes] = field(default_factory=dict)
    credentials: dict[bytes, KnownCredential] = field(default_factory=dict)
    #: The query string of each ``login/begin`` request, in order.
    login_queries: list[str] = field(default_factory=list)

    async def register_begin(self, request: Request) -> Response:
        challenge = self.challenges["register"] = new_challenge()
        options = registration_options(
            self.party,
            challenge=challenge,
            user_handle=USER_HANDLE,
            user_name="ada@example.test",
            display_name="Ada",
            exclude=list(self.credentials),
        )
        return JSONResponse(options)

    async def register_finish(self, request: Request) -> Response:
        response = parse_registration_response(await request.json())
        registered = verify_registration(
            response, party=self.party, challenge=self.challenges.pop("register")
        )
        self.credentials[registered.credential_id] = KnownCredential(
            registered.credential_id,
            registered.public_key,
            registered.sign_count,
            USER_HANDLE,
            registered.backup_eligible,
        )
        return JSONResponse({"credential_id": encode(registered.credential_id)})

    async def login_begin(self, request: Request) -> Response:
        self.login_queries.append(request.url.query)
        challenge = self.challenges["login"] = new_challenge()
        return JSONResponse(authentication_options(self.party, challenge=challenge))

    async def login_finish(self, request: Request) -> Response:
        response = parse_authentication_response(await request.json())
        known = self.credentials.get(response.credential_id)
        verified = verify_authentication(
            response, party=self.party, challenge=self.challenges.pop("login"), credential=known
        )
        assert known is not None
        self.credentials[known.credential_id] = KnownCredential(
            known.credential_id,
            known.public_key,
            verified.sign_count,
            known.user_handle,
            known.backup_eligible,
        )
        return JSONResponse({"landing": "/"})

    async def bootstrap(self, request: Request) -> Response:
        body = await request.json()
        if body != {"login_id": "ada", "secret": "one-time-secret"}:
            raise PasskeyRejected(Rejection.UNKNOWN_CREDENTIAL)
        return JSONResponse({"next": "/auth/passkey/register/begin"})

    def app(self) -> Starlette:
        async def page(request: Request) -> Response:
            return HTMLResponse(PAGE if request.url.path == "/" else COPY_PAGE)

        async def script(request: Request) -> Response:
            return Response(passkey_script(), media_type=SCRIPT_MEDIA_TYPE)

        async def problem(request: Request, exc: Exception) -> Response:
            assert isinstance(exc, Problem)
            return exc.response()

        base = "/auth/passkey"
        return Starlette(
            routes=[
                Route("/", page),
                Route("/copy", page),
                Route(f"{base}/passkey.js", script),
                Route("/passkey.js", script),
                Route(f"{base}/register/begin", self.register_begin, methods=["POST"]),
                Route(f"{base}/register/finish", self.register_finish, methods=["POST"]),
                Route(f"{base}/login/begin", self.login_begin, methods=["POST"]),
                Route(f"{base}/login/finish", self.login_finish, methods=["POST"]),
                Route(f"{base}/bootstrap", self.bootstrap, methods=["POST"]),
            ],
            exception_handlers={Problem: problem},
        )


@contextlib.contextmanager
def _serving(app: Starlette, port: int) -> Iterator[None]:
    """The app under uvicorn in a thread on 127.0.0.1, stopped (only it) afterwards."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the test server did not start"
        time.sleep(0.05)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@dataclass
class Site:
    origin: str
    ceremonies: Ceremonies
    browser: PasskeyBrowser

    def run(self, call: str) -> Any:
        """Evaluate ``call`` (a fwPasskey promise) in the page; a rejection comes back as
        ``{"rejected": <problem>}`` instead of raising, so a test can inspect the document."""
        return self.browser.page.evaluate(
            f"() => {call}.then((value) => value, (problem) => ({{rejected: problem}}))"
        )


@pytest.fixture(params=["native JSON helpers", "Base64url fallback"])
def site(request: pytest.FixtureRequest) -> Iterator[Site]:
    port = free_port()
    origin = f"http://localhost:{port}"
    ceremonies = Ceremonies(RelyingParty("localhost", "fw passkey smoke test", (origin,)))
    with _serving(ceremonies.app(), port), passkey_browser() as browser:
        if request.param == "Base64url fallback":
            browser.page.add_init_script(WITHOUT_JSON_HELPERS)
        browser.page.goto(f"{origin}/")
        helpers = browser.page.evaluate(
            """() => [PublicKeyCredential.parseCreationOptionsFromJSON,
                      PublicKeyCredential.parseRequestOptionsFromJSON,
                      PublicKeyCredential.prototype.toJSON].map((helper) => typeof helper)"""
        )
        assert set(helpers) == {"function" if request.param == "native JSON helpers" else "undefined"}
        yield Site(origin, ceremonies, browser)


def test_a_passkey_registered_through_passkey_js_signs_in_through_it(site: Site) -> None:
    assert site.browser.page.evaluate("() => window.fwPasskey.path") == "/auth/passkey"

    registered = site.run("window.fwPasskey.register()")

    [credential_id] = site.ceremonies.credentials
    assert registered == {"credential_id": encode(credential_id)}
    [held] = site.browser.authenticator.credentials()
    assert held["isResidentCredential"] and held["rpId"] == "localhost"

    assert site.run("window.fwPasskey.login()") == {"landing": "/"}
    assert site.run("window.fwPasskey.login()") == {"landing": "/"}
    assert site.ceremonies.credentials[credential_id].sign_count == held["signCount"] + 2


def test_bootstrap_redeems_the_secret_then_registers(site: Site) -> None:
    assert site.run('window.fwPasskey.bootstrap("ada", "wrong")')["rejected"]["status"] == 403
    assert not site.ceremonies.credentials

    registered = site.run('window.fwPasskey.bootstrap("ada", "one-time-secret")')

    [credential_id] = site.ceremonies.credentials
    assert registered == {"credential_id": encode(credential_id)}


def test_a_refused_sign_in_rejects_with_the_problem_document(site: Site) -> None:
    site.run("window.fwPasskey.register()")
    site.ceremonies.credentials.clear()  # the server no longer knows the credential

    answer = site.run("window.fwPasskey.login()")

    assert answer == {
        "rejected": {
            "type": "about:blank",
            "title": "Passkey not accepted",
            "status": 403,
            "detail": "The passkey could not be verified.",
            "code": "passkey_rejected",
        }
    }


def test_a_copy_of_the_script_served_elsewhere_finds_the_endpoints_by_its_data_path(site: Site) -> None:
    site.browser.page.goto(f"{site.origin}/copy")
    assert site.browser.page.evaluate("() => window.fwPasskey.path") == "/auth/passkey"
    assert "credential_id" in site.run("window.fwPasskey.register()")


def test_login_hands_the_operation_and_return_path_in_the_page_url_to_login_begin(site: Site) -> None:
    site.run("window.fwPasskey.register()")
    site.browser.page.goto(f"{site.origin}/?max_age=0&next=%2Fonce&operation=1GReC5Zw0nanv6YL32Dc2g")
    assert site.run("window.fwPasskey.login()") == {"landing": "/"}
    assert site.run('window.fwPasskey.login({operation: "named/here"})') == {"landing": "/"}
    site.browser.page.goto(f"{site.origin}/")
    assert site.run("window.fwPasskey.login()") == {"landing": "/"}
    assert site.ceremonies.login_queries == [
        "operation=1GReC5Zw0nanv6YL32Dc2g&next=%2Fonce",
        "operation=named%2Fhere&next=%2Fonce",
        "",
    ]
