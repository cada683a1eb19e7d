"""Attacks on the provider round trip of every browser mode: nothing signs in who should not.

Each test runs against ``oidc_only``, ``oidc_passkey`` and, where the attack applies to a
provider without ID tokens, ``oauth_only``. Every refusal is a problem document, the browser stays
signed out, and the session store holds no session it should not (counted in the database).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote, urlsplit

import httpx2
import pytest
from auth_oidc.support import with_query
from joserfc import jwt
from joserfc.jwk import RSAKey

from fw.auth.modes.oidc_only import login as oidc_login
from fw.auth.oidc import exchange as token_module

from .browser_modes import BROWSER_MODES, OIDC_MODES, ORIGIN, Site, query_of, running_site


@pytest.fixture
def site(request: pytest.FixtureRequest, sqlite_dsn: str) -> Iterator[Site]:
    with running_site(request.param, sqlite_dsn) as running:
        yield running


every_mode = pytest.mark.parametrize("site", BROWSER_MODES, indirect=True)
oidc_modes = pytest.mark.parametrize("site", OIDC_MODES, indirect=True)


def assert_refused(site: Site, response: httpx2.Response, *, sessions: int = 0, status: int = 400) -> None:
    """A problem document, no session cookie set, and exactly ``sessions`` sessions stored."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert not [
        cookie
        for cookie in response.headers.get_list("set-cookie")
        if cookie.startswith("fw_session=") and "Max-Age=0" not in cookie
    ]
    assert site.sessions() == sessions


# State.


@every_mode
def test_a_callback_without_state_signs_nobody_in(site: Site) -> None:
    url = site.callback_url()
    assert_refused(site, site.browser.get(with_query(url, state=None), follow_redirects=False))
    assert site.who() is None


@every_mode
@pytest.mark.parametrize("tamper", ["flip-last", "empty", "other-attempt-shape", "doubled"])
def test_a_tampered_state_signs_nobody_in(site: Site, tamper: str) -> None:
    url = site.callback_url()
    state = query_of(url)["state"]
    forged = {
        "flip-last": state[:-1] + ("A" if state[-1] != "A" else "B"),
        "empty": "",
        "other-attempt-shape": "x" * len(state),
        "doubled": state + state,
    }[tamper]
    assert_refused(site, site.browser.get(with_query(url, state=forged), follow_redirects=False))
    assert site.who() is None


@every_mode
def test_a_replayed_callback_signs_nobody_in_again(site: Site) -> None:
    url = site.callback_url()
    assert site.browser.get(url, follow_redirects=False).status_code == 303
    assert site.browser.logout().status_code == 303
    assert site.sessions() == 0
    assert_refused(site, site.browser.get(url, follow_redirects=False))
    assert site.who() is None


@every_mode
def test_a_replayed_callback_while_signed_in_adds_no_session(site: Site) -> None:
    url = site.callback_url()
    assert site.browser.get(url, follow_redirects=False).status_code == 303
    assert_refused(site, site.browser.get(url, follow_redirects=False), sessions=1)


@every_mode
def test_a_callback_carried_to_another_browser_signs_nobody_in_and_spares_the_real_one(site: Site) -> None:
    url = site.callback_url()
    other = site.another_browser()
    assert_refused(site, other.get(url, follow_redirects=False))
    assert site.who(other) is None
    # The genuine browser's attempt survived the foreign use of its URL.
    assert site.browser.get(url, follow_redirects=False).status_code == 303
    assert site.who() == site.account_of("alice")
    assert site.sessions() == 1


# Login CSRF: the attacker finishes the provider step as themself and makes the victim land.


@every_mode
def test_login_csrf_with_the_attackers_callback_signs_the_victim_in_as_nobody(site: Site) -> None:
    attacker = site.another_browser()
    planted = site.callback_url(attacker, who="bob")
    victim = site.browser
    assert_refused(site, victim.get(planted, follow_redirects=False))
    # Even while the victim has a sign-in of their own in progress.
    own = site.callback_url(victim, who="alice")
    assert_refused(site, victim.get(planted, follow_redirects=False))
    assert site.who(victim) is None
    assert victim.get(own, follow_redirects=False).status_code == 303
    alice = site.who(victim)
    assert alice == site.account_of("alice")
    site.sign_in(attacker, who="bob")
    assert site.who(attacker) == site.account_of("bob") != alice


# Codes.


@every_mode
def test_a_code_replayed_into_a_fresh_sign_in_creates_no_session(site: Site) -> None:
    first = site.callback_url()
    assert site.browser.get(first, follow_redirects=False).status_code == 303
    site.browser.logout()
    used_code = query_of(first)["code"]
    fresh = site.callback_url()
    response = site.browser.get(with_query(fresh, code=used_code), follow_redirects=False)
    assert_refused(site, response)
    assert site.who() is None


