"""RFC 8725 attacks on bearer tokens, end to end through ``jwt_only`` against a loopback issuer.

Every attack must get exactly the answer an expired token gets (status, every header, body, byte
for byte), so a rejection leaks nothing about why, and no 500. Each token is sent three times:
the issuer's JWKS may be fetched at most once for a ``kid`` it never published (the refetch
cooldown) and not at all for a token rejected on its shape, and an attacker's server named in
the token is never contacted.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx2
import pytest
from auth_jwt.conftest import bearer, serving
from auth_jwt.settings import auth_settings, jwt_settings

from fw.auth.settings import AuthSettings
from fw.testing.issuer import LocalIssuer, SigningKey, generate_key

from .forge import assemble, hmac_signed, public_key_forms, self_signed_certificate, signed
from .hostile_issuer import STALL_SECONDS, HostileIssuer, JwksAnswer

Answer = tuple[int, list[tuple[bytes, bytes]], bytes]


@dataclass
class Scene:
    """The issuer (an RSA and an EC key, plus one kid published for both) and an attacker."""

    issuer: LocalIssuer
    attacker: LocalIssuer
    rsa: SigningKey
    ec: SigningKey
    shared_rsa: SigningKey
    shared_ec: SigningKey

    def claims(self, **changes: Any) -> dict[str, Any]:
        now = int(time.time())
        base = {"iss": self.issuer.url, "sub": "alice", "aud": "api", "iat": now, "exp": now + 60}
        base.update(changes)
        return {k: v for k, v in base.items() if v is not None}

    def header(self, **changes: Any) -> dict[str, Any]:
        base = {"alg": "RS256", "kid": self.rsa.kid, "typ": "at+jwt"}
        base.update(changes)
        return {k: v for k, v in base.items() if v is not None}

    def rs256(self, header: Any = None, payload: Any = None, key: SigningKey | None = None) -> str:
        """Signed by the issuer's real RSA key unless ``key`` says otherwise."""
        return signed(
            key or self.rsa,
            self.header() if header is None else header,
            self.claims() if payload is None else payload,
        )

    def settings(self) -> AuthSettings:
        return auth_settings(jwt_settings(self.issuer.url, algorithms=["RS256", "ES256"]))


@pytest.fixture(scope="module")
def scene() -> Iterator[Scene]:
    with LocalIssuer() as issuer, LocalIssuer() as attacker:
        ec = generate_key("ES256", "ec-1")
        shared_rsa, shared_ec = generate_key("RS256", "shared"), generate_key("ES256", "shared")
        issuer.published = [*issuer.published, ec, shared_rsa, shared_ec]
        yield Scene(issuer, attacker, issuer.signing_key, ec, shared_rsa, shared_ec)


def _raw_token(header_json: str, payload_json: str, scene: Scene, key: SigningKey | None = None) -> str:
    """Signed over exactly these JSON texts (duplicate members survive)."""
    return signed(key or scene.rsa, header_json.encode(), payload_json.encode())


Forge = Callable[[Scene], str]
#: name -> (forge, JWKS fetches the token may cause at most)
ATTACKS: dict[str, tuple[Forge, int]] = {}


def attack(name: str, fetches: int = 0) -> Callable[[Forge], Forge]:
    def register(forge: Forge) -> Forge:
        ATTACKS[name] = (forge, fetches)
        return forge

    return register


# alg: none, every capitalisation, with and without a signature part.
for spelling in sorted({"".join(c) for c in itertools.product(*(({ch, ch.upper()}) for ch in "none"))}):
    attack(f"alg {spelling} unsigned")(lambda s, a=spelling: assemble(s.header(alg=a, kid=None), s.claims()))
    attack(f"alg {spelling} with the issuer's signature")(
        lambda s, a=spelling: assemble(s.header(alg=a), s.claims()) + s.rs256().rsplit(".", 1)[1]
    )

