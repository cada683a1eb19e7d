"""A store engine registered from outside fw serves an App: people sign in and their sessions and
accounts live in it, selected by ``auth.backend`` and ``session.backend`` like fw's own engines."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import fw
from fw.auth.sessions.settings import SessionSettings
from fw.configuration import registry
from fw.generate.config import generate_folders
from fw.testing import BrowserClient, TestIdentityProvider, configured

from .memory.store import MEMORY, memory_registered, space_named


@pytest.fixture
def memory() -> Iterator[None]:
    with memory_registered():
        yield


def toml(idp: TestIdentityProvider, space: str) -> str:
    return f"""
[auth]
enabled = true
mode = "oidc_only"
backend = "memory"

[auth.oidc]
issuer = "{idp.issuer}"
client_id = "{idp.client_id}"
allow_loopback_http = true

[session]
enabled = true
backend = "memory"

[memory]
space = "{space}"
"""


def make_app() -> fw.App:
    app = fw.App()

    @app.route("GET /me")
    async def me(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        return fw.JSONResponse({"user": user.account_id if user else None})

    return app


def test_the_generated_loader_of_the_memory_table_is_current() -> None:
    [output] = generate_folders([Path(__file__).parent / "memory"])
    assert output.path.read_text() == output.text, (
        "tests/stores/memory/_fw_config.py is stale: run generate_folders"
    )


def test_an_app_signs_people_in_with_a_store_registered_from_outside_fw(
    memory: None, idp: TestIdentityProvider
) -> None:
    env = {"AUTH_OIDC_CLIENT_SECRET": idp.client_secret}
    with configured(toml=toml(idp, "signed-in"), env=env):
        app = make_app()
        with BrowserClient(app, idp, base_url="http://localhost:8000") as client:
            assert client.get("/me").json() == {"user": None}
            client.login("alice")
            account_id = client.get("/me").json()["user"]
        space = space_named("signed-in")
        assert account_id in space.accounts  # the account and the session were kept in [memory]
        assert space.sessions and space.shared_key is not None
        assert {item.key for item in registry.summary_items()} >= {"memory.space"}


def test_a_backend_value_is_refused_once_its_engine_is_gone(idp: TestIdentityProvider) -> None:
    """Outside its registration the name is not a choice: the loader refuses it, naming the key."""
    with memory_registered():
        assert MEMORY.keeps_auth and MEMORY.keeps_sessions
    with (
        pytest.raises(fw.ConfigError, match=r"session\.backend"),
        configured(toml='[session]\nenabled = true\nbackend = "memory"\n'),
    ):
        fw.config(SessionSettings)