@every_mode
def test_a_code_for_another_browser_cannot_finish_this_browsers_attempt(site: Site) -> None:
    attacker = site.another_browser()
    stolen_code = query_of(site.callback_url(attacker, who="bob"))["code"]
    own = site.callback_url()
    # The code was issued for the attacker's PKCE verifier: the provider refuses the exchange.
    assert_refused(site, site.browser.get(with_query(own, code=stolen_code), follow_redirects=False))
    assert site.who() is None


# Mix-up (RFC 9207): OpenID providers name themselves in the answer; X has no issuer parameter.


@oidc_modes
@pytest.mark.parametrize(
    "iss",
    ["http://127.0.0.1:1", "https://evil.example", "", "{issuer}.evil.example", "{issuer}/x", "{issuer}:1"],
)
def test_a_response_naming_another_issuer_signs_nobody_in(site: Site, iss: str) -> None:
    url = site.callback_url()
    named = iss.format(issuer=site.provider.issuer)
    assert_refused(site, site.browser.get(with_query(url, iss=named), follow_redirects=False))
    assert site.who() is None


# Open redirect through next, in every encoding a router or browser might decode.

HOSTILE_NEXT = [
    "//evil.example",
    "///evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "https://evil.example",
    "HTTPS://evil.example/",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "%2F%2Fevil.example",
    "/%2F/evil.example",
    "/%2f%2fevil.example",
    "%252F%252Fevil.example",
    "/%252F%252Fevil.example",
    "/%5Cevil.example",
    "/%5C%5Cevil.example",
    "/%09/evil.example",
    "/\t/evil.example",
    "/\r\n/evil.example",
    "/%0d%0aLocation:%20https://evil.example",
    "/./..//evil.example",
    "/%2e%2e//evil.example",
    "/a/../..//evil.example",
    "\u2215\u2215evil.example",
    "/\uff0f/evil.example",
    "\uff0f\uff0fevil.example",
    " //evil.example",
    "http:evil.example",
    "/" + "a" * 5000,
]


def _lands_on_this_site(location: str) -> bool:
    parts = urlsplit(location)
    same_origin = (not parts.scheme and not parts.netloc) or f"{parts.scheme}://{parts.netloc}" == ORIGIN
    return same_origin and parts.path.startswith("/") and not parts.path.startswith(("//", "/\\"))


@every_mode
@pytest.mark.parametrize("target", HOSTILE_NEXT, ids=range(len(HOSTILE_NEXT)))
def test_next_in_any_encoding_never_leaves_the_site(site: Site, target: str) -> None:
    url = site.callback_url(next=target)
    landed = site.browser.get(url, follow_redirects=False)
    assert landed.status_code == 303, landed.text
    location = landed.headers["location"]
    assert _lands_on_this_site(location), location
    assert location.isascii() and not any(ch in location for ch in "\t\r\n\\"), location
    assert site.sessions() == 1


@every_mode
def test_a_safe_next_is_kept(site: Site) -> None:
    landed = site.browser.get(site.callback_url(next="/private/report?x=1"), follow_redirects=False)
    assert landed.headers["location"] == "/private/report?x=1"


# Session fixation.

#: Where the test client's cookie jar files cookies set by http://localhost (a host without a dot).
COOKIE_DOMAIN = "localhost.local"


@every_mode
@pytest.mark.parametrize("planted", ["attackers-session", "made-up"])
def test_a_planted_session_cookie_is_replaced_at_sign_in(site: Site, planted: str) -> None:
    attacker = site.another_browser()
    if planted == "attackers-session":
        site.sign_in(attacker, who="bob")
        value = attacker.cookies["fw_session"]
    else:
        value = base64.urlsafe_b64encode(b"fixed-by-the-attacker" * 2).decode().rstrip("=")
    victim = site.browser
    victim.cookies.set("fw_session", value, domain=COOKIE_DOMAIN, path="/")
    site.sign_in(victim, who="alice")
    alice = site.who(victim)
    assert alice == site.account_of("alice")
    assert [c.domain for c in victim.cookies.jar if c.name == "fw_session"] == [COOKIE_DOMAIN]
    assert victim.cookies["fw_session"] != value
    # The attacker's copy of the planted value never became the victim's session: the session
    # it named ended when the victim signed in over it.
    spy = site.another_browser()
    spy.cookies.set("fw_session", value, domain=COOKIE_DOMAIN, path="/")
    assert site.who(spy) is None
    assert site.sessions() == 1


