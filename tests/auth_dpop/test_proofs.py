"""DPoP proof verification (RFC 9449 4.3): every check refuses exactly what it is about."""

from __future__ import annotations

import time
from typing import Any

import pytest

from fw.auth.dpop import DpopRejected, NonceIssuer, ProofRules, ProofVerifier, SeenProofs, normalize_htu
from fw.auth.tokens.algorithms import ALGORITHMS

from .support import DpopClient, ath, forged

URL = "https://api.example.com/orders"
TOKEN = "access-token-value"
VERIFIER = ProofVerifier(ProofRules(algorithms=tuple(ALGORITHMS), max_age=300, leeway=5))


def verify(proof: str, **overrides: Any) -> Any:
    arguments: dict[str, Any] = {"method": "POST", "url": URL, "now": time.time(), "access_token": TOKEN}
    arguments.update(overrides)
    return VERIFIER.verify(proof, **arguments)


@pytest.mark.parametrize("alg", ["ES256", "ES384", "RS256", "PS256", "EdDSA"])
def test_a_proof_signed_with_an_allowed_algorithm_verifies_and_names_its_key(alg: str) -> None:
    client = DpopClient(alg)
    verified = verify(client.proof("POST", URL, TOKEN))
    assert verified.jkt == client.jkt


def test_the_query_and_fragment_of_htu_are_ignored_and_host_case_and_default_port_normalized() -> None:
    client = DpopClient()
    verify(client.proof("POST", "https://API.example.com:443/orders#top", TOKEN), url=f"{URL}?page=2")


BAD_PROOFS: dict[str, dict[str, Any]] = {
    "a typ other than dpop+jwt": {"header": {"typ": "JWT"}},
    "no typ": {"header": {"typ": None}},
    "no jwk": {"header": {"jwk": None}},
    "no jti": {"claims": {"jti": None}},
    "an over-long jti": {"claims": {"jti": "j" * 300}},
    "another method": {"claims": {"htm": "GET"}},
    "a lower-case method": {"claims": {"htm": "post"}},
    "another path": {"claims": {"htu": "https://api.example.com/other"}},
    "another host": {"claims": {"htu": "https://evil.example.com/orders"}},
    "another scheme": {"claims": {"htu": "http://api.example.com/orders"}},
    "a relative htu": {"claims": {"htu": "/orders"}},
    "no iat": {"claims": {"iat": None}},
    "an iat too old": {"iat_offset": -400},
    "an iat in the future": {"iat_offset": 60},
    "no ath": {"claims": {"ath": None}},
    "an ath of another token": {"claims": {"ath": "bm90IHRoZSB0b2tlbg"}},
}


@pytest.mark.parametrize("case", list(BAD_PROOFS))
def test_a_bad_proof_is_refused_as_invalid_dpop_proof(case: str) -> None:
    shaped = dict(BAD_PROOFS[case])
    offset = shaped.pop("iat_offset", None)
    if offset is not None:  # relative to now: the table is built long before some tests run
        shaped["iat"] = time.time() + offset
    proof = DpopClient().proof("POST", URL, TOKEN, **shaped)
    with pytest.raises(DpopRejected) as refused:
        verify(proof)
    assert refused.value.error == "invalid_dpop_proof"


def test_a_private_key_in_the_header_is_refused() -> None:
    client = DpopClient()
    proof = client.proof("POST", URL, TOKEN, header={"jwk": client.key.as_dict(private=True)})
    with pytest.raises(DpopRejected, match="not a public key"):
        verify(proof)


def _claims() -> dict[str, Any]:
    return {"jti": "j-1", "htm": "POST", "htu": URL, "iat": int(time.time()), "ath": ath(TOKEN)}


def test_a_symmetric_key_and_an_hmac_algorithm_are_refused() -> None:
    client = DpopClient()
    proof = client.proof("POST", URL, TOKEN, header={"jwk": {"kty": "oct", "k": "c2VjcmV0"}})
    with pytest.raises(DpopRejected, match="not a public key"):
        verify(proof)
    secret = {"kty": "oct", "k": "c2VjcmV0"}
    hmac_proof = forged({"typ": "dpop+jwt", "alg": "HS256", "jwk": secret}, _claims())
    with pytest.raises(DpopRejected, match="algorithm"):
        verify(hmac_proof)
    with pytest.raises(DpopRejected, match="algorithm"):
        public = client.key.as_dict(private=False)
        verify(forged({"typ": "dpop+jwt", "alg": "none", "jwk": public}, _claims()))


def test_a_proof_signed_by_another_key_than_its_header_names_is_refused() -> None:
    signer, other = DpopClient(), DpopClient()
    proof = signer.proof("POST", URL, TOKEN, header={"jwk": other.key.as_dict(private=False)})
    with pytest.raises(DpopRejected, match="signature"):
        verify(proof)


def test_a_proof_whose_algorithm_does_not_fit_its_key_is_refused() -> None:
    client = DpopClient("ES256")  # a P-256 key named for ES384, and an EC key named for RS256
    for alg in ("ES384", "RS256"):
        proof = forged({"typ": "dpop+jwt", "alg": alg, "jwk": client.key.as_dict(private=False)}, _claims())
        with pytest.raises(DpopRejected, match="no published key"):
            verify(proof)


