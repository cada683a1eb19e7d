"""Arbitrary input never escapes as anything but a rejection (so never as a 500)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fw.auth.jwt.verifier import Policy, TokenRejected, Verifier
from fw.auth.modes.jwt_only.middleware import _authorization
from fw.auth.tokens.algorithms import Key
from fw.testing.issuer import LocalIssuer

ISSUER = LocalIssuer()
VALID = ISSUER.mint("fuzz", lifetime=timedelta(minutes=30))


async def _key_for(kid: str | None, alg: str) -> Key | None:
    return ISSUER.signing_key if kid == ISSUER.signing_key.kid else None


VERIFIER = Verifier(
    Policy(
        issuer=ISSUER.url,
        audiences=frozenset({"api"}),
        algorithms=("RS256", "ES256"),
        max_token_lifetime=timedelta(hours=1),
    ),
    _key_for,
)


def _outcome(token: str) -> str:
    try:
        asyncio.run(VERIFIER.verify(token))
    except TokenRejected:
        return "rejected"
    return "accepted"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_arbitrary_text_is_only_ever_rejected(token: str) -> None:
    assert _outcome(token) == "rejected"


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=len(VALID) - 1), st.characters(codec="ascii"))
def test_any_single_character_change_to_a_valid_token_is_rejected(position: int, char: str) -> None:
    mutated = VALID[:position] + char + VALID[position + 1 :]
    if mutated == VALID:
        return
    outcome = _outcome(mutated)  # any exception other than TokenRejected fails the test
    if position < VALID.rindex("."):
        assert outcome == "rejected"  # the signed text changed: the signature cannot match


_NAMES = st.sampled_from([b"authorization", b"x-other"]) | st.binary(max_size=20)
_VALUES = st.binary(max_size=200) | st.builds(
    lambda scheme, rest: scheme + rest,
    st.sampled_from([b"Bearer ", b"bearer  ", b"BEARER", b"Basic "]),
    st.binary(max_size=200),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_NAMES, _VALUES), max_size=4))
def test_any_header_list_parses_to_anonymous_a_token_or_a_rejection(
    headers: list[tuple[bytes, bytes]],
) -> None:
    presented, token = _authorization({"headers": [(name.lower(), value) for name, value in headers]})
    assert isinstance(presented, bool)
    assert token is None or (presented and token.isascii())


def test_the_unmutated_token_is_accepted() -> None:
    assert _outcome(VALID) == "accepted"
