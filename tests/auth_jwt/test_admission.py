"""Admission policies: JSON Pointer claims (any/all) and the relational allow-list."""

from __future__ import annotations

import uuid

import pytest
from backends import StoreBackend

from fw.auth import admission
from fw.auth.admission import ClaimMatch, Registered, parse_pointer, values_at
from fw.auth.stores.rdb import RdbAllowList
from fw.rdb import create_engine
from fw.testing.issuer import LocalIssuer

from .conftest import bearer, serving
from .settings import auth_settings, jwt_settings

CLAIMS = {
    "sub": "u1",
    "groups": ["staff", "ops"],
    "org": {"id": 42, "a/b": "slash", "m~n": "tilde", "flags": [True]},
}


@pytest.mark.parametrize(
    ("pointer", "expected"),
    [
        ("/groups", {"staff", "ops"}),
        ("/groups/1", {"ops"}),
        ("/org/id", {"42"}),
        ("/org/a~1b", {"slash"}),
        ("/org/m~0n", {"tilde"}),
        ("/org/flags", {"true"}),
        ("/org", set()),
        ("/missing/deeper", set()),
        ("/groups/01", set()),
        ("/groups/9", set()),
    ],
)
def test_json_pointers_reach_scalar_values(pointer: str, expected: set[str]) -> None:
    assert values_at(CLAIMS, parse_pointer(pointer)) == expected


@pytest.mark.parametrize("pointer", ["groups", "/a~2b", "/~"])
def test_malformed_pointers_are_refused(pointer: str) -> None:
    with pytest.raises(ValueError):
        parse_pointer(pointer)


async def test_claim_match_any_needs_one_value_and_all_needs_every_value() -> None:
    assert await ClaimMatch("/groups", frozenset({"ops", "admin"}), False).admits("i", CLAIMS)
    assert not await ClaimMatch("/groups", frozenset({"ops", "admin"}), True).admits("i", CLAIMS)
    assert await ClaimMatch("/groups", frozenset({"ops", "staff"}), True).admits("i", CLAIMS)
    assert not await ClaimMatch("/nothing", frozenset({"x"}), False).admits("i", CLAIMS)


async def test_registered_admission_reads_the_allow_list(rdb_store: str) -> None:
    engine = create_engine(rdb_store)
    issuer = f"https://issuer-{uuid.uuid4().hex}.example"
    try:
        allow = RdbAllowList(engine)
        policy = Registered(allow, ["sub", "email"])
        assert not await policy.admits(issuer, {"sub": "u1", "email": "u1@example.com"})
        await allow.add(issuer, "email", "u1@example.com", "invited")
        await allow.add(issuer, "email", "u1@example.com", "twice is harmless")
        assert await policy.admits(issuer, {"sub": "u1", "email": "u1@example.com"})
        assert not await policy.admits("https://other.example", {"sub": "u1", "email": "u1@example.com"})
        assert await allow.remove(issuer, "email", "u1@example.com")
        assert not await policy.admits(issuer, {"sub": "u1", "email": "u1@example.com"})
    finally:
        await engine.dispose()


async def test_registered_jwt_callers_must_be_on_the_allow_list(
    issuer: LocalIssuer, store: StoreBackend
) -> None:
    settings = auth_settings(jwt_settings(issuer.url, admission="registered"))
    async with serving(settings, store) as (client, _):
        assert (await client.get("/api/me", headers=bearer(issuer.mint("carol")))).status_code == 401
        await admission.allow(issuer.url, "sub", "carol")
        assert (await client.get("/api/me", headers=bearer(issuer.mint("carol")))).status_code == 200
        assert (await client.get("/api/me", headers=bearer(issuer.mint("dave")))).status_code == 401
        assert await admission.disallow(issuer.url, "sub", "carol")
        assert (await client.get("/api/me", headers=bearer(issuer.mint("carol")))).status_code == 401


def test_registered_claims_default_to_the_identity_claim() -> None:
    assert admission.registered_claim_names("", "sub") == ["sub"]
    assert admission.registered_claim_names("email, sub", "sub") == ["email", "sub"]
