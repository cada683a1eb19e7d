"""The relying-party rules of DESIGN 9.1, checked before any ceremony can run."""

from __future__ import annotations

import pytest

from fw.auth.webauthn import RelyingParty, relying_party_problems


def _problems(
    rp_id: str = "example.com",
    origins: tuple[str, ...] = ("https://example.com",),
    *,
    rp_name: str = "Example",
    user_verification: str = "required",
) -> list[tuple[str, str]]:
    party = RelyingParty(rp_id, rp_name, origins, user_verification)
    return [(p.field, p.message) for p in relying_party_problems(party)]


@pytest.mark.parametrize(
    ("rp_id", "origins"),
    [
        ("example.com", ("https://example.com",)),
        ("example.com", ("https://login.example.com", "https://example.com:8443")),
        ("localhost", ("http://localhost:8000", "https://localhost")),
        ("app.localhost", ("http://app.localhost:5173",)),
        ("xn--bcher-kva.example", ("https://xn--bcher-kva.example",)),
        ("intranet", ("https://intranet",)),
    ],
)
def test_a_domain_rp_id_with_origins_on_it_or_under_it_has_no_problems(
    rp_id: str, origins: tuple[str, ...]
) -> None:
    assert _problems(rp_id, origins) == []


@pytest.mark.parametrize("rp_id", ["127.0.0.1", "10.0.0.1", "::1", "[::1]", "2001:db8::1"])
def test_an_ip_literal_rp_id_is_a_problem(rp_id: str) -> None:
    [(field, message)] = _problems(rp_id, ("https://example.com",))
    assert field == "rp_id"
    assert "IP address" in message


@pytest.mark.parametrize(
    "rp_id",
    ["", "Example.com", "example.com.", "exa mple.com", "-bad.com", "a..b", "example.1", "https://x.com"],
)
def test_an_rp_id_that_is_not_a_lower_case_domain_is_a_problem(rp_id: str) -> None:
    assert [field for field, _ in _problems(rp_id, ("https://example.com",))] == ["rp_id"]


def test_origins_are_not_judged_against_a_broken_rp_id() -> None:
    assert [field for field, _ in _problems("127.0.0.1", ("https://127.0.0.1",))] == ["rp_id"]


def test_at_least_one_origin_is_needed() -> None:
    [(field, message)] = _problems(origins=())
    assert field == "origins"
    assert "at least one" in message


@pytest.mark.parametrize(
    ("origin", "phrase"),
    [
        ("https://example.com/", "bare"),
        ("https://example.com/login", "bare"),
        ("https://example.com?x=1", "bare"),
        ("https://user@example.com", "bare"),
        ("example.com", "bare"),
        ("https://EXAMPLE.com", "lower case"),
        ("https://example.com:443", "default port"),
        ("http://example.com:80", "default port"),
        ("https://example.com:99999", "not a URL origin"),
        ("http://example.com", "only localhost"),
        ("ftp://example.com", "must use https"),
        ("https://example.org", "not 'example.com' or under it"),
        ("https://badexample.com", "not 'example.com' or under it"),
    ],
)
def test_an_origin_that_is_not_a_bare_https_origin_on_the_rp_id_is_a_problem(
    origin: str, phrase: str
) -> None:
    [(field, message)] = _problems("example.com", (origin,))
    assert field == "origins"
    assert phrase in message
    assert origin in message


def test_http_is_allowed_only_for_localhost_and_its_subdomains() -> None:
    assert _problems("localhost", ("http://localhost:8000", "http://a.localhost")) == []
    assert [f for f, _ in _problems("localhost", ("http://127.0.0.1:8000",))] == ["origins"]
    assert [f for f, _ in _problems("localhost.example", ("http://localhost.example",))] == ["origins"]


def test_every_bad_origin_is_reported() -> None:
    assert (
        len(_problems("example.com", ("https://example.org", "http://example.com", "https://example.com")))
        == 2
    )


def test_an_empty_rp_name_is_a_problem() -> None:
    assert [f for f, _ in _problems(rp_name="  ")] == ["rp_name"]


@pytest.mark.parametrize("value", ["required", "preferred", "discouraged"])
def test_the_three_user_verification_values_are_accepted(value: str) -> None:
    assert _problems(user_verification=value) == []


def test_any_other_user_verification_value_is_a_problem() -> None:
    [(field, message)] = _problems(user_verification="always")
    assert field == "user_verification"
    assert "required, preferred, discouraged" in message


def test_only_required_user_verification_is_insisted_on() -> None:
    assert RelyingParty("a.com", "A", ("https://a.com",)).requires_user_verification
    assert not RelyingParty("a.com", "A", ("https://a.com",), "preferred").requires_user_verification
