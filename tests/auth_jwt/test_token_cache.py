"""The verified-token cache: what it remembers, for how long, when it forgets, and what it never skips."""

from __future__ import annotations

import uuid
from dataclasses import FrozenInstanceError, replace
from datetime import timedelta
from typing import Any

import pytest

import fw.auth
from fw._fw_config import LOADERS
from fw.auth import admission
from fw.auth.caller import Authentication, Caller
from fw.auth.jwt.cache import SEEN_PER_ENTRY, CachedToken, TokenCache, signed_prefix, token_digest
from fw.auth.jwt.verifier import Policy, TokenRejected, VerifiedToken, Verifier
from fw.auth.modes.jwt_only import middleware as bearer_middleware
from fw.auth.plugin import check
from fw.auth.tokens.algorithms import Key
from fw.errors import StartupError
from fw.testing.issuer import LocalIssuer

from .conftest import bearer, serving
from .settings import auth_settings, jwt_settings, mode_settings, revocation

NOW = 1_000_000.0


class Clock:
    def __init__(self, now: float = NOW) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Keys:
    """The issuer's published keys, counting lookups (one lookup per full verification)."""

    def __init__(self, issuer: LocalIssuer) -> None:
        self.issuer = issuer
        self.lookups = 0
        self.version = 1
        self.during_lookup: list[object] = []

    async def key_for(self, kid: str | None, alg: str) -> Key | None:
        self.lookups += 1
        if self.during_lookup:
            self.version = self.during_lookup.pop()
        return next((k for k in self.issuer.published if k.kid == kid), None)


def _verifier(keys: Keys, clock: Clock, *, size: int = 16, **policy: object) -> Verifier:
    base = Policy(
        issuer=keys.issuer.url,
        audiences=frozenset({"api"}),
        algorithms=("RS256",),
        max_token_lifetime=timedelta(hours=1),
    )
    return Verifier(
        replace(base, **policy),  # type: ignore[arg-type]
        keys.key_for,
        clock=clock,
        cache_size=size,
        key_version=lambda: keys.version,
    )


def _mint(issuer: LocalIssuer, subject: str = "alice", **options: object) -> str:
    return issuer.mint(subject, issued_at=NOW, lifetime=timedelta(minutes=5), **options)  # type: ignore[arg-type]


async def _cached(verifier: Verifier, token: str) -> None:
    """Verify ``token`` twice: the second verification admits it to the cache."""
    await verifier.verify(token)
    await verifier.verify(token)


# What is remembered -----------------------------------------------------------------------------
async def test_a_token_seen_once_is_not_kept_and_its_second_verification_admits_it() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock)
    token = _mint(issuer)
    await verifier.verify(token)
    assert verifier.cache is not None and len(verifier.cache) == 0
    await verifier.verify(token)
    assert len(verifier.cache) == 1
    assert keys.lookups == 2


async def test_a_repeated_token_is_then_served_with_the_same_facts_every_time() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock)
    token = _mint(issuer, token_id="j1")
    first = await verifier.verify(token)
    again = [await verifier.verify(token) for _ in range(4)]
    assert keys.lookups == 2
    for verified in again:
        assert verified == first
    assert (first.identity, first.token_id, first.issued_at, first.issuer) == ("alice", "j1", NOW, issuer.url)


async def test_the_remembered_entry_is_there_only_for_an_admitted_token_and_holds_its_facts() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock)
    token = _mint(issuer, token_id="j1")
    verified = await verifier.verify(token)
    assert verifier.remembered(token) is None
    await verifier.verify(token)
    entry = verifier.remembered(token)
    assert entry is not None
    assert (entry.identity, entry.token_id, entry.issued_at) == ("alice", "j1", NOW)
    assert entry.claims() == verified.claims and entry.claims() is not entry.claims()
    assert verifier.remembered(_mint(issuer, "bob")) is None
    clock.now = entry.expires_at
    assert verifier.remembered(token) is None


