"""examples/login as shipped (its app and its config.dev.toml) against the development provider:
the settings page needs a recent proof, deleting the account a confirmation asked for that attempt."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import fw
from auth_assurance.support import step_up_location
from fw.testing import BrowserClient, TestIdentityProvider, configured

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "login"
ORIGIN = "http://localhost:8000"


def load_example() -> ModuleType:
    """A fresh copy of the example's module: an App decides its pillars once, so one per test."""
    spec = importlib.util.spec_from_file_location("login_example_app", EXAMPLE / "app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def client(idp: TestIdentityProvider, sqlite_dsn: str) -> Iterator[BrowserClient]:
    env = {**idp.env, "MIDDLEWARE_RDB_DSN": sqlite_dsn}
    with configured(toml=(EXAMPLE / "config.dev.toml").read_text(), env=env):
        app: fw.App = load_example().app
        with BrowserClient(app, idp, base_url=ORIGIN) as browser:
            yield browser


def sign_in(client: BrowserClient, idp: TestIdentityProvider, *, age: int = 0) -> None:
    idp.state.answer_auth_time = int(time.time()) - age if age else None
    assert client.login("alice").status_code == 200
    idp.state.answer_auth_time = None


def test_the_settings_page_opens_right_after_signing_in(
    client: BrowserClient, idp: TestIdentityProvider
) -> None:
    sign_in(client, idp)
    page = client.get("/settings")
    assert page.status_code == 200 and "id='delete'" in page.text


def test_the_settings_page_asks_an_old_session_to_prove_itself_again(
    client: BrowserClient, idp: TestIdentityProvider
) -> None:
    sign_in(client, idp, age=600)
    _, query = step_up_location(client.get("/settings", follow_redirects=False))
    assert query == {"max_age": ["300"], "next": ["/settings"]}
    page = client.get("/settings", follow_redirects=True)
    assert str(page.url) == f"{ORIGIN}/settings" and "id='delete'" in page.text
    assert idp.state.authorizations[-1]["prompt"] == "login"


def test_deleting_the_account_needs_a_confirmation_for_this_attempt(
    client: BrowserClient, idp: TestIdentityProvider
) -> None:
    sign_in(client, idp)
    referer = {"referer": f"{ORIGIN}/settings"}
    first = client.post("/account/delete", headers=referer, follow_redirects=False)
    _, query = step_up_location(first)
    [operation] = query.pop("operation")  # the grant is for this operation alone
    assert query == {"max_age": ["0"], "next": ["/settings"]} and operation
    back = client.get(first.headers["location"], follow_redirects=True)
    assert str(back.url) == f"{ORIGIN}/settings"  # the POST is not replayed; the person presses again
    deleted = client.post("/account/delete", headers=referer, follow_redirects=False)
    assert deleted.status_code == 200 and "id='deleted'" in deleted.text
    gone = client.get("/account", follow_redirects=False)  # the closed account's session has ended
    assert gone.status_code == 302 and gone.headers["location"].startswith("/auth/login")


def test_a_recent_sign_in_alone_does_not_delete_the_account(
    client: BrowserClient, idp: TestIdentityProvider
) -> None:
    sign_in(client, idp)
    refused = client.post(
        "/account/delete", headers={"referer": f"{ORIGIN}/settings"}, follow_redirects=False
    )
    assert refused.status_code == 303
    assert client.get("/account").status_code == 200  # still there
