"""The browser-session middleware's decision: requests it lets on without the store, and the rest.

A request without a session cookie, to a path that needs none, with presence and the remembered
visitor off, goes straight on (the assurance context recorded), with nothing awaited; everything
else gets an awaitable decision that resumes the session and sets cookies.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from fw.auth.assurance.context import CONTEXT_KEY
from fw.auth.browser.middleware import BrowserAuth, BrowserSessionMiddleware
from fw.auth.caller import SCOPE_KEY
from fw.auth.outcome import OUTCOME_KEY
from fw.auth.protection import Protection


def _no_sessions() -> Any:
    raise AssertionError("the hook consulted the session store")


def _middleware(*, assurance: Any = None, presence: Any = None) -> BrowserSessionMiddleware:
    auth = BrowserAuth(
        sessions=_no_sessions,
        accounts=None,  # type: ignore[arg-type]  # never asked by the hook
        protection=Protection.from_patterns(["/app/**"], ["/app/public"]),
        login_path="/auth/login",
        unauthenticated="redirect",
        exempt=frozenset({"/auth/login"}),
        assurance=assurance,
        presence=presence,
    )
    return BrowserSessionMiddleware(auth)


def _scope(path: str, *headers: tuple[bytes, bytes]) -> dict[str, Any]:
    return {"type": "http", "method": "GET", "path": path, "headers": [(b"host", b"app.example"), *headers]}


@pytest.mark.parametrize("path", ["/", "/about", "/app/public", "/auth/login"])
def test_a_request_without_a_session_cookie_to_an_open_path_goes_on_without_the_store(path: str) -> None:
    middleware = _middleware()
    scope = _scope(path, (b"cookie", b"theme=dark; lang=en"))
    assert middleware.decide(scope) is None
    assert SCOPE_KEY not in scope  # anonymous: nobody recorded
    assert scope[OUTCOME_KEY] == ("browser", "anonymous", "")


def test_the_assurance_context_is_recorded_for_the_guards_when_a_request_goes_on() -> None:
    context = object()
    scope = _scope("/about")
    assert _middleware(assurance=context).decide(scope) is None
    assert scope[CONTEXT_KEY] is context


@pytest.mark.parametrize(
    ("path", "cookie"),
    [
        ("/about", b"fw_session=abc"),  # a session to resume
        ("/about", b"theme=dark; fw_session=abc"),
        ("/about", b"note=fw_session"),  # the name anywhere: the serving path parses the cookies
        ("/app/orders", None),  # a protected path: the refusal (a redirect or a 401) is built there
    ],
)
def test_a_request_with_a_session_cookie_or_to_a_protected_path_gets_an_awaitable_decision(
    path: str, cookie: bytes | None
) -> None:
    middleware = _middleware()
    headers = [(b"cookie", cookie)] if cookie is not None else []
    decision = middleware.decide(_scope(path, *headers))
    assert inspect.iscoroutine(decision)
    decision.close()


def test_with_presence_or_the_remembered_visitor_on_every_request_is_decided_by_awaiting() -> None:
    decision = _middleware(presence=object()).decide(_scope("/about"))
    assert inspect.iscoroutine(decision)
    decision.close()


def test_a_websocket_handshake_is_not_the_session_middlewares_to_decide() -> None:
    scope = {"type": "websocket", "path": "/app/live", "headers": [(b"cookie", b"fw_session=abc")]}
    assert _middleware().decide(scope) is None