async def test_check_now_checks_a_token_with_the_key_at_hand_without_looking_in_the_cache() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    at_hand = Verifier(
        _verifier(keys, clock).policy,
        keys.key_for,
        clock=clock,
        cache_size=16,
        key_version=lambda: keys.version,
        fresh_key=lambda kid, alg: next((k for k in issuer.published if k.kid == kid), None),
    )
    token, other = _mint(issuer), _mint(issuer, "bob")
    await _cached(at_hand, token)
    finished: list[str] = []
    finish = at_hand._finish

    def counted(token: str, *parts: Any, **options: Any) -> VerifiedToken:
        finished.append(token)
        return finish(token, *parts, **options)

    at_hand._finish = counted  # type: ignore[method-assign]
    assert isinstance(at_hand.remembered(token), CachedToken)
    checked = at_hand.check_now(other)
    assert isinstance(checked, VerifiedToken) and checked.identity == "bob"
    assert finished == [other]
    again = at_hand.check_now(token)  # remembered, but checked all the same
    assert finished == [other, token] and again == await at_hand.verify(token)
    assert at_hand.verify_now(token) == await at_hand.verify(token)
    assert finished == [other, token]  # verify_now and verify answered from the cache
    assert _verifier(keys, clock).check_now(other) is None  # no key at hand: left to check()
    with pytest.raises(TokenRejected):
        at_hand.check_now(_mint(issuer, audience="elsewhere"))


async def test_each_request_gets_its_own_claims_and_header_from_a_cached_token() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock)
    token = _mint(issuer, claims={"groups": ["staff"]})
    await verifier.verify(token)
    first = await verifier.verify(token)
    first.claims["sub"] = "mallory"
    first.claims["groups"].append("admin")
    first.header["kid"] = "other"
    second = await verifier.verify(token)
    third = await verifier.verify(token)
    second.claims["groups"].append("root")
    assert keys.lookups == 2
    assert third.claims["sub"] == "alice"
    assert third.claims["groups"] == ["staff"]
    assert third.header["kid"] == issuer.signing_key.kid


async def test_a_token_differing_by_one_character_is_its_own_entry_and_is_verified() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock)
    token = _mint(issuer)
    await _cached(verifier, token)
    tampered = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    with pytest.raises(TokenRejected):
        await verifier.verify(tampered)
    assert keys.lookups == 3
    assert token_digest(token) != token_digest(tampered)


# How long ---------------------------------------------------------------------------------------
async def test_an_entry_is_never_used_past_the_tokens_exp_even_inside_the_leeway() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock)
    token = _mint(issuer)  # exp = NOW + 300
    await _cached(verifier, token)
    clock.now = NOW + 299
    await verifier.verify(token)
    assert keys.lookups == 2
    clock.now = NOW + 300
    await verifier.verify(token)  # re-verified from scratch: the leeway still accepts it
    assert keys.lookups == 3
    clock.now = NOW + 331
    with pytest.raises(TokenRejected, match="expired"):
        await verifier.verify(token)


def test_the_table_itself_refuses_an_entry_already_past_its_exp() -> None:
    cache = TokenCache(4, clock=lambda: NOW, key_version=lambda: 1)
    entry = CachedToken(token_digest("t"), dict, {}, "alice", None, NOW - 600, NOW - 300)
    cache.put("t", entry, version=1)
    assert cache.get("t") is None
    assert len(cache) == 0


def test_an_entry_answers_only_the_token_whose_digest_it_holds() -> None:
    cache = TokenCache(4, clock=lambda: NOW, key_version=lambda: 1)
    entry = CachedToken(token_digest("other"), dict, {}, "alice", None, NOW, NOW + 300)
    cache.put("t", entry, version=1)  # filed under "t" but vouching for another token
    assert cache.get("t") is None


@pytest.mark.parametrize(
    "presented", ["h.x.s", "x.p.s", "h.p.s2", "h.p.", "hh.p.s", "h.p.x.s", "s", ".s", "p.s"]
)
def test_an_entry_answers_no_token_differing_in_any_segment_even_with_the_same_signature(
    presented: str,
) -> None:
    cache = TokenCache(4, clock=lambda: NOW, key_version=lambda: 1)
    vouched = "h.p.s"
    entry = CachedToken(
        token_digest(vouched), dict, {}, "alice", None, NOW, NOW + 300, prefix=signed_prefix(vouched)
    )
    cache.put(presented, entry, version=1)  # filed under the presented token's hash
    assert cache.get(presented) is None
    cache.put(vouched, entry, version=1)
    assert cache.get(vouched) is entry


