"""The verifier on its own: algorithms beyond RS256, the clock, and the verified facts."""

from __future__ import annotations

from datetime import timedelta

import pytest

from fw.auth.jwt.verifier import Policy, TokenRejected, Verifier
from fw.auth.tokens.algorithms import Key
from fw.testing.issuer import LocalIssuer


def _verifier(issuer: LocalIssuer, *, now: float | None = None, **policy: object) -> Verifier:
    async def key_for(kid: str | None, alg: str) -> Key | None:
        return next((k for k in issuer.published if k.kid == kid), None)

    base = Policy(
        issuer=issuer.url,
        audiences=frozenset({"api"}),
        algorithms=(issuer.algorithm,),
        max_token_lifetime=timedelta(hours=1),
    )
    for name, value in policy.items():
        object.__setattr__(base, name, value)
    if now is None:
        return Verifier(base, key_for)
    return Verifier(base, key_for, clock=lambda: now)


@pytest.mark.parametrize("algorithm", ["RS256", "PS256", "ES256", "ES384", "EdDSA", "Ed25519"])
async def test_every_supported_algorithm_verifies(algorithm: str) -> None:
    issuer = LocalIssuer(algorithm=algorithm)
    verified = await _verifier(issuer).verify(issuer.mint("alice", token_id="j1"))
    assert verified.identity == "alice"
    assert verified.token_id == "j1"
    assert verified.issuer == issuer.url


async def test_an_algorithm_outside_the_allow_list_is_refused_even_with_a_good_signature() -> None:
    issuer = LocalIssuer(algorithm="ES256")
    verifier = _verifier(issuer, algorithms=("RS256",))
    with pytest.raises(TokenRejected, match="not allowed"):
        await verifier.verify(issuer.mint())


async def test_a_small_clock_skew_is_tolerated_and_a_large_one_is_not() -> None:
    issuer = LocalIssuer()
    token = issuer.mint(issued_at=1_000_000, lifetime=timedelta(minutes=5))
    assert await _verifier(issuer, now=1_000_000 - 20).verify(token)
    assert await _verifier(issuer, now=1_000_300 + 20).verify(token)
    with pytest.raises(TokenRejected, match="expired"):
        await _verifier(issuer, now=1_000_300 + 31).verify(token)
    with pytest.raises(TokenRejected, match="future"):
        await _verifier(issuer, now=1_000_000 - 31).verify(token)


async def test_a_token_is_expired_at_exactly_exp_plus_the_leeway_on_a_fixed_clock() -> None:
    issuer = LocalIssuer()
    token = issuer.mint(issued_at=1_000_000, lifetime=timedelta(minutes=5))  # exp = 1_000_300
    assert await _verifier(issuer, now=1_000_300 + 30 - 0.001).verify(token)
    with pytest.raises(TokenRejected, match="expired"):
        await _verifier(issuer, now=1_000_300 + 30).verify(token)


async def test_a_token_not_yet_valid_is_refused() -> None:
    issuer = LocalIssuer()
    token = issuer.mint(issued_at=1_000_000, claims={"nbf": 1_000_200})
    with pytest.raises(TokenRejected, match="not yet valid"):
        await _verifier(issuer, now=1_000_100).verify(token)


def test_hmac_and_none_cannot_even_be_configured() -> None:
    issuer = LocalIssuer()
    with pytest.raises(ValueError):
        _verifier(issuer, algorithms=("HS256",))
    with pytest.raises(ValueError):
        _verifier(issuer, algorithms=("none",))


def _with_key_at_hand(issuer: LocalIssuer, lookups: list[str], *, at_hand: bool = True) -> Verifier:
    """A verifier whose ``fresh_key`` has the issuer's keys (or none), counting awaited lookups."""

    async def key_for(kid: str | None, alg: str) -> Key | None:
        lookups.append(f"{kid}")
        return next((k for k in issuer.published if k.kid == kid), None)

    def fresh_key(kid: str | None, alg: str) -> Key | None:
        return next((k for k in issuer.published if k.kid == kid), None) if at_hand else None

    policy = Policy(
        issuer=issuer.url,
        audiences=frozenset({"api"}),
        algorithms=(issuer.algorithm,),
        max_token_lifetime=timedelta(hours=1),
    )
    return Verifier(policy, key_for, fresh_key=fresh_key)


async def test_a_token_whose_key_is_at_hand_is_verified_without_awaiting_and_as_verify_does() -> None:
    issuer = LocalIssuer()
    lookups: list[str] = []
    verifier = _with_key_at_hand(issuer, lookups)
    token = issuer.mint("alice", token_id="j1")
    now = verifier.verify_now(token)
    assert now is not None and now.identity == "alice" and now.token_id == "j1"
    assert now == await verifier.verify(token)
    assert lookups == []


async def test_without_the_key_at_hand_nothing_is_decided_until_the_key_is_awaited() -> None:
    issuer = LocalIssuer()
    lookups: list[str] = []
    token = issuer.mint("alice")
    for verifier in (_with_key_at_hand(issuer, lookups, at_hand=False), _verifier(issuer)):
        assert verifier.verify_now(token) is None
        assert (await verifier.verify(token)).identity == "alice"
    assert lookups == [issuer.signing_key.kid]


def test_a_bad_token_is_refused_without_awaiting_when_its_key_is_at_hand() -> None:
    issuer = LocalIssuer()
    verifier = _with_key_at_hand(issuer, [])
    header, payload, _signature = issuer.mint("alice").split(".")
    forged = f"{header}.{payload}.{issuer.mint('mallory').split('.')[2]}"
    for token in (forged, issuer.mint("alice", audience="elsewhere"), "not-a-token"):
        with pytest.raises(TokenRejected):
            verifier.verify_now(token)