# HMAC keyed with a published public key, in every form it can be written.
for form, alg in itertools.product(
    ("pem", "der", "jwk", "jwk-sorted-compact", "pem-pkcs1", "der-pkcs1", "jwk-n"),
    ("HS256", "HS384", "HS512"),
):
    attack(f"{alg} keyed with the RSA key as {form}")(
        lambda s, f=form, a=alg: hmac_signed(public_key_forms(s.rsa)[f], a, s.header(alg=a), s.claims())
    )
for form in ("pem", "der", "jwk"):
    attack(f"HS256 keyed with the EC key as {form}")(
        lambda s, f=form: hmac_signed(
            public_key_forms(s.ec)[f], "HS256", s.header(alg="HS256", kid=s.ec.kid), s.claims()
        )
    )

# kid as an injection vector: never a path, a query or a URL, only a name.
for label, kid in {
    "path traversal": "../../../../../../dev/null",
    "absolute path": "/etc/passwd",
    "windows traversal": "..\\..\\..\\windows\\win.ini",
    "SQL injection": "' OR '1'='1' --",
    "SQL stacked query": "x'; DROP TABLE fw_sessions; --",
    "URL of the attacker": "http://127.0.0.1:1/jwks.json",
    "file URL": "file:///etc/passwd",
    "NUL byte": "abc\x00def",
    "257 characters": "k" * 257,
}.items():
    attack(f"kid {label}", fetches=1 if len(kid) <= 256 else 0)(lambda s, k=kid: s.rs256(s.header(kid=k)))
attack("kid naming the attacker's JWKS", fetches=1)(lambda s: s.rs256(s.header(kid=s.attacker.jwks_uri)))
attack("kid empty")(lambda s: s.rs256(s.header(kid="")))
attack("kid 10,000 characters")(lambda s: s.rs256(s.header(kid="k" * 10_000)))
attack("kid a number")(lambda s: s.rs256(s.header(kid=1)))
attack("kid an object")(lambda s: s.rs256(s.header(kid={"$ne": ""})))
attack("kid a list")(lambda s: s.rs256(s.header(kid=[s.rsa.kid])))

# Keys or key locations embedded in the header: never fetched, never trusted.
for where in ("jku", "x5u"):
    attack(f"{where} to the attacker with the issuer's kid")(
        lambda s, w=where: s.rs256(s.header(**{w: s.attacker.jwks_uri}), key=s.attacker.signing_key)
    )
    attack(f"{where} to the attacker with the attacker's kid", fetches=1)(
        lambda s, w=where: s.rs256(
            s.header(kid=s.attacker.signing_key.kid, **{w: s.attacker.jwks_uri}), key=s.attacker.signing_key
        )
    )
attack("embedded jwk with the issuer's kid")(
    lambda s: s.rs256(
        s.header(jwk={**s.attacker.signing_key.as_dict(private=False), "kid": s.rsa.kid}),
        key=s.attacker.signing_key,
    )
)
attack("embedded jwk without a kid", fetches=1)(
    lambda s: s.rs256(
        s.header(kid=None, jwk=s.attacker.signing_key.as_dict(private=False)), key=s.attacker.signing_key
    )
)
attack("embedded x5c certificate")(
    lambda s: s.rs256(
        s.header(x5c=[base64.b64encode(self_signed_certificate(s.attacker.signing_key)).decode()]),
        key=s.attacker.signing_key,
    )
)

# crit, in shapes beyond a plain list of known names.
attack("crit empty list")(lambda s: s.rs256(s.header(crit=[])))
attack("crit naming an absent member")(lambda s: s.rs256(s.header(crit=["x-absent"])))
attack("crit b64 false")(lambda s: s.rs256(s.header(crit=["b64"], b64=False)))
attack("crit a string")(lambda s: s.rs256(s.header(crit="exp")))


@attack("crit null")
def _with_null_crit(s: Scene) -> str:
    return _raw_token(json.dumps(s.header())[:-1] + ', "crit": null}', json.dumps(s.claims()), s)


# Nested tokens.
for cty in ("jwt", "application/jwt", "application/JWT", " JWT "):
    attack(f"nested with cty {cty!r}")(lambda s, c=cty: s.rs256(s.header(cty=c)))
