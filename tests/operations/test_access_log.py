"""The access log: one JSON line per request on ``fw.access``, after real requests through an fw
App wrapped in the request observer, with the fields and values DESIGN 10.4 names and nothing
a client sent beyond its method and path."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import datetime
from typing import Any

import pytest
from auth_jwt.config_file import jwt_only_toml
from starlette.testclient import TestClient

import fw
import fw.auth
from fw.operations.accesslog import ACCESS_LOGGER, AccessLog, AccessLogSettings, access_log_hook
from fw.operations.logsetup import HumanFormatter, JsonFormatter
from fw.operations.observer import build_observer
from fw.testing import configured
from fw.testing.issuer import LocalIssuer

#: DESIGN 10.4's fields, and the level and logger every line of fw's JSON logging carries.
FIELDS = {"time", "method", "route", "path", "status", "duration_ms", "request_id", "auth", "level", "logger"}


class Lines(logging.Handler):
    """The records written to one logger during a test."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def documents(self) -> list[dict[str, Any]]:
        return [json.loads(record.getMessage()) for record in self.records]


@pytest.fixture
def access_lines() -> Iterator[Lines]:
    logger = logging.getLogger(ACCESS_LOGGER)
    lines = Lines()
    logger.addHandler(lines)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        yield lines
    finally:
        logger.removeHandler(lines)
        logger.setLevel(level)


def make_app() -> fw.App:
    app = fw.App()

    @app.route("GET /orders/{id}")
    async def order(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"id": request.path_params["id"]})

    @app.route("POST /orders")
    async def create(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({}, status_code=201)

    @app.route("GET /boom")
    async def boom(request: fw.Request) -> fw.Response:
        raise RuntimeError("a bug")

    @app.route("GET /health")
    async def health(request: fw.Request) -> fw.Response:
        request.scope["fw.untracked"] = True
        return fw.JSONResponse({"status": "ok"})

    @app.route("GET /api/whoami")
    async def whoami(request: fw.Request) -> fw.Response:
        caller = fw.auth.bearer(request)
        return fw.JSONResponse({"account": caller.account_id if caller else None})

    return app


Serve = Callable[..., TestClient]


@pytest.fixture
def serve() -> Iterator[Serve]:
    """``serve(toml="")``: a client on an fw App configured with ``toml``, wrapped in the observer
    with the access log as its hook."""
    with ExitStack() as stack:

        def open_client(toml: str = "") -> TestClient:
            stack.enter_context(configured(toml=toml))
            app = build_observer(make_app(), [AccessLog()])
            return stack.enter_context(TestClient(app, raise_server_exceptions=False))

        yield open_client


def test_each_request_is_one_json_line_with_exactly_the_design_fields(
    serve: Serve, access_lines: Lines
) -> None:
    client = serve()
    before = time.time()
    response = client.get("/orders/7?secret=hunter2&page=3", headers={"X-Request-Id": "req-1"})
    assert response.status_code == 200
    [record] = access_lines.records
    assert record.levelno == logging.INFO and record.name == "fw.access"
    line = record.getMessage()
    assert "\n" not in line
    document = json.loads(line)
    assert set(document) == FIELDS
    assert (document["level"], document["logger"]) == ("info", "fw.access")
    assert document["method"] == "GET"
    assert document["route"] == "/orders/{id}"
    assert document["path"] == "/orders/7"
    assert document["status"] == 200
    assert document["request_id"] == "req-1" == response.headers["x-request-id"]
    assert document["auth"] == "none"
    assert isinstance(document["duration_ms"], float) and 0 <= document["duration_ms"] < 5000
    logged = datetime.fromisoformat(document["time"].replace("Z", "+00:00")).timestamp()
    assert before - 0.002 <= logged <= time.time()
    assert document["time"].endswith("Z")
    assert "hunter2" not in line and "page" not in line and "secret" not in line


def test_statuses_unmatched_requests_and_errors_are_logged_as_served(
    serve: Serve, access_lines: Lines
) -> None:
    client = serve()
    client.post("/orders", json={"card": "4111111111111111"})
    client.get("/no/such/page?q=private")
    client.get("/boom")
    client.delete("/orders/3")
    found = [(d["method"], d["route"], d["path"], d["status"]) for d in access_lines.documents()]
    assert found == [
        ("POST", "/orders", "/orders", 201),
        ("GET", "unmatched", "/no/such/page", 404),
        ("GET", "/boom", "/boom", 500),
        ("DELETE", "unmatched", "/orders/3", 405),
    ]
    text = "".join(record.getMessage() for record in access_lines.records)
    assert "4111" not in text and "private" not in text
    assert len({d["request_id"] for d in access_lines.documents()}) == 4


def test_a_request_marked_untracked_writes_no_line(serve: Serve, access_lines: Lines) -> None:
    client = serve()
    assert client.get("/health").status_code == 200
    assert access_lines.records == []


def test_the_auth_outcome_is_logged_and_the_token_never(serve: Serve, access_lines: Lines) -> None:
    with LocalIssuer() as issuer:
        client = serve(jwt_only_toml(issuer.url))
        token = issuer.mint("alice", audience="api")
        assert client.get("/api/whoami", headers={"Authorization": f"Bearer {token}"}).status_code == 200
        assert client.get("/api/whoami").status_code == 401
        assert client.get("/api/whoami", headers={"Authorization": f"Bearer {token}x"}).status_code == 401
        assert client.get("/orders/1").status_code == 200
    outcomes = [(d["route"], d["status"], d["auth"]) for d in access_lines.documents()]
    assert outcomes[0] == ("/api/whoami", 200, "allowed")
    assert outcomes[1][1:] == (401, "rejected")
    assert outcomes[2][1:] == (401, "rejected")
    assert outcomes[3][0] == "/orders/{id}" and outcomes[3][2] in ("anonymous", "none")
    text = "\n".join(record.getMessage() for record in access_lines.records)
    assert token not in text and token.split(".")[2] not in text and "Bearer" not in text


def test_the_access_log_is_off_unless_the_configuration_turns_it_on() -> None:
    with configured():
        assert access_log_hook() is None
    with configured(toml="[observability.access_log]\nenabled = true\n"):
        assert isinstance(access_log_hook(), AccessLog)
    with configured(env={"OBSERVABILITY_ACCESS_LOG_ENABLED": "true"}):
        assert fw.config(AccessLogSettings).enabled is True


def test_fws_formatters_write_the_access_line_with_level_and_logger(
    serve: Serve, access_lines: Lines
) -> None:
    serve().get("/orders/2?token=abc", headers={"X-Request-Id": "fmt"})
    [record] = access_lines.records
    document = json.loads(JsonFormatter().format(record))
    assert document["level"] == "info" and document["logger"] == "fw.access"
    assert set(document) == FIELDS
    assert JsonFormatter().format(record) == record.getMessage()
    assert document["route"] == "/orders/{id}"
    human = HumanFormatter().format(record)
    assert "\n" not in human
    assert "GET /orders/2 200" in human and "route=/orders/{id}" in human and "[fmt]" in human
    assert "abc" not in human


def test_an_access_logger_above_info_costs_no_line(serve: Serve, access_lines: Lines) -> None:
    logging.getLogger(ACCESS_LOGGER).setLevel(logging.WARNING)
    serve().get("/orders/1")
    assert access_lines.records == []