async def test_the_least_recently_used_token_is_evicted_when_the_cache_is_full() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock, size=2)
    a, b, c = (_mint(issuer, name) for name in ("a", "b", "c"))
    await _cached(verifier, a)
    await _cached(verifier, b)
    await verifier.verify(a)  # a hit: a was used after b, so b is the one to go
    await _cached(verifier, c)
    assert keys.lookups == 6
    await verifier.verify(a)
    await verifier.verify(c)
    assert keys.lookups == 6
    await verifier.verify(b)
    assert keys.lookups == 7
    assert verifier.cache is not None and len(verifier.cache) == 2


# When it forgets --------------------------------------------------------------------------------
async def test_a_change_of_key_set_drops_every_entry() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock)
    token = _mint(issuer)
    await _cached(verifier, token)
    keys.version = 2
    await verifier.verify(token)
    assert keys.lookups == 3
    assert verifier.cache is not None and len(verifier.cache) == 0


# Each test builds its own issuer, keys, clock and cached token so it reads whole; the outcomes differ.
async def test_a_key_the_issuer_withdrew_stops_vouching_for_cached_tokens() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock)
    token = _mint(issuer)
    await _cached(verifier, token)
    issuer.rotate(keep_previous=False)
    keys.version = 2
    with pytest.raises(TokenRejected, match="no published key"):
        await verifier.verify(token)


async def test_a_token_verified_while_the_key_set_changed_is_not_kept() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock)
    token = _mint(issuer)
    await verifier.verify(token)
    keys.during_lookup.append(2)  # the key set changes while the admitting check runs
    await verifier.verify(token)
    assert verifier.cache is not None and len(verifier.cache) == 0
    await _cached(verifier, token)  # under the new version: seen, then admitted
    await verifier.verify(token)
    assert keys.lookups == 4


# What is never cached ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "policy"),
    [
        ({"audience": "other"}, {}),
        ({"token_type": "JWT"}, {}),
        ({"lifetime": timedelta(hours=2)}, {}),
        ({}, {"required_scopes": frozenset({"orders.write"})}),
        ({"claims": {"sub": ""}}, {}),
    ],
    ids=["audience", "token type", "lifetime", "scope", "identity"],
)
async def test_a_token_that_failed_a_check_is_never_cached(
    options: dict[str, object], policy: dict[str, object]
) -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock, **policy)
    token = issuer.mint(issued_at=NOW, **{"lifetime": timedelta(minutes=5), **options})  # type: ignore[arg-type]
    for _ in range(2):
        with pytest.raises(TokenRejected):
            await verifier.verify(token)
    assert keys.lookups == 2
    assert verifier.cache is not None and len(verifier.cache) == 0


async def test_a_bad_signature_is_refused_every_time_and_leaves_nothing_behind() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock)
    head, body, _ = _mint(issuer, "admin").split(".")
    forged = ".".join([head, body, _mint(issuer, "alice").split(".")[2]])  # alice's signature
    for _ in range(2):
        with pytest.raises(TokenRejected, match="signature"):
            await verifier.verify(forged)
    assert verifier.cache is not None and len(verifier.cache) == 0


def test_a_size_of_zero_means_no_cache_at_all() -> None:
    issuer = LocalIssuer()
    keys = Keys(issuer)
    policy = Policy(issuer.url, frozenset({"api"}), ("RS256",), timedelta(hours=1))
    assert Verifier(policy, keys.key_for, cache_size=0).cache is None
    with pytest.raises(ValueError):
        TokenCache(0)


# Through the jwt_only middleware ----------------------------------------------------------------
# Arranged like the revocation tests (test_revocation.py) on purpose: each test reads whole.
async def test_revocation_still_runs_on_every_request_for_a_cached_token(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("both")))
    async with serving(settings, sqlite_store) as (client, extension):
        jti = uuid.uuid4().hex
        token = issuer.mint(token_id=jti)
        for _ in range(3):
            assert (await client.get("/api/me", headers=bearer(token))).status_code == 200
        assert extension.running is not None and extension.running.verifier.cache is not None
        assert len(extension.running.verifier.cache) == 1
        await fw.auth.revoke_token(issuer.url, jti, "leaked")
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 401