attack("payload is another token as a JSON string")(
    lambda s: signed(s.rsa, s.header(), json.dumps(s.rs256()).encode())
)
attack("payload is another token's bytes")(lambda s: signed(s.rsa, s.header(), s.rs256().encode()))

# Duplicate members: a parser that keeps the first and one that keeps the last disagree.
attack("duplicate alg in the header")(
    lambda s: _raw_token(
        f'{{"alg": "none", "alg": "RS256", "kid": "{s.rsa.kid}", "typ": "at+jwt"}}', json.dumps(s.claims()), s
    )
)
attack("duplicate kid in the header")(
    lambda s: _raw_token(
        f'{{"alg": "RS256", "kid": "x", "kid": "{s.rsa.kid}", "typ": "at+jwt"}}', json.dumps(s.claims()), s
    )
)
attack("duplicate typ in the header")(
    lambda s: _raw_token(
        f'{{"alg": "RS256", "kid": "{s.rsa.kid}", "typ": "JWT", "typ": "at+jwt"}}', json.dumps(s.claims()), s
    )
)
attack("duplicate sub in the payload")(
    lambda s: _raw_token(json.dumps(s.header()), json.dumps(s.claims())[:-1] + ', "sub": "admin"}', s)
)
attack("duplicate exp in the payload")(
    lambda s: _raw_token(
        json.dumps(s.header()),
        json.dumps(s.claims(exp=int(time.time()) - 600))[:-1] + f', "exp": {int(time.time()) + 60}}}',
        s,
    )
)
attack("duplicate aud in the payload")(
    lambda s: _raw_token(
        json.dumps(s.header()), json.dumps(s.claims(aud="other"))[:-1] + ', "aud": "api"}', s
    )
)

# Numbers: strings that look like numbers, and numbers no clock holds.
attack("exp as a numeric string")(lambda s: s.rs256(payload=s.claims(exp=str(int(time.time()) + 60))))
attack("exp as an exponent string")(lambda s: s.rs256(payload=s.claims(exp="1e10")))
attack("iat as a numeric string")(lambda s: s.rs256(payload=s.claims(iat=str(int(time.time())))))
attack("nbf as a numeric string")(lambda s: s.rs256(payload=s.claims(nbf=str(int(time.time()) - 10))))
attack("exp 2**64")(lambda s: s.rs256(payload=s.claims(exp=2**64)))
attack("exp the largest double")(lambda s: s.rs256(payload=s.claims(exp=1.7976931348623157e308)))
attack("exp with 5,000 digits")(
    lambda s: _raw_token(
        json.dumps(s.header()),
        json.dumps(s.claims())[:-1].rsplit(', "exp"', 1)[0] + ', "exp": ' + "9" * 5000 + "}",
        s,
    )
)
attack("iat minus 2**63")(lambda s: s.rs256(payload=s.claims(iat=-(2**63))))
attack("nbf the largest double")(lambda s: s.rs256(payload=s.claims(nbf=1.7976931348623157e308)))
attack("exp Infinity")(
    lambda s: _raw_token(
        json.dumps(s.header()), json.dumps(s.claims(exp=None))[:-1] + ', "exp": Infinity}', s
    )
)

# aud in shapes that are not a string or a list of strings.
attack("aud an object")(lambda s: s.rs256(payload=s.claims(aud={"api": True})))
attack("aud an object keyed aud")(lambda s: s.rs256(payload=s.claims(aud={"aud": "api"})))
attack("aud a list holding an object")(lambda s: s.rs256(payload=s.claims(aud=[{"api": 1}])))
attack("aud a number")(lambda s: s.rs256(payload=s.claims(aud=1)))
attack("aud missing")(lambda s: s.rs256(payload=s.claims(aud=None)))
attack("aud empty")(lambda s: s.rs256(payload=s.claims(aud="")))

# An ID token of the same issuer, signed by its real key, offered as an access token.
attack("ID token typ JWT")(
    lambda s: s.rs256(s.header(typ="JWT"), s.claims(nonce="n-1", at_hash="abc", azp="api", auth_time=1))
)
attack("ID token without typ")(lambda s: s.rs256(s.header(typ=None), s.claims(nonce="n-1", azp="api")))
attack("ID token typ application/jwt")(
    lambda s: s.rs256(s.header(typ="application/jwt"), s.claims(nonce="n"))
)

