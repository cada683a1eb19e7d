"""The registered-claim checks access tokens and ID tokens share, and the parameters that tell them apart."""

from __future__ import annotations

from typing import Any

import pytest

from fw.auth.tokens import ClaimRejected, ClaimRules, check_claims

NOW = 1_000_000.0
ACCESS = ClaimRules(issuer="https://id.example", audiences=frozenset({"api"}), leeway=30)
ID_TOKEN = ClaimRules(
    issuer="https://id.example",
    audiences=frozenset({"client"}),
    leeway=60,
    max_age=24 * 3600,
    not_before=False,
    ignore_trailing_slash=True,
)


def claims(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "iss": "https://id.example",
        "aud": "api",
        "sub": "alice",
        "iat": NOW,
        "exp": NOW + 300,
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def rejected(found: dict[str, Any], rules: ClaimRules = ACCESS) -> ClaimRejected:
    with pytest.raises(ClaimRejected) as caught:
        check_claims(found, rules, NOW)
    return caught.value


def test_good_claims_give_back_expiry_and_issue_time() -> None:
    assert check_claims(claims(), ACCESS, NOW) == (NOW + 300, NOW)


@pytest.mark.parametrize(
    ("changes", "claim", "malformed"),
    [
        ({"iss": "https://other.example"}, "iss", False),
        ({"aud": ["x", 1]}, "aud", False),
        ({"exp": "soon"}, "exp", True),
        ({"exp": 10**400}, "exp", True),
        ({"exp": NOW - 31}, "exp", False),
        ({"iat": None}, "iat", True),
        ({"iat": NOW + 31}, "iat", False),
        ({"nbf": NOW + 31}, "nbf", False),
        ({"sub": ""}, "sub", True),
    ],
)
def test_each_failed_claim_is_named_so_callers_can_word_it(
    changes: dict[str, Any], claim: str, malformed: bool
) -> None:
    failure = rejected(claims(**changes))
    assert (failure.claim, failure.malformed) == (claim, malformed)


@pytest.mark.parametrize(
    ("aud", "accepted"),
    [
        ("api", True),
        (["api"], True),
        (["x", "api"], True),
        (["x", 1, "api"], True),
        ([{"an": "object"}, ["api"], "api"], True),
        ("API", False),
        (["x"], False),
        ([], False),
        ([{"an": "object"}, ["api"]], False),
        ({"api": True}, False),
        (1, False),
        (None, False),
    ],
)
def test_aud_is_one_string_or_an_array_naming_an_accepted_audience(aud: Any, accepted: bool) -> None:
    found = claims(aud=aud)
    if accepted:
        assert check_claims(found, ACCESS, NOW) == (NOW + 300, NOW)
    else:
        assert rejected(found).claim == "aud"


def test_claims_are_checked_in_the_promised_order() -> None:
    assert rejected(claims(iss="x", aud="y", sub="")).claim == "iss"
    assert rejected(claims(aud="y", exp=NOW - 100, sub="")).claim == "aud"
    assert rejected(claims(exp=NOW - 100, sub="")).claim == "exp"


def test_an_id_token_issuer_may_differ_by_a_trailing_slash_and_an_access_token_issuer_may_not() -> None:
    with_slash = claims(iss="https://id.example/", aud="client")
    assert check_claims(with_slash, ID_TOKEN, NOW)
    assert rejected(claims(iss="https://id.example/")).claim == "iss"


def test_an_id_token_issued_too_long_ago_is_refused_while_an_access_token_has_no_such_limit() -> None:
    old = {"iat": NOW - 25 * 3600, "exp": NOW + 300}
    assert rejected(claims(aud="client", **old), ID_TOKEN).claim == "iat"
    assert check_claims(claims(**old), ACCESS, NOW)


def test_not_before_is_only_checked_where_the_rules_ask_for_it() -> None:
    early = claims(aud="client", nbf=NOW + 3600)
    assert check_claims(early, ID_TOKEN, NOW)
    assert rejected(claims(nbf=NOW + 3600)).claim == "nbf"


@pytest.mark.parametrize("rules", [ACCESS, ID_TOKEN], ids=["access token", "ID token"])
def test_a_token_is_expired_at_exactly_exp_plus_leeway_and_valid_until_then(rules: ClaimRules) -> None:
    """RFC 7519 4.1.4: the current time must be before ``exp`` (here before ``exp + leeway``)."""
    exp = NOW - rules.leeway  # the clock reads exactly exp + leeway
    at_the_boundary = claims(aud=next(iter(rules.audiences)), iat=NOW - 600, exp=exp)
    assert rejected(at_the_boundary, rules).claim == "exp"
    just_before = claims(aud=next(iter(rules.audiences)), iat=NOW - 600, exp=exp + 0.001)
    assert check_claims(just_before, rules, NOW) == (exp + 0.001, NOW - 600)


def test_the_leeway_belongs_to_the_rules() -> None:
    expired_a_little = claims(aud="client", exp=NOW - 45)
    assert check_claims(expired_a_little, ID_TOKEN, NOW)
    assert rejected(claims(exp=NOW - 45)).claim == "exp"
