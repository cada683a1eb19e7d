from __future__ import annotations

import pytest
from starlette.testclient import TestClient

import fw
from fw import extension as extension_module
from fw.core.middleware import Middleware
from fw.core.routes import Route
from fw.routing import parse_pattern


def make_app() -> fw.App:
    app = fw.App()

    @app.route("GET /users/{id}")
    async def show(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"id": request.path_params["id"]})

    @app.route("/any")
    def any_method(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"method": request.method})

    @app.route("GET /files/{rest...}")
    async def files(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"rest": request.path_params["rest"]})

    @app.route("GET /boom")
    async def boom(request: fw.Request) -> fw.Response:
        raise RuntimeError("secret internal detail")

    @app.route("POST /invalid")
    async def invalid(request: fw.Request) -> fw.Response:
        raise fw.validation(fw.field("email", "payload", "must be a valid email"))

    return app


def test_a_method_pattern_matches_only_that_method_and_others_get_405() -> None:
    with TestClient(make_app()) as client:
        assert client.get("/users/7").json() == {"id": "7"}
        response = client.post("/users/7")
        assert response.status_code == 405
        assert response.headers["content-type"] == "application/problem+json"
        assert "GET" in response.headers["allow"]


def test_a_pattern_without_method_matches_every_method_and_sync_handlers_run() -> None:
    with TestClient(make_app()) as client:
        assert client.delete("/any").json() == {"method": "DELETE"}
        assert client.put("/any").json() == {"method": "PUT"}


def test_a_rest_wildcard_takes_the_remaining_path() -> None:
    with TestClient(make_app()) as client:
        assert client.get("/files/a/b/c.txt").json() == {"rest": "a/b/c.txt"}


def test_an_unhandled_error_is_an_opaque_500_problem() -> None:
    with TestClient(make_app(), raise_server_exceptions=False) as client:
        response = client.get("/boom")
    assert response.status_code == 500
    assert response.headers["content-type"] == "application/problem+json"
    assert "secret" not in response.text
    assert response.json()["code"] == "internal_error"
    assert "errors" not in response.json()


def test_an_uncaught_bind_error_is_the_400_problem_document() -> None:
    with TestClient(make_app()) as client:
        response = client.post("/invalid")
    assert response.status_code == 400
    assert response.json() == {
        "type": "about:blank",
        "title": "Validation failed",
        "status": 400,
        "detail": "Validation failed",
        "code": "validation_failed",
        "errors": [{"field": "email", "location": "payload", "message": "must be a valid email"}],
    }


def test_unknown_paths_are_404_problems() -> None:
    with TestClient(make_app()) as client:
        response = client.get("/nope")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_malformed_patterns_are_refused_with_the_reason() -> None:
    import pytest

    for bad, reason in [
        ("FETCH /x", "unknown method"),
        ("GET x", "must start with '/'"),
        ("GET /a/{id}/{id}", "appears twice"),
        ("GET /a/{rest...}/b", "must end the pattern"),
        ("GET /a/{1x}", "bad wildcard name"),
    ]:
        with pytest.raises(ValueError, match=reason):
            parse_pattern(bad)


def test_routes_cannot_be_added_after_start() -> None:
    import pytest

    app = make_app()
    with TestClient(app), pytest.raises(RuntimeError, match="after the App has started"):
        app.add_route("GET /late", lambda request: fw.Response())


def test_a_refusal_to_start_reaches_a_test_client_as_the_startup_error() -> None:
    import pytest

    app = make_app()

    @app.on_startup
    async def refuse() -> None:
        raise fw.StartupError("app.mode", "chaos", "use one of: calm, busy")

    with pytest.raises(fw.StartupError, match=r"app\.mode"), TestClient(app):
        pass


def test_a_refusal_to_start_under_plain_uvicorn_is_one_line_without_traceback(tmp_path: object) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "SERVER_PORT": "70000", "APP_ENV": "dev"}
    result = subprocess.run(
        [sys.executable, "-m", "uvicorn", "--app-dir", str(root), "examples.hello.app:app", "--port", "0"],
        cwd=str(tmp_path),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "fw: server.port = 70000: use a port from 0 to 65535" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.returncode != 0


# Pillars: the App composes what the registered extension factories build.
class _Greeter:
    """A pillar's extension: one route, and whether its startup ran."""

    def __init__(self) -> None:
        self.started = False

    def routes(self) -> list[Route]:
        async def hello(request: fw.Request) -> fw.Response:
            return fw.JSONResponse({"started": self.started})

        return [Route("/hello", hello, methods=["GET"])]

    def middleware(self) -> list[Middleware]:
        return []

    async def startup(self) -> None:
        self.started = True

    async def shutdown(self) -> None:
        self.started = False


def test_an_app_composes_the_extension_of_every_registered_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[_Greeter] = []

    def greeter(app: object) -> _Greeter:
        built.append(_Greeter())
        return built[-1]

    monkeypatch.setattr(extension_module, "_factories", [])
    extension_module.register_extension(greeter)
    extension_module.register_extension(greeter)  # the same factory twice is composed once
    extension_module.register_extension(lambda app: None)  # a pillar that is off adds nothing
    with TestClient(fw.App()) as client:
        assert client.get("/hello").json() == {"started": True}
    with TestClient(fw.App()) as client:  # each App gets its own extension
        assert client.get("/hello").json() == {"started": True}
    assert len(built) == 2 and not built[0].started
