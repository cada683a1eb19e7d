"""Everything a callback can get wrong is a clear 4xx and creates no session."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import pytest
from joserfc import jwt

from auth_oidc.conftest import Build
from auth_oidc.support import with_query
from fw.testing import BrowserClient, TestIdentityProvider


def callback_url(client: BrowserClient) -> str:
    to_provider = client.get("/auth/login", follow_redirects=False)
    back = client.get(to_provider.headers["location"], follow_redirects=False)
    return str(back.headers["location"])


def assert_rejected(
    client: BrowserClient, response: object, status: int = 400, code: str = "login_failed"
) -> None:
    import httpx2

    assert isinstance(response, httpx2.Response)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == code
    assert not any(
        h.startswith("fw_session=") and "Max-Age=0" not in h for h in response.headers.get_list("set-cookie")
    )
    assert client.get("/me").json() == {"signed_in": False}


@pytest.fixture
def client(browser: Build, idp: TestIdentityProvider) -> BrowserClient:
    idp.login_user("alice")
    return browser()[0]


def test_a_tampered_state_is_rejected(client: BrowserClient) -> None:
    url = callback_url(client)
    assert_rejected(client, client.get(with_query(url, state="tampered"), follow_redirects=False))


def test_a_missing_state_is_rejected(client: BrowserClient) -> None:
    url = callback_url(client)
    assert_rejected(client, client.get(with_query(url, state=None), follow_redirects=False))


def test_a_missing_code_is_rejected(client: BrowserClient) -> None:
    url = callback_url(client)
    assert_rejected(client, client.get(with_query(url, code=None), follow_redirects=False))


def test_an_unknown_code_is_rejected_by_the_provider(client: BrowserClient) -> None:
    url = callback_url(client)
    assert_rejected(client, client.get(with_query(url, code="forged"), follow_redirects=False))


def test_a_replayed_callback_is_rejected(client: BrowserClient) -> None:
    url = callback_url(client)
    assert client.get(url, follow_redirects=False).status_code == 303
    client.cookies.clear()
    assert_rejected(client, client.get(url, follow_redirects=False))


def test_a_replayed_code_in_a_new_login_is_rejected(client: BrowserClient) -> None:
    url = callback_url(client)
    assert client.get(url, follow_redirects=False).status_code == 303
    code = parse_qs(urlsplit(url).query)["code"][0]
    client.cookies.clear()
    fresh = callback_url(client)
    assert_rejected(client, client.get(with_query(fresh, code=code), follow_redirects=False))


def test_a_callback_without_a_login_in_progress_is_rejected(client: BrowserClient) -> None:
    response = client.get("/auth/callback?code=x&state=y", follow_redirects=False)
    assert_rejected(client, response)


def test_a_response_naming_another_issuer_is_rejected(client: BrowserClient) -> None:
    url = callback_url(client)
    assert_rejected(client, client.get(with_query(url, iss="https://evil.example"), follow_redirects=False))


@pytest.mark.parametrize(
    ("error", "status"), [("access_denied", 403), ("server_error", 400), ("invalid_scope", 400)]
)
def test_provider_error_responses_are_reported(client: BrowserClient, error: str, status: int) -> None:
    url = callback_url(client)
    response = client.get(
        with_query(url, code=None, error=error, error_description="<b>x</b>"), follow_redirects=False
    )
    assert_rejected(client, response, status)
    assert error in response.json()["detail"]


def test_a_user_declining_at_the_provider_creates_no_session(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    to_provider = client.get("/auth/login", follow_redirects=False)
    query = {k: v[0] for k, v in parse_qs(urlsplit(to_provider.headers["location"]).query).items()}
    declined = client.post(f"{idp.issuer}/authorize", data={**query, "deny": "1"}, follow_redirects=False)
    assert_rejected(client, client.get(declined.headers["location"], follow_redirects=False), 403)


class ForgingProvider:
    """Intercepts the token endpoint's answer to substitute an ID token signed with the provider's key."""

    def __init__(self, idp: TestIdentityProvider) -> None:
        self.idp = idp

    def sign(self, **claims: object) -> str:
        key = self.idp.running.provider.key
        now = int(time.time())
        base: dict[str, object] = {
            "iss": self.idp.issuer,
            "sub": "alice",
            "aud": self.idp.client_id,
            "iat": now,
            "exp": now + 300,
        }
        base.update(claims)
        payload = {k: v for k, v in base.items() if v is not None}
        return jwt.encode({"alg": "RS256", "kid": key.kid}, payload, key)


@pytest.mark.parametrize(
    "claims",
    [
        {"iss": "https://other.example"},
        {"aud": "another-client"},
        {"aud": ["another-client", "x"]},
        {"exp": int(time.time()) - 3600},
        {"nonce": "wrong"},
        {"nonce": None},
        {"sub": None},
        {"iat": int(time.time()) + 3600},
    ],
    ids=["issuer", "audience", "audiences", "expired", "nonce", "no-nonce", "no-sub", "future-iat"],
)
def test_an_id_token_failing_verification_creates_no_session(
    client: BrowserClient,
    idp: TestIdentityProvider,
    monkeypatch: pytest.MonkeyPatch,
    claims: dict[str, object],
) -> None:
    from fw.auth.modes.oidc_only import login as oidc_login
    from fw.auth.oidc import exchange as token_module

    original = token_module.exchange_code
    forger = ForgingProvider(idp)

    async def substitute(*args: object, **kwargs: object) -> token_module.Tokens:
        real = await original(*args, **kwargs)  # type: ignore[arg-type]
        pending = kwargs["pending"]
        nonce = {"nonce": pending.nonce}  # type: ignore[attr-defined]
        forged = forger.sign(**{**nonce, **claims})
        return token_module.Tokens(access_token=real.access_token, token_type="Bearer", id_token=forged)

    monkeypatch.setattr(oidc_login, "exchange_code", substitute)
    url = callback_url(client)
    assert_rejected(client, client.get(url, follow_redirects=False))


def test_an_id_token_signed_by_another_key_creates_no_session(
    client: BrowserClient, idp: TestIdentityProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    from joserfc.jwk import RSAKey

    from fw.auth.modes.oidc_only import login as oidc_login
    from fw.auth.oidc import exchange as token_module

    original = token_module.exchange_code
    stranger = RSAKey.generate_key(2048, parameters={"kid": idp.running.provider.key.kid})

    async def substitute(*args: object, **kwargs: object) -> token_module.Tokens:
        real = await original(*args, **kwargs)  # type: ignore[arg-type]
        claims = jwt.decode(real.id_token, idp.running.provider.key).claims
        forged = jwt.encode({"alg": "RS256", "kid": stranger.kid}, claims, stranger)
        return token_module.Tokens(access_token=real.access_token, token_type="Bearer", id_token=forged)

    monkeypatch.setattr(oidc_login, "exchange_code", substitute)
    assert_rejected(client, client.get(callback_url(client), follow_redirects=False))


def test_an_unreachable_provider_is_a_503_not_a_crash(browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = browser(oidc={"issuer": "http://127.0.0.1:9"})
    response = client.get("/auth/login", follow_redirects=False)
    assert response.status_code == 503
    assert response.json()["code"] == "provider_unavailable"


@pytest.mark.parametrize("algorithm", ["none", "HS256"])
def test_an_unsigned_or_shared_secret_id_token_creates_no_session(
    client: BrowserClient, idp: TestIdentityProvider, monkeypatch: pytest.MonkeyPatch, algorithm: str
) -> None:
    import base64
    import json

    from fw.auth.modes.oidc_only import login as oidc_login
    from fw.auth.oidc import exchange as token_module

    original = token_module.exchange_code

    def b64(data: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    async def substitute(*args: object, **kwargs: object) -> token_module.Tokens:
        real = await original(*args, **kwargs)  # type: ignore[arg-type]
        claims = jwt.decode(real.id_token, idp.running.provider.key).claims
        forged = f"{b64({'alg': algorithm, 'typ': 'JWT'})}.{b64(claims)}.{b64({'sig': 1})}"
        return token_module.Tokens(access_token=real.access_token, token_type="Bearer", id_token=forged)

    monkeypatch.setattr(oidc_login, "exchange_code", substitute)
    assert_rejected(client, client.get(callback_url(client), follow_redirects=False))
