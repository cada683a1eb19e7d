"""Errors never quote a URL's user information: refusals, load errors, store failures and the
traceback the App hands to its server all say where a service is, never how to sign in to it."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

import fw
from fw.auth.stores import StoreUnavailable
from fw.errors import ConfigError, StartupError
from fw.testing import configured
from fw.userinfo import has_password, has_userinfo, mask_userinfo, scrub


@pytest.fixture
def password() -> str:
    return f"pw-{secrets.token_hex(8)}"


# fw.userinfo
@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("redis://default:pw@cache:6379/14", "redis://*****@cache:6379/14"),
        ("amqp://shop@mq.internal/orders?heartbeat=30", "amqp://*****@mq.internal/orders"),
        ("http://k:s@[::1]:8000/", "http://*****@[::1]:8000/"),
        ("https://login.example/cb", "https://login.example/cb"),
        ("redis://u:p@host:notaport/0", "*****"),
        ("", ""),
    ],
)
def test_masking_keeps_scheme_host_port_and_path_only(text: str, masked: str) -> None:
    assert mask_userinfo(text) == masked


@pytest.mark.parametrize(
    ("text", "userinfo", "password"),
    [
        ("redis://default:pw@cache/0", True, True),
        ("postgresql://shop@db/orders", True, False),
        ("redis://:pw@cache/0", True, True),
        ("https://login.example/@me", False, False),
        ("user:pw@host", False, False),
        ("mailto:someone@example.com", False, False),
    ],
)
def test_user_information_is_recognised_only_in_an_absolute_url(
    text: str, userinfo: bool, password: bool
) -> None:
    assert (has_userinfo(text), has_password(text)) == (userinfo, password)


def test_scrubbing_masks_each_url_with_user_information_inside_a_text(password: str) -> None:
    text = (
        f'Could not connect to the endpoint URL: "http://AKIA:{password}@127.0.0.1:8000/" '
        f"(after redis://:{password}@cache:6379/0.) see https://docs.example/x@y"
    )
    assert scrub(text) == (
        'Could not connect to the endpoint URL: "http://*****@127.0.0.1:8000/" '
        "(after redis://*****@cache:6379/0.) see https://docs.example/x@y"
    )


# The errors.
def test_a_refusal_names_a_url_value_with_its_user_information_masked(password: str) -> None:
    url = f"redis://default:{password}@cache.internal:6379/14"
    error = StartupError("session.redis_url", url, "Redis cannot be reached")
    assert str(error) == "session.redis_url = 'redis://*****@cache.internal:6379/14': Redis cannot be reached"
    assert error.value == url  # the value as received, for a program that handles the error


def test_a_refusal_masks_every_url_of_a_list_value_and_of_its_fix(password: str) -> None:
    error = StartupError(
        "auth.passkey.origins",
        ["https://shop.example", f"https://u:{password}@shop.example"],
        f"DynamoDB at http://AKIA:{password}@127.0.0.1:1 cannot be reached",
    )
    assert password not in str(error) and password not in error.fix
    assert "['https://shop.example', 'https://*****@shop.example']" in str(error)
    assert "DynamoDB at http://*****@127.0.0.1:1 cannot be reached" in str(error)


def test_a_load_error_quoting_a_url_masks_its_user_information(password: str) -> None:
    error = ConfigError("server.port", "env:SERVER_PORT", f"invalid int 'redis://u:{password}@h:1/0'")
    assert str(error) == "server.port: invalid int 'redis://*****@h:1/0' (from env:SERVER_PORT)"


def test_a_store_failure_logs_a_driver_message_without_the_url_credentials(password: str) -> None:
    error = StoreUnavailable(
        f'Could not connect to the endpoint URL: "http://AKIA:{password}@127.0.0.1:8000/"'
    )
    assert str(error) == 'Could not connect to the endpoint URL: "http://*****@127.0.0.1:8000/"'


async def test_an_unexpected_startup_failure_reaches_the_server_with_url_credentials_masked(
    password: str,
) -> None:
    app = fw.App()

    @app.on_startup
    async def connect() -> None:
        raise RuntimeError(f"cannot reach https://svc:{password}@api.internal/v1")

    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "lifespan.startup"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    with configured(), pytest.raises(RuntimeError):
        await app({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send)
    [failed] = sent
    assert failed["type"] == "lifespan.startup.failed"
    assert "RuntimeError: cannot reach https://*****@api.internal/v1" in failed["message"]
    assert password not in failed["message"]
