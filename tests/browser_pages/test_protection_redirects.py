"""Path protection sends an anonymous browser only to a sign-in path its mode serves."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from auth_oauth.support import x_table
from auth_oidc.support import make_app, session_settings, to_toml
from auth_passkey_modes.support import oidc_passkey_toml, passkey_only_toml
from starlette.testclient import TestClient

from fw.testing import TestIdentityProvider, configured, oauth_provider
from fw.testing.issuer import LocalIssuer

BROWSER_MODES = ["oidc_only", "oauth_only", "oidc_passkey", "passkey_only"]
PROTECTION = {"include": ["/private/"], "unauthenticated": "redirect"}


@contextlib.contextmanager
def mode_client(mode: str, idp: TestIdentityProvider, dsn: str) -> Iterator[TestClient]:
    """A client (lifespan on) on the test App configured for ``mode``, anonymous visitors redirected."""
    layers: dict[str, Any]
    if mode == "oidc_only":
        tables: dict[str, Any] = {
            "auth": {
                "enabled": True,
                "mode": mode,
                "protection": PROTECTION,
                "oidc": {"issuer": idp.issuer, "client_id": idp.client_id, "allow_loopback_http": True},
            },
            "session": session_settings(),
            "middleware": {"rdb": {"dsn": dsn}},
        }
        layers = {"toml": to_toml(tables), "env": {"AUTH_OIDC_CLIENT_SECRET": idp.client_secret}}
    elif mode == "oidc_passkey":
        toml = oidc_passkey_toml(idp.issuer, idp.client_id, dsn, protection=PROTECTION)
        layers = {"toml": toml, "env": {"AUTH_OIDC_CLIENT_SECRET": idp.client_secret}}
    elif mode == "passkey_only":
        layers = {"toml": passkey_only_toml(dsn, protection=PROTECTION)}
    else:
        with oauth_provider(login_user="alice") as x:
            tables = {
                "auth": {"enabled": True, "mode": mode, "protection": PROTECTION, "oauth": x_table(x)},
                "session": session_settings(),
                "middleware": {"rdb": {"dsn": dsn}},
            }
            env = {"AUTH_OAUTH_CLIENT_SECRET": x.client_secret}
            with configured(toml=to_toml(tables), env=env), TestClient(make_app(), "http://localhost") as c:
                yield c
        return
    with configured(**layers), TestClient(make_app(), "http://localhost") as client:
        yield client


@pytest.mark.parametrize("mode", BROWSER_MODES)
def test_the_protection_redirect_lands_on_a_sign_in_path_the_mode_serves(
    mode: str, idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    with mode_client(mode, idp, sqlite_dsn) as client:
        redirect = client.get("/private/orders", follow_redirects=False)
        assert redirect.status_code == 302
        location = redirect.headers["location"]
        assert location == "/auth/login?next=%2Fprivate%2Forders"
        landing = client.get(location, follow_redirects=False)
        # A sign-in page (passkey_only) or the way to the provider (the other modes): never a 404.
        assert landing.status_code in (200, 302), (mode, landing.status_code, landing.text[:200])
        assert landing.headers["cache-control"] == "no-store"
        if landing.status_code == 302:
            assert landing.headers["location"].startswith("http://127.0.0.1:")


def test_jwt_only_answers_an_anonymous_request_with_401_and_redirects_nowhere(sqlite_dsn: str) -> None:
    with LocalIssuer() as issuer:
        tables = {
            "auth": {
                "enabled": True,
                "mode": "jwt_only",
                "protection": {"include": ["/private/"]},
                "jwt": {
                    "issuer": issuer.url,
                    "audience": ["api"],
                    "algorithms": ["RS256"],
                    "admission": "authenticated",
                    "max_token_lifetime": "1h",
                    "revocation": {"mode": "off"},
                    "allow_loopback_http": True,
                },
            },
            "middleware": {"rdb": {"dsn": sqlite_dsn}},
        }
        with configured(toml=to_toml(tables)), TestClient(make_app()) as client:
            response = client.get("/private/orders", follow_redirects=False)
            assert response.status_code == 401
            assert "location" not in response.headers
