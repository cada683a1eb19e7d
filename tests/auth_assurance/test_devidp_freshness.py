"""The development provider honours max_age and prompt=login like a real provider with its own
sign-in: later authorizations answer from the earlier proof unless asked for a new one, and its
``auth_time`` levers stand in for providers that misbehave."""

from __future__ import annotations

import time
from typing import Any

import jwt
import pytest
from auth_oidc.test_devidp import authorize, code_from, redeem

from fw.testing import TestIdentityProvider


def auth_time_of(idp: TestIdentityProvider, **extra: str) -> Any:
    """Authorize (as the preset user) with ``extra`` parameters; the ID token's ``auth_time``."""
    tokens = redeem(idp, code_from(authorize(idp, **extra))).json()
    claims = jwt.decode(tokens["id_token"], options={"verify_signature": False})
    return claims.get("auth_time", "absent")


@pytest.fixture
def proved(idp: TestIdentityProvider) -> int:
    """Alice signed in at the provider 100 seconds ago."""
    idp.login_user("alice")
    idp.state.signed_in["alice"] = int(time.time()) - 100
    return idp.state.signed_in["alice"]


def test_a_later_authorization_answers_from_the_providers_own_sign_in(
    idp: TestIdentityProvider, proved: int
) -> None:
    assert auth_time_of(idp) == proved


def test_prompt_login_makes_the_person_prove_it_again(idp: TestIdentityProvider, proved: int) -> None:
    fresh = auth_time_of(idp, prompt="login")
    assert fresh > proved and abs(fresh - time.time()) < 5
    assert auth_time_of(idp) == fresh  # the new proof is the provider's sign-in from now on


@pytest.mark.parametrize(("max_age", "renewed"), [("0", True), ("50", True), ("500", False)])
def test_max_age_renews_a_proof_older_than_it(
    idp: TestIdentityProvider, proved: int, max_age: str, renewed: bool
) -> None:
    answered = auth_time_of(idp, max_age=max_age)
    assert (answered > proved) is renewed and (answered == proved) is not renewed


def test_the_levers_answer_a_chosen_auth_time_or_none(idp: TestIdentityProvider, proved: int) -> None:
    idp.state.answer_auth_time = 12345
    assert auth_time_of(idp, prompt="login") == 12345
    idp.state.answer_auth_time = None
    idp.state.omit_auth_time = True
    assert auth_time_of(idp, max_age="0") == "absent"
