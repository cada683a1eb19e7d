"""The request observer around an fw App: request IDs taken, made and echoed; the status and time
each hook sees; the request ID in every problem document and problem page."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.types import Receive, Scope, Send

import fw
from fw.operations.observer import REQUEST_ID_KEY, RequestHook, build_observer, current_request_id
from fw.testing import configured

GENERATED = re.compile(r"[0-9a-f]{32}")


class Recorder:
    """A hook keeping what it was told: the request ID at start, then state, status, duration."""

    def __init__(self) -> None:
        self.started: list[str | None] = []
        self.finished: list[tuple[object, str | None, int, float]] = []

    def start(self, scope: Scope) -> object:
        self.started.append(scope.get(REQUEST_ID_KEY))
        return f"state {len(self.started)}"

    def finish(self, state: object, scope: Scope, status: int, duration: float) -> None:
        self.finished.append((state, scope.get(REQUEST_ID_KEY), status, duration))


def make_app() -> fw.App:
    app = fw.App()

    @app.route("GET /orders/{id}")
    async def order(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"id": request.path_params["id"], "request_id": current_request_id()})

    @app.route("GET /slow")
    async def slow(request: fw.Request) -> fw.Response:
        await asyncio.sleep(0.05)
        return fw.JSONResponse({})

    @app.route("GET /boom")
    async def boom(request: fw.Request) -> fw.Response:
        raise RuntimeError("a bug")

    @app.route("GET /teapot")
    async def teapot(request: fw.Request) -> fw.Response:
        raise fw.Problem("no coffee here", status=418, code="teapot")

    @app.route("GET /health")
    async def health(request: fw.Request) -> fw.Response:
        request.scope["fw.untracked"] = True
        return fw.JSONResponse({"status": "ok"})

    return app


Serve = Callable[..., TestClient]


@pytest.fixture
def serve() -> Iterator[Serve]:
    """``serve(*hooks, untracked=())``: a client on an fw App wrapped in the observer."""
    with ExitStack() as stack:

        def open_client(*hooks: RequestHook, untracked: tuple[str, ...] = ()) -> TestClient:
            stack.enter_context(configured())
            app = build_observer(make_app(), list(hooks), untracked)
            return stack.enter_context(TestClient(app, raise_server_exceptions=False))

        yield open_client


def test_a_well_formed_request_id_is_taken_echoed_and_current_while_serving(serve: Serve) -> None:
    hook = Recorder()
    client = serve(hook)
    response = client.get("/orders/7", headers={"X-Request-Id": "edge-4f.A_9"})
    assert response.headers["x-request-id"] == "edge-4f.A_9"
    assert response.json() == {"id": "7", "request_id": "edge-4f.A_9"}
    assert hook.started == ["edge-4f.A_9"]
    assert [(state, seen, status) for state, seen, status, _ in hook.finished] == [
        ("state 1", "edge-4f.A_9", 200)
    ]


def test_a_request_without_an_id_gets_a_new_one_each_time(serve: Serve) -> None:
    client = serve(Recorder())
    first = client.get("/orders/1")
    second = client.get("/orders/1")
    ids = [first.headers["x-request-id"], second.headers["x-request-id"]]
    assert all(GENERATED.fullmatch(found) for found in ids)
    assert ids[0] != ids[1]
    assert first.json()["request_id"] == ids[0]
    assert current_request_id() is None  # nothing left behind outside the request


def test_an_id_of_128_characters_is_the_longest_taken(serve: Serve) -> None:
    client = serve()
    longest = "a" * 128
    assert client.get("/orders/1", headers={"X-Request-Id": longest}).headers["x-request-id"] == longest
    replaced = client.get("/orders/1", headers={"X-Request-Id": longest + "a"}).headers["x-request-id"]
    assert GENERATED.fullmatch(replaced)


@pytest.mark.parametrize("given", ["", "two words", "a/b", "<script>", "id;drop", "caf\xe9", "%41", "a:b"])
def test_a_malformed_request_id_is_replaced_by_a_new_one(serve: Serve, given: str) -> None:
    hook = Recorder()
    client = serve(hook)
    response = client.get("/orders/1", headers={"X-Request-Id": given.encode("latin-1")})
    echoed = response.headers["x-request-id"]
    assert GENERATED.fullmatch(echoed), echoed
    assert response.json()["request_id"] == echoed == hook.started[0]


def test_hooks_see_the_status_and_the_time_a_request_took(serve: Serve) -> None:
    hook = Recorder()
    client = serve(hook)
    assert client.get("/slow").status_code == 200
    assert client.get("/teapot").status_code == 418
    assert client.get("/nowhere").status_code == 404
    statuses = [status for _, _, status, _ in hook.finished]
    assert statuses == [200, 418, 404]
    slow = hook.finished[0][3]
    assert 0.05 <= slow < 5
    assert all(0 <= duration < 5 for *_, duration in hook.finished)


def test_a_handler_that_raises_is_a_500_to_every_hook(serve: Serve) -> None:
    hook = Recorder()
    response = serve(hook).get("/boom")
    assert response.status_code == 500
    assert hook.finished[0][2] == 500


def test_an_app_that_raises_before_answering_is_a_500_and_the_error_reaches_the_server() -> None:
    async def broken(scope: Scope, receive: Receive, send: Send) -> None:
        raise RuntimeError("before any response")

    hook = Recorder()
    client = TestClient(build_observer(broken, [hook]))  # no lifespan: the app only serves requests
    with pytest.raises(RuntimeError, match="before any"):
        client.get("/")
    assert [(state, status) for state, _, status, _ in hook.finished] == [("state 1", 500)]


def test_a_hook_that_raises_changes_nothing_and_the_others_still_finish(serve: Serve) -> None:
    class Broken(Recorder):
        def finish(self, state: object, scope: Scope, status: int, duration: float) -> None:
            raise ValueError("hook bug")

    after = Recorder()
    client = serve(Broken(), after)
    assert client.get("/orders/3").json()["id"] == "3"
    assert [status for _, _, status, _ in after.finished] == [200]


def test_untracked_paths_and_requests_marked_before_arriving_reach_no_hook(serve: Serve) -> None:
    hook = Recorder()
    client = serve(hook, untracked=("/orders/9",))
    response = client.get("/orders/9", headers={"X-Request-Id": "probe-1"})
    assert response.headers["x-request-id"] == "probe-1"  # the ID is still taken and echoed
    assert hook.started == [] and hook.finished == []

    async def marking(scope: Scope, receive: Receive, send: Send) -> None:
        scope["fw.untracked"] = True
        await inner(scope, receive, send)

    with configured():
        inner = build_observer(make_app(), [hook])
        with TestClient(marking) as marked:
            assert marked.get("/orders/1").status_code == 200
    assert hook.started == [] and hook.finished == []


def test_a_request_marked_untracked_while_served_still_finishes_what_it_started(serve: Serve) -> None:
    hook = Recorder()
    serve(hook).get("/health")
    assert len(hook.started) == len(hook.finished) == 1  # each hook then skips it itself


def test_the_app_starts_and_stops_through_the_observer() -> None:
    events: list[str] = []
    with configured():
        app = make_app()
        app.on_startup(lambda: _note(events, "started"))
        app.on_shutdown(lambda: _note(events, "stopped"))
        with TestClient(build_observer(app, [Recorder()])) as client:
            assert events == ["started"]
            assert client.get("/orders/5").status_code == 200
    assert events == ["started", "stopped"]


async def _note(events: list[str], event: str) -> None:
    events.append(event)


# The request ID in problem documents and pages.


def test_every_problem_document_carries_the_request_id(serve: Serve) -> None:
    client = serve()
    for path, status in (("/teapot", 418), ("/nowhere", 404), ("/boom", 500)):
        response = client.get(path, headers={"X-Request-Id": f"trace{status}"})
        assert response.status_code == status
        assert response.headers["content-type"].startswith("application/problem+json")
        document: dict[str, Any] = response.json()
        assert document["request_id"] == f"trace{status}"
        assert document["status"] == status
        assert int(response.headers["content-length"]) == len(response.content)
    teapot = client.get("/teapot", headers={"X-Request-Id": "t"}).json()
    assert teapot == {
        "type": "about:blank",
        "title": "I'm a Teapot",
        "status": 418,
        "detail": "no coffee here",
        "code": "teapot",
        "request_id": "t",
    }


def test_a_response_that_is_no_problem_document_is_left_as_it_was(serve: Serve) -> None:
    response = serve().get("/orders/8")
    assert (
        "request_id" not in response.json()
        or response.json()["request_id"] == response.headers["x-request-id"]
    )
    assert response.json()["id"] == "8"
    assert int(response.headers["content-length"]) == len(response.content)


def test_the_problem_page_a_person_sees_shows_the_request_id(serve: Serve) -> None:
    client = serve()
    page = client.get("/teapot", headers={"Accept": "text/html", "X-Request-Id": "ask-support-42"})
    assert page.status_code == 418
    assert page.headers["content-type"].startswith("text/html")
    assert "ask-support-42" in page.text
    assert page.headers["x-request-id"] == "ask-support-42"


def test_a_head_request_for_a_problem_gets_no_body(serve: Serve) -> None:
    response = serve().head("/nowhere", headers={"X-Request-Id": "h"})
    assert response.status_code == 404
    assert response.content == b""
    assert response.headers["x-request-id"] == "h"
