"""fw's own logging: one line per event (JSON off a terminal, readable on one) with time, level,
logger, message and request ID; fw's INFO events kept; no SQL parameter, code, token or cookie
in any line; and an application's own logging configuration left in charge."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import logging.config
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import pytest
from auth_oidc.support import layers, make_app
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from starlette.testclient import TestClient

import fw
from fw.operations.accesslog import AccessLog
from fw.operations.logsetup import (
    HumanFormatter,
    JsonFormatter,
    RequestIdFilter,
    configure_logging,
    drop_query_values,
)
from fw.operations.observer import build_observer
from fw.rdb.engine import create_engine, describe_error
from fw.testing import BrowserClient, TestIdentityProvider, configured

_TOUCHED = ("uvicorn.access", "httpx", "httpx2", "httpcore")


Clear = Callable[[], logging.Logger]


@pytest.fixture
def bare_root() -> Iterator[Clear]:
    """``clear()``: the root logger with no handler, as in a fresh ``fw run`` process, from then
    on in the test (pytest adds its capturing handler to the root logger for each phase, so it is
    taken off inside the test); everything is put back afterwards."""
    root = logging.getLogger()
    at_setup, level = list(root.handlers), root.level
    kept = {
        name: (
            logging.getLogger(name).level,
            list(logging.getLogger(name).filters),
            logging.getLogger(name).propagate,
        )
        for name in _TOUCHED
    }
    removed: list[logging.Handler] = []

    def clear() -> logging.Logger:
        for handler in list(root.handlers):
            root.removeHandler(handler)
            removed.append(handler)
        return root

    yield clear
    for handler in list(root.handlers):
        if handler not in at_setup and not type(handler).__module__.startswith("_pytest"):
            root.removeHandler(handler)
    for handler in removed:
        if handler in at_setup and handler not in root.handlers:
            root.addHandler(handler)
    root.setLevel(level)
    for name, (was, filters, propagate) in kept.items():
        logging.getLogger(name).setLevel(was)
        logging.getLogger(name).filters[:] = filters
        logging.getLogger(name).propagate = propagate


def lines_of(stream: io.StringIO) -> list[dict[str, Any]]:
    """Every line written, each parsed as one JSON object (a line that is not one fails)."""
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def record(message: str, *args: object, name: str = "fw.auth", exc: bool = False) -> logging.LogRecord:
    exc_info = None
    if exc:
        try:
            1 / 0  # noqa: B018
        except ZeroDivisionError:
            import sys

            exc_info = sys.exc_info()
    return logging.getLogger(name).makeRecord(name, logging.INFO, __file__, 1, message, args, exc_info)


# The two formats.


def test_a_json_line_has_time_level_logger_message_and_request_id() -> None:
    line = JsonFormatter().format(record("sign-in rejected: %s", "the code expired"))
    document = json.loads(line)
    assert set(document) == {"time", "level", "logger", "message", "request_id"}
    assert document["level"] == "info" and document["logger"] == "fw.auth"
    assert document["message"] == "sign-in rejected: the code expired"
    assert document["request_id"] is None
    assert document["time"].endswith("Z") and "T" in document["time"]


def test_a_traceback_and_a_multi_line_message_stay_inside_one_json_line() -> None:
    line = JsonFormatter().format(record("first\nsecond \u2028third", exc=True))
    assert "\n" not in line and "\u2028" not in line
    document = json.loads(line)
    assert document["message"] == "first\nsecond \u2028third"
    assert "Traceback" in document["exception"] and "ZeroDivisionError" in document["exception"]


def test_for_people_a_traceback_is_indented_under_its_one_line() -> None:
    shown = HumanFormatter().format(record("store failed: %s", "gone", exc=True))
    first, *rest = shown.split("\n")
    assert " INFO " in first and "fw.auth: store failed: gone" in first
    assert rest and all(line.startswith("    ") for line in rest)
    assert any("ZeroDivisionError" in line for line in rest)


def test_for_people_control_characters_are_shown_escaped() -> None:
    shown = HumanFormatter().format(record("user %s", "\x1b[31mred\u202e"))
    assert "\x1b" not in shown and "\u202e" not in shown
    assert "\\x1b[31mred\\u202e" in shown


def test_a_query_loses_its_values_and_keeps_its_names() -> None:
    assert drop_query_values("/auth/callback?code=abc&state=def") == "/auth/callback?code=&state="
    assert drop_query_values("/plain") == "/plain"
    assert drop_query_values("/x?flag") == "/x?flag="


# Inside requests.


def test_a_line_written_while_serving_names_the_request(bare_root: Clear) -> None:
    bare_root()
    stream = io.StringIO()
    with configured():
        configure_logging(stream=stream, access_log=True)
        app = fw.App()

        @app.route("GET /work")
        async def work(request: fw.Request) -> fw.Response:
            logging.getLogger("fw.auth").info("sign-in rejected: %s", "for the test")
            logging.getLogger("myapp").warning("the application's own line")
            return fw.JSONResponse({})

        with TestClient(build_observer(app, [AccessLog()])) as client:
            response = client.get("/work?code=s3cr3t", headers={"X-Request-Id": "req-77"})
    lines = [line for line in lines_of(stream) if line["logger"] in ("fw.auth", "myapp", "fw.access")]
    assert [line["logger"] for line in lines] == ["fw.auth", "myapp", "fw.access"]
    assert all(line["request_id"] == "req-77" == response.headers["x-request-id"] for line in lines)
    assert lines[0]["level"] == "info" and lines[0]["message"] == "sign-in rejected: for the test"
    assert lines[1]["level"] == "warning"
    assert lines[2]["path"] == "/work" and lines[2]["route"] == "/work"
    assert "s3cr3t" not in stream.getvalue()


# configure_logging.


def test_fw_configures_a_root_without_handlers_and_tells_uvicorn_to_add_none(bare_root: Clear) -> None:
    root = bare_root()
    stream = io.StringIO()
    with configured():
        options = configure_logging(stream=stream)
    assert options == {"log_config": None, "access_log": True}  # fw's access log is off
    assert len(root.handlers) == 1
    logging.getLogger("fw.auth").info("sign-in rejected: %s", "bad state")
    logging.getLogger("fw.auth").debug("below the level")
    [line] = lines_of(stream)
    assert line["message"] == "sign-in rejected: bad state" and line["request_id"] is None


def test_with_fws_access_log_on_uvicorns_access_line_is_off(bare_root: Clear) -> None:
    bare_root()
    with configured(toml="[observability.access_log]\nenabled = true\n"):
        assert configure_logging(stream=io.StringIO()) == {"log_config": None, "access_log": False}


def test_configuring_again_replaces_fws_handler_and_a_terminal_gets_readable_lines(
    bare_root: Clear,
) -> None:
    root = bare_root()

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    configure_logging(stream=io.StringIO(), access_log=False)
    terminal = Terminal()
    configure_logging(stream=terminal, access_log=False)
    assert len(root.handlers) == 1
    logging.getLogger("fw.auth").info("signed out")
    [shown] = terminal.getvalue().splitlines()
    assert shown.endswith("INFO    fw.auth: signed out")
    assert not shown.startswith("{")


def test_libraries_that_log_full_urls_at_info_are_kept_quiet(bare_root: Clear) -> None:
    bare_root()
    stream = io.StringIO()
    configure_logging(stream=stream, access_log=False)
    logging.getLogger("httpx2").info("HTTP Request: GET http://localhost/auth/callback?code=abc")
    assert stream.getvalue() == ""


def test_an_application_that_configured_logging_itself_keeps_it(bare_root: Clear) -> None:
    root = bare_root()
    own = io.StringIO()
    logging.config.dictConfig(
        {
            "version": 1,
            "disable_existing_loggers": False,
            "filters": {"request_id": {"()": RequestIdFilter}},
            "formatters": {"plain": {"format": "APP|%(levelname)s|%(name)s|%(request_id)s|%(message)s"}},
            "handlers": {
                "own": {
                    "class": "logging.StreamHandler",
                    "stream": own,
                    "formatter": "plain",
                    "filters": ["request_id"],
                }
            },
            "root": {"level": "INFO", "handlers": ["own"]},
        }
    )
    handlers = list(root.handlers)
    fws = io.StringIO()
    options = configure_logging(stream=fws, access_log=True)
    assert root.handlers == handlers
    assert options == {"log_config": None, "access_log": False}
    logging.getLogger("fw.auth").info("sign-in rejected: %s", "expired")
    assert own.getvalue() == "APP|INFO|fw.auth|None|sign-in rejected: expired\n"
    assert fws.getvalue() == ""


def test_uvicorns_access_line_loses_query_values_whoever_formats_it(bare_root: Clear) -> None:
    bare_root()
    configure_logging(stream=io.StringIO(), access_log=False)
    # Any handler (an application's own included) meets the record after fw's filter on the logger.
    stream = io.StringIO()
    anyone = logging.StreamHandler(stream)
    uvicorn_access = logging.getLogger("uvicorn.access")
    uvicorn_access.addHandler(anyone)
    level = uvicorn_access.level
    uvicorn_access.setLevel(logging.INFO)  # as uvicorn.run(log_level="info") leaves it
    try:
        # What uvicorn's protocol writes for every request (uvicorn/protocols/http/*_impl.py).
        uvicorn_access.info(
            '%s - "%s %s HTTP/%s" %d',
            "127.0.0.1:50000",
            "GET",
            "/auth/callback?code=c0de&state=st4te",
            "1.1",
            303,
        )
    finally:
        uvicorn_access.removeHandler(anyone)
        uvicorn_access.setLevel(level)
    assert stream.getvalue() == '127.0.0.1:50000 - "GET /auth/callback?code=&state= HTTP/1.1" 303\n'


# Stores: one line, no SQL parameters.


def test_a_store_error_is_logged_on_one_line_without_its_parameters(
    bare_root: Clear, idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    bare_root()
    stream = io.StringIO()
    idp.login_user("alice")
    with configured(
        **layers(idp.issuer, sqlite_dsn, client_id=idp.client_id, client_secret=idp.client_secret)
    ):
        configure_logging(stream=stream, access_log=True)
        with BrowserClient(build_observer(make_app(), [AccessLog()]), idp) as client:
            path = sqlite_dsn.removeprefix("sqlite:///")
            with sqlite3.connect(path) as database:
                database.execute("DROP TABLE fw_accounts")
            answer = client.get("/auth/login", follow_redirects=True)
    assert answer.status_code == 503
    assert answer.json()["request_id"] == answer.headers["x-request-id"]
    lines = lines_of(stream)  # every line is one JSON object
    [failure] = [line for line in lines if line["level"] == "error"]
    assert failure["logger"] == "fw.auth" and "account store unavailable" in failure["message"]
    assert failure["request_id"] == answer.headers["x-request-id"]
    assert "no such table: fw_accounts" in failure["message"]
    assert "alice" not in stream.getvalue()
    assert "[parameters:" not in stream.getvalue()


def test_a_database_error_is_described_in_one_line_without_the_statement(tmp_path: Path) -> None:
    async def fail() -> BaseException:
        engine = create_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
        try:
            async with engine.connect() as conn:
                await conn.execute(
                    text("SELECT * FROM fw_accounts WHERE claim_value = :who"), {"who": "alice"}
                )
        except DBAPIError as error:
            return error
        finally:
            await engine.dispose()
        raise AssertionError("the statement did not fail")

    error = asyncio.run(fail())
    assert "alice" not in str(error)  # hide_parameters on fw's engines
    assert describe_error(error) == "OperationalError: no such table: fw_accounts"


# A whole sign-in.


def test_no_code_state_token_or_cookie_reaches_any_log_line_in_a_sign_in(
    bare_root: Clear, idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    bare_root()
    stream = io.StringIO()
    idp.login_user("alice")
    secrets: list[str] = [idp.client_secret]
    with configured(
        **layers(idp.issuer, sqlite_dsn, client_id=idp.client_id, client_secret=idp.client_secret)
    ):
        configure_logging(stream=stream, access_log=True)
        logging.getLogger("fw").setLevel(logging.DEBUG)  # fw's own lines at every level
        try:
            with BrowserClient(build_observer(make_app(), [AccessLog()]), idp) as client:
                to_provider = client.get("/auth/login", follow_redirects=False)
                authorize = parse_qs(urlsplit(to_provider.headers["location"]).query)
                secrets += [authorize["state"][0], authorize["nonce"][0], authorize["code_challenge"][0]]
                secrets += [cookie.value for cookie in client.cookies.jar if cookie.value]
                callback = client.get(to_provider.headers["location"], follow_redirects=False).headers[
                    "location"
                ]
                code = parse_qs(urlsplit(callback).query)["code"][0]
                secrets.append(code)
                finished = client.get(callback, follow_redirects=False)
                assert finished.status_code == 303
                secrets += [cookie.value for cookie in client.cookies.jar if cookie.value]
                assert client.get("/me").json()["signed_in"] is True
                # A replayed code: the provider refuses it and fw logs the rejection at INFO.
                again = client.get("/auth/login", follow_redirects=False)
                back = client.get(again.headers["location"], follow_redirects=False).headers["location"]
                parts = urlsplit(back)
                query = {name: values[0] for name, values in parse_qs(parts.query).items()}
                query["code"] = code
                assert client.get(urlunsplit(parts._replace(query=urlencode(query)))).status_code == 400
                secrets.append(query["state"])
                client.logout()
        finally:
            logging.getLogger("fw").setLevel(logging.NOTSET)
    written = stream.getvalue()
    lines = lines_of(stream)
    access = [line for line in lines if line["logger"] == "fw.access"]
    assert "/auth/callback" in [line["path"] for line in access]
    assert any(line["message"].startswith("sign-in rejected") for line in lines if "message" in line)
    secrets = [secret for secret in secrets if len(secret) >= 8]
    assert len(secrets) >= 7
    leaked = [secret for secret in secrets if secret in written]
    assert leaked == [], written