# Another issuer whose kid collides with ours.
attack("another issuer, our kid, its key")(
    lambda s: s.rs256(payload=s.claims(iss=s.attacker.url), key=_collider(s))
)
attack("our iss, our kid, another issuer's key")(lambda s: s.rs256(key=_collider(s)))
attack("another issuer's own token", fetches=1)(
    lambda s: s.attacker.mint("alice", header={"kid": s.attacker.signing_key.kid})
)


def _collider(s: Scene) -> SigningKey:
    return generate_key("RS256", str(s.rsa.kid))


# Key confusion between the issuer's RSA and EC keys. A published kid asked for with an algorithm
# its key does not fit is an unknown (kid, alg) pair, which may refetch once per cooldown (a
# rotation can reuse a kid for a key of another type).
attack("ES256 naming the RSA key", fetches=1)(
    lambda s: signed(s.ec, s.header(alg="ES256", kid=s.rsa.kid), s.claims())
)
attack("RS256 naming the EC key", fetches=1)(lambda s: s.rs256(s.header(kid=s.ec.kid)))
attack("PS256 naming the RSA key with an RS256 signature")(lambda s: s.rs256(s.header(alg="PS256")))
attack("ES256 under the shared kid, signed by a stranger")(
    lambda s: signed(generate_key("ES256", "shared"), s.header(alg="ES256", kid="shared"), s.claims())
)
attack("RS256 under the shared kid with the EC signature")(
    lambda s: (
        assemble(s.header(kid="shared"), s.claims())
        + signed(s.shared_ec, s.header(alg="ES256", kid="shared"), s.claims()).rsplit(".", 1)[1]
    )
)
attack("ES384 naming the P-256 key")(
    lambda s: (
        assemble(s.header(alg="ES384", kid=s.ec.kid), s.claims())
        + signed(s.ec, s.header(alg="ES256", kid=s.ec.kid), s.claims()).rsplit(".", 1)[1]
    )
)


def _answer(response: httpx2.Response) -> Answer:
    return response.status_code, list(response.headers.raw), response.content


async def _expired(scene: Scene, client: httpx2.AsyncClient) -> Answer:
    now = time.time()
    token = scene.issuer.mint(issued_at=now - 600, lifetime=timedelta(minutes=5))
    return _answer(await client.get("/api/me", headers=bearer(token)))


async def test_the_hand_made_tokens_are_accepted_when_nothing_is_wrong(scene: Scene) -> None:
    async with serving(scene.settings()) as (client, _):
        for token in (
            scene.rs256(),
            signed(scene.ec, scene.header(alg="ES256", kid=scene.ec.kid), scene.claims()),
            signed(scene.shared_ec, scene.header(alg="ES256", kid="shared"), scene.claims()),
            scene.rs256(scene.header(kid="shared"), key=scene.shared_rsa),
        ):
            response = await client.get("/api/me", headers=bearer(token))
            assert response.status_code == 200, response.text
            assert response.json()["account_id"] == "alice"


@pytest.mark.parametrize("name", list(ATTACKS))
async def test_an_attack_gets_the_expired_token_answer_and_calls_nobody(scene: Scene, name: str) -> None:
    forge, allowed_fetches = ATTACKS[name]
    token = forge(scene)
    async with serving(scene.settings()) as (client, _):
        expired = await _expired(scene, client)
        assert expired[0] == 401
        issuer_before = sum(scene.issuer.requests.values())
        attacker_before = sum(scene.attacker.requests.values())
        for _ in range(3):
            response = await client.get("/api/me", headers=[(b"authorization", f"Bearer {token}".encode())])
            assert _answer(response) == expired, (name, response.status_code, response.text)
        issuer_calls = sum(scene.issuer.requests.values()) - issuer_before
        attacker_calls = sum(scene.attacker.requests.values()) - attacker_before
    assert issuer_calls <= allowed_fetches, f"{name}: {issuer_calls} JWKS fetches"
    assert attacker_calls == 0, f"{name}: the attacker's server was contacted"