async def test_admission_still_runs_on_every_request_for_a_cached_token(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    settings = auth_settings(jwt_settings(issuer.url, admission="registered"))
    async with serving(settings, sqlite_store) as (client, _):
        token = issuer.mint("carol")
        await admission.allow(issuer.url, "sub", "carol")
        for _ in range(3):
            assert (await client.get("/api/me", headers=bearer(token))).status_code == 200
        assert await admission.disallow(issuer.url, "sub", "carol")
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 401


async def test_the_configured_size_reaches_the_verifier_and_zero_turns_it_off(issuer: LocalIssuer) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url, token_cache_size=7))) as (_, extension):
        assert extension.running is not None and extension.running.verifier.cache is not None
        assert extension.running.verifier.cache.size == 7
    async with serving(auth_settings(jwt_settings(issuer.url, token_cache_size=0))) as (client, extension):
        assert extension.running is not None and extension.running.verifier.cache is None
        assert (await client.get("/api/me", headers=bearer(issuer.mint()))).status_code == 200


def test_the_default_size_is_1024_in_the_configuration_and_the_settings_class() -> None:
    loader = LOADERS["fw.auth.settings:AuthSettings"]
    field = next(f for f in loader.fields if f.key == "auth.jwt.token_cache_size")
    assert field.default == 1024
    assert jwt_settings("https://issuer.example").token_cache_size == 1024


def test_a_negative_size_is_a_startup_error_naming_the_key() -> None:
    settings = auth_settings(jwt_settings("https://issuer.example", token_cache_size=-1))
    with pytest.raises(StartupError) as refused:
        check(mode_settings(settings), lambda _key: "default")
    assert refused.value.key == "auth.jwt.token_cache_size"


async def test_a_verified_token_is_an_ordinary_frozen_verified_token_cached_or_not() -> None:
    issuer = LocalIssuer()
    keys, clock = Keys(issuer), Clock()
    verifier = _verifier(keys, clock)
    token = _mint(issuer, token_id="j1")
    results = [await verifier.verify(token) for _ in range(3)]  # checked, admitted, cached
    for verified in results:
        assert type(verified) is VerifiedToken
        assert verified == VerifiedToken(verified.claims, verified.header, issuer.url, "alice", "j1", NOW)
        with pytest.raises(FrozenInstanceError):
            verified.identity = "mallory"  # type: ignore[misc]


async def test_a_cached_token_and_a_checked_token_give_the_handler_the_same_caller(
    issuer: LocalIssuer,
) -> None:
    token = issuer.mint("grace", scope="orders.read")
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, extension):
        answers = [(await client.get("/api/me", headers=bearer(token))).json() for _ in range(3)]
        assert extension.running is not None and extension.running.verifier.cache is not None
        assert len(extension.running.verifier.cache) == 1
    assert answers[0] == answers[1] == answers[2]
    assert answers[2]["account_id"] == "grace" and answers[2]["method"] == "bearer"
    assert answers[2]["claims"]["scope"] == "orders.read"


def test_tokens_cycling_past_the_doorkeepers_memory_are_never_served_from_the_cache() -> None:
    cache = TokenCache(8, clock=lambda: NOW, key_version=lambda: 1)
    tokens = [f"h.p.s{n}" for n in range(SEEN_PER_ENTRY * cache.size + 1)]
    hits = 0
    for n in range(5 * len(tokens)):
        token = tokens[n % len(tokens)]
        if cache.get(token) is not None:
            hits += 1
        elif cache.admits(token):
            entry = CachedToken(
                token_digest(token), dict, {}, "a", None, NOW, NOW + 300, prefix=signed_prefix(token)
            )
            cache.put(token, entry, version=1)
    assert hits == 0


async def test_the_authentication_built_from_a_cache_entry_equals_the_one_a_full_check_builds(
    issuer: LocalIssuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded: list[Authentication] = []
    record = bearer_middleware.record

    def recording(scope: dict[str, Any], found: Authentication) -> None:
        recorded.append(found)
        record(scope, found)

    monkeypatch.setattr(bearer_middleware, "record", recording)
    token = issuer.mint("grace", scope="orders.read", claims={"groups": ["staff"]})
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, extension):
        for _ in range(3):  # checked, checked and admitted, then served from the cache
            assert (await client.get("/api/me", headers=bearer(token))).status_code == 200
        assert extension.running is not None
        cache = extension.running.verifier.cache
        assert cache is not None and len(cache) == 1
        entry = extension.running.verifier.remembered(token)
        assert entry is not None and entry.identity == "grace"
    checked, _, cached = recorded
    assert cached == checked
    assert type(cached.principal) is type(checked.principal) is Caller
    assert cached.principal.identity.claims is not checked.principal.identity.claims
