"""Two ``passkey_only`` processes (real uvicorn on loopback) share one store: PostgreSQL, DynamoDB
or Firestore.

Ceremonies, credentials and bootstrap records live only in the shared store: a ceremony begun
on one process finishes on the other, and a passkey removed through one is refused by the other.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from backends import StoreBackend, store_backend_for

from e2e.support import REPO, app_processes, clean_env
from fw.testing.passkeys import SoftAuthenticator

APP = REPO / "tests" / "e2e" / "apps" / "passkey_app.py"
#: The page's origin as the browser reports it; both processes serve it (behind one host name).
ORIGIN = "http://localhost"
PATH = "/auth/passkey"


@contextlib.contextmanager
def two_processes(tmp_path: Path, store: StoreBackend) -> Iterator[tuple[str, str]]:
    env = clean_env(
        {
            "APP_ENV": "dev",
            "AUTH_ENABLED": "true",
            "AUTH_MODE": "passkey_only",
            "AUTH_PASSKEY_RP_ID": "localhost",
            "AUTH_PASSKEY_RP_NAME": "fw scale-out",
            "AUTH_PASSKEY_ORIGINS": ORIGIN,
            "AUTH_RECOVERY_POLICY": "administrator",
            "AUTH_REGISTRATION_POLICY": "invite",
            "SESSION_ENABLED": "true",
            **store.env(sessions=True),
        }
    )
    with app_processes(APP, env, tmp_path) as (a, b):
        yield a, b


def post(browser: httpx2.Client, url: str, body: Any = None) -> httpx2.Response:
    return browser.post(url, json=body, headers={"origin": ORIGIN})


@pytest.fixture(params=["postgresql", "dynamo", "firestore"])
def shared_store(request: pytest.FixtureRequest) -> StoreBackend:
    return store_backend_for(request.param, request)


def test_processes_sharing_a_store_share_ceremonies_and_credentials(
    tmp_path: Path, shared_store: StoreBackend
) -> None:
    authenticator = SoftAuthenticator(ORIGIN)
    with two_processes(tmp_path, shared_store) as (a, b), httpx2.Client() as browser:
        pids = {browser.get(f"{a}/me").json()["pid"], browser.get(f"{b}/me").json()["pid"]}
        assert len(pids) == 2
        issued = browser.post(f"{a}/admin/bootstrap/alice").json()
        # Bootstrap on b, registration begun on a and finished on b.
        assert post(browser, f"{b}{PATH}/bootstrap", issued).status_code == 200
        options = post(browser, f"{a}{PATH}/register/begin").json()
        registered = post(browser, f"{b}{PATH}/register/finish", authenticator.create(options))
        assert registered.status_code == 200, registered.text
        credential_id = registered.json()["credential_id"]
        account = browser.get(f"{a}/me").json()["account_id"]
        assert account and browser.get(f"{b}/me").json()["account_id"] == account

        # A sign-in ceremony begun on b finishes on a.
        browser.cookies.delete("fw_session")
        options = post(browser, f"{b}{PATH}/login/begin").json()
        finished = post(browser, f"{a}{PATH}/login/finish", authenticator.get(options))
        assert finished.status_code == 200, finished.text
        assert browser.get(f"{b}/me").json()["account_id"] == account

        # A challenge is single-use across processes: replaying the finish on b is refused.
        replay = post(browser, f"{b}{PATH}/login/finish", authenticator.get(options))
        assert replay.status_code == 400

        # Removed through a, refused by b.
        removed = browser.post(f"{a}/admin/remove/{account}/{credential_id}").json()
        assert removed == {"removed": True}
        browser.cookies.delete("fw_session")
        options = post(browser, f"{b}{PATH}/login/begin").json()
        refused = post(browser, f"{b}{PATH}/login/finish", authenticator.get(options))
        assert refused.status_code == 403
        assert browser.get(f"{b}/me").json()["account_id"] is None
