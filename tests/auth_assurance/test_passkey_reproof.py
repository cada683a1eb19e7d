"""Re-proof by passkey: in ``passkey_only`` and ``oidc_passkey`` a passkey assertion made while
signed in as the same account confirms the session (and, begun with the ``operation`` a zero-window
guard named, leaves one use of that operation); an assertion of another account changes nothing.
In ``oidc_passkey`` the provider's step-up counts too."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from urllib.parse import parse_qs, quote, urlsplit

import httpx2
from auth_passkey_modes.support import ORIGIN, PasskeyBrowser, oidc_passkey_toml, passkey_only_toml
from starlette.testclient import TestClient

import fw
from auth_assurance.support import POLICIES, guarded_app, policies_toml, step_up_location
from fw.auth.accounts import set_account_active
from fw.testing import BrowserClient, TestIdentityProvider, configured
from fw.testing.passkeys import SoftAuthenticator


@contextlib.contextmanager
def passkey_only(dsn: str) -> Iterator[PasskeyBrowser]:
    toml = passkey_only_toml(dsn) + policies_toml(POLICIES)
    with configured(toml=toml), TestClient(guarded_app(), base_url=ORIGIN) as client:
        yield PasskeyBrowser(client)


def reprove(browser: PasskeyBrowser, login_url: str) -> httpx2.Response:
    """A passkey re-proof on the login page a guard sent the browser to: passkey.js hands the
    page's ``operation`` to ``login/begin``, as this does."""
    [operation] = parse_qs(urlsplit(login_url).query).get("operation", [""])
    begun = browser.post(f"/login/begin?operation={quote(operation)}" if operation else "/login/begin")
    assert begun.status_code == 200, begun.text
    return browser.post("/login/finish", browser.authenticator.get(begun.json()))


def enrol(browser: PasskeyBrowser, login_id: str) -> str:
    """Bootstrap and register a first passkey (the browser is then signed in); the account ID."""
    credential = browser.call(fw.auth.issue_bootstrap_credential, login_id)
    assert browser.bootstrap(login_id, credential.secret).status_code == 200
    assert browser.register().status_code == 200
    account: str = browser.me()["account_id"]
    return account


def test_a_passkey_assertion_while_signed_in_confirms_the_session(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        account = enrol(browser, "alice")
        path, query = step_up_location(browser.client.get("/confirmed", follow_redirects=False))
        assert path == "/auth/login" and query == {"max_age": ["300"], "next": ["/confirmed"]}
        reproved = browser.login()
        assert reproved.status_code == 200, reproved.text
        assert browser.me()["account_id"] == account
        assert browser.client.get("/confirmed").json() == {"page": "confirmed"}


def test_a_passkey_re_proof_satisfies_a_zero_window_once(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        enrol(browser, "alice")
        refused = browser.client.post("/api/once")
        assert refused.status_code == 401 and refused.json()["code"] == "step_up_required"
        assert reprove(browser, refused.json()["login"]).status_code == 200
        assert browser.client.post("/api/once").json() == {"done": True}
        assert browser.client.post("/api/once").status_code == 401


def test_a_passkey_re_proof_for_one_operation_satisfies_no_other(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        enrol(browser, "alice")
        asked = browser.client.get("/once", follow_redirects=False)
        assert reprove(browser, asked.headers["location"]).status_code == 200
        assert browser.client.post("/api/once").status_code == 401  # another guarded route
        assert browser.client.get("/once").json() == {"page": "once"}  # its own, once
        step_up_location(browser.client.get("/once", follow_redirects=False))


def test_a_passkey_re_proof_no_guard_asked_for_confirms_but_leaves_no_zero_window_use(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        enrol(browser, "alice")
        assert browser.login().status_code == 200
        assert browser.client.get("/confirmed").json() == {"page": "confirmed"}
        step_up_location(browser.client.get("/once", follow_redirects=False))
        assert browser.client.post("/api/once").status_code == 401


def test_a_malformed_operation_on_login_begin_is_a_400(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        enrol(browser, "alice")
        for value in ("x", "A" * 23, "A" * 21 + "%21"):
            refused = browser.post(f"/login/begin?operation={value}")
            assert refused.status_code == 400 and refused.json()["code"] == "bad_request"


def test_a_passkey_of_another_account_while_signed_in_changes_nothing(dsn: str) -> None:
    with passkey_only(dsn) as alice:
        account = enrol(alice, "alice")
        other = TestClient(alice.client.app, base_url=ORIGIN)  # a second browser, same server
        other.portal = alice.client.portal
        bob = PasskeyBrowser(other, SoftAuthenticator(ORIGIN))
        enrol(bob, "bob")
        intruder = PasskeyBrowser(alice.client, bob.authenticator)
        refused = intruder.login()
        assert refused.status_code == 403 and refused.json()["code"] == "step_up_failed"
        assert alice.me()["account_id"] == account
        step_up_location(alice.client.get("/confirmed", follow_redirects=False))


def test_a_suspended_account_cannot_re_prove_by_passkey(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        account = enrol(browser, "alice")
        assert browser.call(set_account_active, account, False)
        refused = browser.login()
        assert refused.status_code == 403 and refused.json()["code"] == "not_admitted"


def test_in_oidc_passkey_both_the_provider_step_up_and_a_passkey_count(
    idp: TestIdentityProvider, dsn: str
) -> None:
    toml = oidc_passkey_toml(idp.issuer, idp.client_id, dsn) + policies_toml(POLICIES)
    env = {"AUTH_OIDC_CLIENT_SECRET": idp.client_secret}
    with configured(toml=toml, env=env), BrowserClient(guarded_app(), idp, base_url=ORIGIN) as client:
        browser = PasskeyBrowser(client)
        client.login("alice")
        assert browser.register().status_code == 200
        # The provider's step-up confirms the session...
        assert client.get("/confirmed", follow_redirects=True).json() == {"page": "confirmed"}
        assert idp.state.authorizations[-1]["prompt"] == "login"
        # ...and so does a passkey assertion, which also leaves one use of the zero window that
        # asked for it.
        asked = client.get("/once", follow_redirects=False)
        step_up_location(asked)
        assert reprove(browser, asked.headers["location"]).status_code == 200
        assert client.get("/once", follow_redirects=False).json() == {"page": "once"}
        assert client.get("/me").json()["key"] == "alice"
