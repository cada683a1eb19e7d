"""jwt_only and ``fw.auth.set_account_resolver``: the verified identity becomes the application's account."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import fw.auth
from fw.auth import Account, Identity
from fw.auth.jwt.verifier import VerifiedToken
from fw.testing.issuer import LocalIssuer

from .conftest import bearer, serving
from .settings import auth_settings, jwt_settings


@pytest.fixture(autouse=True)
def _no_resolver_left_behind() -> Iterator[None]:
    yield
    fw.auth.set_account_resolver(None)


async def test_without_a_resolver_the_account_is_the_identity_claim(issuer: LocalIssuer) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        response = await client.get("/api/me", headers=bearer(issuer.mint("dave")))
    assert response.json()["account_id"] == "dave"


async def test_a_registered_resolver_maps_the_verified_identity_to_an_account(issuer: LocalIssuer) -> None:
    seen: list[Identity] = []

    async def resolve(identity: Identity) -> Account:
        seen.append(identity)
        return Account(f"acct-{identity.value}", display_name="Dave")

    fw.auth.set_account_resolver(resolve)
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        response = await client.get("/api/me", headers=bearer(issuer.mint("dave", scope="read")))
    assert response.status_code == 200
    assert response.json()["account_id"] == "acct-dave"
    assert response.json()["claims"]["sub"] == "dave"
    assert [(i.issuer, i.claim, i.value, i.claims["scope"]) for i in seen] == [
        (issuer.url, "sub", "dave", "read")
    ]
    assert seen[0].create  # the issuer vouching for a caller is how accounts originate in this mode


async def test_a_resolver_refusing_or_suspending_the_identity_gets_the_same_401(issuer: LocalIssuer) -> None:
    def resolve(identity: Identity) -> Account | None:
        if identity.value == "suspended":
            return Account("acct-s", active=False)
        return None if identity.value == "stranger" else Account(identity.value)

    fw.auth.set_account_resolver(resolve)
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        anonymous = await client.get("/api/me")
        stranger = await client.get("/api/me", headers=bearer(issuer.mint("stranger")))
        suspended = await client.get("/api/me", headers=bearer(issuer.mint("suspended")))
        known = await client.get("/api/me", headers=bearer(issuer.mint("known")))
    assert stranger.status_code == suspended.status_code == 401
    assert stranger.content == suspended.content == anonymous.content
    assert suspended.headers["www-authenticate"] == "Bearer"
    assert known.status_code == 200


async def test_a_resolver_that_cannot_answer_gives_503_not_401(issuer: LocalIssuer) -> None:
    def resolve(identity: Identity) -> Account:
        raise ConnectionError("accounts database down")

    fw.auth.set_account_resolver(resolve)
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        response = await client.get("/api/me", headers=bearer(issuer.mint()))
    assert response.status_code == 503
    assert "accounts database" not in response.text
    assert response.headers["content-type"] == "application/problem+json"


async def test_the_resolver_runs_only_for_tokens_that_passed_every_check(issuer: LocalIssuer) -> None:
    calls: list[str] = []

    def resolve(identity: Identity) -> Account:
        calls.append(identity.value)
        return Account(identity.value)

    fw.auth.set_account_resolver(resolve)
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        await client.get("/api/me", headers=bearer(issuer.mint("late", audience="other")))
        await client.get("/public")
    assert calls == []


async def test_a_resolver_registered_while_serving_applies_to_a_token_served_from_the_cache(
    issuer: LocalIssuer,
) -> None:
    token = issuer.mint("erin")
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, extension):
        for _ in range(3):  # verified, admitted to the cache, then served from it
            assert (await client.get("/api/me", headers=bearer(token))).json()["account_id"] == "erin"
        assert extension.running is not None and extension.running.verifier.cache is not None
        assert len(extension.running.verifier.cache) == 1
        fw.auth.set_account_resolver(lambda identity: Account(f"acct-{identity.value}"))
        assert (await client.get("/api/me", headers=bearer(token))).json()["account_id"] == "acct-erin"
        fw.auth.set_account_resolver(lambda identity: None)
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 401
        fw.auth.set_account_resolver(None)
        assert (await client.get("/api/me", headers=bearer(token))).json()["account_id"] == "erin"


async def test_with_a_resolver_a_repeated_token_is_still_served_from_the_cache(issuer: LocalIssuer) -> None:
    resolved: list[str] = []

    def resolve(identity: Identity) -> Account:
        resolved.append(identity.value)
        return Account(f"acct-{identity.value}")

    fw.auth.set_account_resolver(resolve)
    token = issuer.mint("frank")
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, extension):
        assert extension.running is not None
        verifier = extension.running.verifier
        checked: list[str] = []
        finish = verifier._finish  # every full verification, whichever way it was asked for

        def counting_finish(presented: str, *args: Any, **options: Any) -> VerifiedToken:
            checked.append(presented)
            return finish(presented, *args, **options)

        verifier._finish = counting_finish  # type: ignore[method-assign]
        for _ in range(4):
            assert (await client.get("/api/me", headers=bearer(token))).json()["account_id"] == "acct-frank"
    assert len(checked) == 2  # verified twice (the cache admits on the second), then served from it
    assert resolved == ["frank"] * 4  # the resolver runs on every request, cached token or not