def test_every_listed_attack_family_is_exercised() -> None:
    families = (
        "alg none",
        "alg NONE",
        "HS256 keyed with the RSA key as der",
        "kid path traversal",
        "jku",
        "x5u",
        "embedded jwk",
        "crit",
        "nested",
        "duplicate alg",
        "duplicate sub",
        "exp as a numeric string",
        "exp 2**64",
        "aud an object",
        "ID token",
        "another issuer",
        "ES256 naming the RSA key",
    )
    for family in families:
        assert any(name.startswith(family) for name in ATTACKS), family
    assert len([n for n in ATTACKS if n.startswith("alg ") and n.endswith("unsigned")]) == 16


# The JWKS endpoint itself turning hostile when an unknown kid makes fw refetch it.


@pytest.fixture
def hostile() -> Iterator[HostileIssuer]:
    with HostileIssuer() as issuer:
        yield issuer
        issuer.release()


async def _hostile_round(
    hostile: HostileIssuer, behaviour: JwksAnswer
) -> tuple[Answer, Answer, float, httpx2.Response, bool, int]:
    """Load keys, turn hostile, send an unknown kid and, once its refetch has reached the issuer,
    a good token.

    Returns the expired token's answer, the unknown kid's answer and time, the good token's
    response, whether the unknown kid's request was still waiting when the good token was
    answered, and the JWKS fetches made after startup.
    """
    async with serving(auth_settings(jwt_settings(hostile.url))) as (client, _):
        now = time.time()
        expired = _answer(
            await client.get(
                "/api/me", headers=bearer(hostile.mint(issued_at=now - 600, lifetime=timedelta(minutes=5)))
            )
        )
        stranger = generate_key("RS256", "never-published")
        unknown = hostile.mint(key=stranger)
        good = hostile.mint("bob")
        fetched_at_start = hostile.requests["/jwks.json"]
        hostile.jwks_answer = behaviour

        async def timed(token: str) -> tuple[httpx2.Response, float]:
            started = time.monotonic()
            response = await client.get("/api/me", headers=bearer(token))
            return response, time.monotonic() - started

        refusing = asyncio.ensure_future(timed(unknown))

        async def good_during_the_refetch() -> tuple[httpx2.Response, bool]:
            while hostile.requests["/jwks.json"] == fetched_at_start and not refusing.done():
                await asyncio.sleep(0.01)  # until the refetch has reached the hostile issuer
            response = await client.get("/api/me", headers=bearer(good))
            return response, not refusing.done()

        try:  # each wait ends before a stall the client never gave up on would
            served, refetch_pending = await asyncio.wait_for(good_during_the_refetch(), STALL_SECONDS / 2)
            refused, refused_took = await asyncio.wait_for(refusing, STALL_SECONDS / 2)
        finally:
            refusing.cancel()
    refetches = hostile.requests["/jwks.json"] - fetched_at_start
    return expired, _answer(refused), refused_took, served, refetch_pending, refetches


@pytest.mark.parametrize("behaviour", ["slow", "huge", "redirect"])
async def test_a_hostile_jwks_refetch_is_the_same_401_and_good_tokens_keep_working(
    hostile: HostileIssuer, behaviour: JwksAnswer
) -> None:
    with LocalIssuer() as elsewhere:
        hostile.redirect_to = elsewhere.jwks_uri
        expired, refused, refused_took, served, refetch_pending, refetches = await _hostile_round(
            hostile, behaviour
        )
        assert sum(elsewhere.requests.values()) == 0, "a JWKS redirect was followed"
    assert refused == expired
    assert refetches == 1
    # The 5 s client timeout bounds a stalled issuer: far less than the stall itself.
    assert refused_took < STALL_SECONDS / 2
    assert served.status_code == 200, served.text
    if behaviour == "slow":  # the refetch lasts the client timeout: long enough to be overtaken
        assert refetch_pending, "a known kid waited for the hostile refetch"
    # (That a huge answer is read no further than the limit is shown at the cache itself,
    # tests/auth_tokens/test_jwks.py: the server side cannot see where the client stopped.)
