"""Header tricks, odd Authorization spellings and extreme values: rejected alike, never a 500."""

from __future__ import annotations

import json
import logging
import time
from datetime import timedelta

import httpx2
import pytest

from fw.testing.issuer import LocalIssuer

from .conftest import bearer, serving
from .settings import auth_settings, jwt_settings
from .test_bearer_requests import _signed


async def _status(client: httpx2.AsyncClient, raw: bytes) -> httpx2.Response:
    return await client.get("/api/me", headers=[(b"authorization", raw)])


async def test_key_location_headers_are_never_fetched_or_trusted(issuer: LocalIssuer) -> None:
    with LocalIssuer() as attacker:
        forged = attacker.mint(
            claims={"iss": issuer.url},
            header={
                "jku": attacker.jwks_uri,
                "x5u": attacker.jwks_uri,
                "jwk": attacker.signing_key.as_dict(private=False),
            },
        )
        pointing_away = issuer.mint(header={"jku": attacker.jwks_uri, "x5u": attacker.jwks_uri})
        async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
            refused = await client.get("/api/me", headers=bearer(forged))
            anonymous = await client.get("/api/me")
            accepted = await client.get("/api/me", headers=bearer(pointing_away))
        assert sum(attacker.requests.values()) == 0
    assert refused.status_code == 401
    assert refused.content == anonymous.content
    assert accepted.status_code == 200  # the header is ignored; the issuer's own key verified it


async def test_the_scheme_is_case_insensitive_and_tolerates_extra_whitespace(issuer: LocalIssuer) -> None:
    token = issuer.mint("carol").encode()
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        for raw in (
            b"bearer " + token,
            b"BEARER " + token,
            b"Bearer   " + token + b"  ",
            b"Bearer\t" + token,
        ):
            response = await _status(client, raw)
            assert response.status_code == 200, raw[:12]
            assert response.json()["account_id"] == "carol"


async def test_a_bearer_header_with_junk_around_the_token_is_rejected_not_anonymous(
    issuer: LocalIssuer,
) -> None:
    token = issuer.mint().encode()
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        for raw in (b"Bearer " + token + b" extra", b"Bearer " + token + b"\tx", b"Bearer " + token + b","):
            public = await client.get("/public", headers=[(b"authorization", raw)])
            assert public.status_code == 401, raw[-8:]


async def test_a_100_kb_token_is_rejected_like_any_other(issuer: LocalIssuer) -> None:
    huge = issuer.mint(claims={"padding": "x" * 100_000})
    assert len(huge) > 100_000
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        response = await client.get("/api/me", headers=bearer(huge))
        anonymous = await client.get("/api/me")
    assert response.status_code == 401
    assert response.content == anonymous.content


async def test_an_audience_list_that_includes_ours_is_accepted(issuer: LocalIssuer) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url, audience=["orders", "api"]))) as (client, _):
        as_list = await client.get("/api/me", headers=bearer(issuer.mint(audience=["billing", "api"])))
        as_string = await client.get("/api/me", headers=bearer(issuer.mint(audience="orders")))
        neither = await client.get("/api/me", headers=bearer(issuer.mint(audience=["billing"])))
        nested = await client.get("/api/me", headers=bearer(issuer.mint(audience=[["api"]])))  # type: ignore[list-item]
    assert as_list.status_code == as_string.status_code == 200
    assert neither.status_code == nested.status_code == 401


async def test_extreme_time_values_are_rejected_without_an_error(
    issuer: LocalIssuer, caplog: pytest.LogCaptureFixture
) -> None:
    now = int(time.time())
    base = {"iss": issuer.url, "sub": "a", "aud": "api", "iat": now, "exp": now + 60}

    def payload(**changes: str) -> bytes:
        text = json.dumps(base)
        for name, literal in changes.items():
            text = text.replace(f'"{name}": {base[name]}', f'"{name}": {literal}')
        return text.encode()

    shapes = {
        "exp with 400 digits": payload(exp="9" * 400),
        "exp overflowing to infinity": payload(exp="1e400"),
        "exp far in the future": payload(exp=str(now + 10 * 365 * 86400)),
        "iat overflowing": payload(iat="-1e400"),
        "negative exp": payload(exp="-1"),
    }
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        anonymous = (await client.get("/api/me")).content
        for reason, body in shapes.items():
            response = await client.get("/api/me", headers=bearer(_signed(issuer, body)))
            assert response.status_code == 401, reason
            assert response.content == anonymous, reason
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], (
        "an ordinary rejection was logged as a failure"
    )


async def test_nbf_in_the_future_and_a_lifetime_at_the_limit(issuer: LocalIssuer) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        later = issuer.mint(claims={"nbf": int(time.time()) + 600})
        at_limit = issuer.mint(lifetime=timedelta(hours=1))
        over = issuer.mint(lifetime=timedelta(hours=1, seconds=1))
        assert (await client.get("/api/me", headers=bearer(later))).status_code == 401
        assert (await client.get("/api/me", headers=bearer(at_limit))).status_code == 200
        assert (await client.get("/api/me", headers=bearer(over))).status_code == 401