# Logout forms posted from another site.


@every_mode
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site", "Origin": "http://sub.localhost"},
        {"Referer": "https://evil.example/page"},
        {"Origin": "http://localhost:8001"},
    ],
    ids=["origin", "null-origin", "fetch-metadata", "sibling-site", "referer", "other-port"],
)
def test_a_logout_form_posted_cross_site_leaves_the_session_alone(
    site: Site, headers: dict[str, str]
) -> None:
    site.sign_in()
    who = site.who()
    response = site.browser.post("/auth/logout", headers=headers, follow_redirects=False)
    assert response.status_code == 403, response.text
    assert response.json()["code"] == "cross_origin"
    assert site.who() == who
    assert site.sessions() == 1


# ID tokens the provider never issued for this sign-in.


class IdTokenSwap:
    """Replaces the ID token the provider answered with one the test makes from it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seen: list[str] = []
        self.make: Callable[[str], str] | None = None
        original = token_module.exchange_code

        async def exchange(*args: Any, **kwargs: Any) -> token_module.Tokens:
            real = await original(*args, **kwargs)
            self.seen.append(real.id_token)
            if self.make is None:
                return real
            return token_module.Tokens(
                access_token=real.access_token, token_type="Bearer", id_token=self.make(real.id_token)
            )

        monkeypatch.setattr(oidc_login, "exchange_code", exchange)


@pytest.fixture
def swap(monkeypatch: pytest.MonkeyPatch) -> IdTokenSwap:
    return IdTokenSwap(monkeypatch)


def _b64(data: dict[str, Any] | bytes) -> str:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _claims(site: Site, id_token: str) -> dict[str, Any]:
    return dict(jwt.decode(id_token, site.provider.running.provider.key).claims)


@oidc_modes
def test_an_id_token_replayed_with_its_old_nonce_signs_nobody_in(site: Site, swap: IdTokenSwap) -> None:
    site.sign_in()
    site.browser.logout()
    captured = swap.seen[-1]
    swap.make = lambda _fresh: captured
    assert_refused(site, site.browser.get(site.callback_url(), follow_redirects=False))
    assert site.who() is None


@oidc_modes
@pytest.mark.parametrize("alg", ["none", "None", "NONE", "nOnE"])
def test_an_unsigned_id_token_signs_nobody_in(site: Site, swap: IdTokenSwap, alg: str) -> None:
    def unsigned(real: str) -> str:
        return f"{_b64({'alg': alg, 'typ': 'JWT'})}.{_b64(_claims(site, real))}."

    swap.make = unsigned
    assert_refused(site, site.browser.get(site.callback_url(), follow_redirects=False))
    assert site.who() is None


@oidc_modes
@pytest.mark.parametrize("kid", ["providers", "own"])
def test_an_id_token_signed_by_another_key_signs_nobody_in(site: Site, swap: IdTokenSwap, kid: str) -> None:
    provider_kid = site.provider.running.provider.key.kid
    stranger = RSAKey.generate_key(
        2048, parameters={"kid": provider_kid if kid == "providers" else "stranger"}
    )

    def resigned(real: str) -> str:
        return jwt.encode({"alg": "RS256", "kid": stranger.kid}, _claims(site, real), stranger)

    swap.make = resigned
    assert_refused(site, site.browser.get(site.callback_url(), follow_redirects=False))
    assert site.who() is None


@oidc_modes
def test_an_id_token_hmac_signed_with_the_providers_public_key_signs_nobody_in(
    site: Site, swap: IdTokenSwap
) -> None:
    import hashlib
    import hmac

    public_pem = site.provider.running.provider.key.as_pem(private=False)

    def forged(real: str) -> str:
        text = f"{_b64({'alg': 'HS256', 'typ': 'JWT'})}.{_b64(_claims(site, real))}"
        return f"{text}.{_b64(hmac.new(public_pem, text.encode(), hashlib.sha256).digest())}"

    swap.make = forged
    assert_refused(site, site.browser.get(site.callback_url(), follow_redirects=False))


@oidc_modes
def test_the_swap_itself_passes_a_genuine_id_token_through(site: Site, swap: IdTokenSwap) -> None:
    swap.make = lambda real: real
    site.sign_in()
    assert site.who() == site.account_of("alice")
    assert site.sessions() == 1


def test_next_encodings_cover_percent_double_percent_and_unicode() -> None:
    joined = " ".join(HOSTILE_NEXT)
    for marker in ("%2F", "%252F", "%5C", "\uff0f", "\u2215", "%0d%0a", "\t"):
        assert marker in joined, marker
    assert quote("//evil.example", safe="") in HOSTILE_NEXT