def test_a_required_nonce_must_be_one_the_server_handed_out() -> None:
    nonces = NonceIssuer(window=300)
    client = DpopClient()
    now = time.time()
    with pytest.raises(DpopRejected) as missing:
        verify(client.proof("POST", URL, TOKEN), nonces=nonces.accepted(now))
    assert missing.value.error == "use_dpop_nonce"
    with pytest.raises(DpopRejected):
        verify(client.proof("POST", URL, TOKEN, nonce="made-up"), nonces=nonces.accepted(now))
    verify(client.proof("POST", URL, TOKEN, nonce=nonces.current(now)), nonces=nonces.accepted(now))


def test_a_nonce_stays_good_for_the_next_window_then_expires() -> None:
    nonces = NonceIssuer(window=300)
    handed_out = nonces.current(1000.0)
    assert handed_out in nonces.accepted(1000.0 + 300)
    assert handed_out not in nonces.accepted(1000.0 + 600)
    assert handed_out not in NonceIssuer(window=300).accepted(1000.0)  # another key, another nonce


def test_the_seen_record_refuses_a_jti_until_it_expires_and_stays_bounded() -> None:
    seen = SeenProofs(capacity=3)
    assert seen.first_use("a", 100.0, now=0.0)
    assert not seen.first_use("a", 100.0, now=50.0)
    assert seen.first_use("a", 200.0, now=100.0)  # expired: a proof that old is refused by iat anyway
    for key in "bcd":
        seen.first_use(key, 300.0, now=100.0)
    assert len(seen) == 3


@pytest.mark.parametrize(
    ("url", "normalized"),
    [
        ("https://A.example.com/x?y#z", "https://a.example.com/x"),
        ("http://a.example.com:80/", "http://a.example.com/"),
        ("http://127.0.0.1:8000/api", "http://127.0.0.1:8000/api"),
        ("https://a.example.com", "https://a.example.com/"),
        ("ftp://a.example.com/", None),
        ("/relative", None),
        ("https://a.example.com:99999/", None),
    ],
)
def test_htu_is_compared_by_scheme_host_and_path(url: str, normalized: str | None) -> None:
    assert normalize_htu(url) == normalized


@pytest.mark.parametrize(
    ("url", "normalized"),
    [
        ("https://a.example.com/api/m%65", "https://a.example.com/api/me"),  # an unreserved letter
        ("https://a.example.com/%7Euser/%2d%2E%5F", "https://a.example.com/~user/-._"),
        ("https://a.example.com/items/caf%c3%a9", "https://a.example.com/items/caf%C3%A9"),
        ("https://a.example.com/files/a%20b", "https://a.example.com/files/a%20b"),
        ("https://a.example.com/files/a%2fb", "https://a.example.com/files/a%2Fb"),  # not a "/"
        ("https://a.example.com/files/100%25", "https://a.example.com/files/100%25"),
        ("https://a.example.com/a/./b/../c", "https://a.example.com/a/c"),
        ("https://a.example.com/a/%2E%2E/c", "https://a.example.com/c"),
        ("https://a.example.com/a/..", "https://a.example.com/"),
        ("https://a.example.com/;p=1/@x:y/!$&'()*+,=", "https://a.example.com/;p=1/@x:y/!$&'()*+,="),
        ("https://a.example.com:/x", "https://a.example.com/x"),
        ("https://EX%41MPLE.com/x", "https://example.com/x"),
        # printable ASCII a client leaves unencoded compares as what a server decodes it to
        ("https://a.example.com/a|b^c[1]", "https://a.example.com/a%7Cb%5Ec%5B1%5D"),
        ("https://a.example.com/a%7cb", "https://a.example.com/a%7Cb"),
    ],
)
def test_htu_is_normalized_by_rfc_3986_syntax(url: str, normalized: str) -> None:
    assert normalize_htu(url) == normalized


@pytest.mark.parametrize(
    "url",
    [
        "https://a.example.com/items/café",  # a character no URI holds: its encoding is another URI
        "https://a.example.com/files/a b",
        "https://a.example.com/files/a%2",
        "https://a.example.com/files/a%zz",
        "https://a.example.com/a\tb",
        "https://a.example.com/a\x7fb",
        "https://user@a.example.com/x",  # an http(s) target URI carries no userinfo (RFC 9110 4.2.4)
    ],
)
def test_an_htu_that_is_not_a_uri_of_an_http_target_is_never_matched(url: str) -> None:
    assert normalize_htu(url) is None


def test_a_proof_naming_the_decoded_form_of_an_encoded_path_is_refused() -> None:
    encoded = "https://api.example.com/items/caf%C3%A9"
    client = DpopClient()
    assert verify(client.proof("POST", encoded, TOKEN), url=encoded).jkt == client.jkt
    with pytest.raises(DpopRejected) as refused:
        verify(client.proof("POST", "https://api.example.com/items/café", TOKEN), url=encoded)
    assert refused.value.error == "invalid_dpop_proof"
