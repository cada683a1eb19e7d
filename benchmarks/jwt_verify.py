"""In-process cost of verifying one RS256 access token, against the floor of a bare RSA check.

Candidates, timed in interleaved rounds in one run (so each meets the same machine noise):

* the floor: ``cryptography`` verifying the token's signature, padding and hash objects built
  once, and nothing else;
* a hand-written verifier: ``cryptography`` + msgspec doing the same header and claim checks
  fw does (size, shape, allow-listed ``alg``, no ``crit``/``zip``/``b64``/``enc``, no nested
  token, short ``kid``, ``typ``, key by ``kid``, signature, ``iss``, ``aud``, ``exp``, ``iat``,
  ``nbf``, ``sub``, lifetime, scopes). It is lenient where fw is strict: padding-tolerant
  base64 and a JSON reader that lets a duplicated member through;
* fw's verifier without the verified-token cache, and with it (``auth.jwt.token_cache_size``)
  for a repeated token and for a different token on every call (every call a miss);
* PyJWT's ``jwt.decode`` doing comparable checks.

The figure that matters is each verifier's overhead above the floor, and fw's overhead over
the hand-written one's. Prints a Markdown table.

    .venv/bin/python benchmarks/jwt_verify.py [--iterations 100] [--rounds 400] [--tokens 3000]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import itertools
import sys
import time
from collections.abc import Callable, Coroutine
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import httpx2
import jwt as pyjwt
import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from fw.auth.jwt.verifier import Policy, Verifier
from fw.auth.tokens.jwks import JwksCache
from fw.testing.issuer import LocalIssuer


def per_call(
    fns: list[Callable[[], object]],
    iterations: int,
    rounds: int,
    setups: dict[int, Callable[[], object]] | None = None,
) -> list[float]:
    """Microseconds per call of each function: the best of many short interleaved rounds.

    Interleaving exposes every candidate to the same machine noise; the minimum is the cost
    of the code itself, which is what an overhead comparison needs. Rounds are short (a few
    milliseconds, within one scheduler time slice) and many, so that on a shared, loaded
    machine most candidates still get some rounds nobody else interrupted.
    """
    best = [float("inf")] * len(fns)
    setups = setups or {}
    for _ in range(rounds):
        for index, fn in enumerate(fns):
            if index in setups:
                setups[index]()  # untimed: puts the candidate back in the state the row describes
            start = time.perf_counter()
            for _ in range(iterations):
                fn()
            best[index] = min(best[index], (time.perf_counter() - start) / iterations * 1e6)
    return best


class Rejected(Exception):
    """The hand-written verifier's one rejection."""


def handwritten_verifier(
    issuer: str, keys: dict[str, rsa.RSAPublicKey], audience: str, scope: str
) -> Callable[[str], dict[str, Any]]:
    """What a careful engineer writes by hand with cryptography and msgspec, doing fw's checks."""
    decode = msgspec.json.decode
    pad, digest = padding.PKCS1v15(), hashes.SHA256()
    audiences, required = frozenset({audience}), frozenset({scope})
    leeway, max_lifetime = 30.0, 3600.0

    def b64(segment: str) -> bytes:
        return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))

    def verify(token: str) -> dict[str, Any]:
        if len(token) > 16 * 1024:
            raise Rejected("too large")
        parts = token.split(".")
        if len(parts) != 3:
            raise Rejected("not a compact JWS")
        head, body, sig = parts
        header = decode(b64(head))
        if type(header) is not dict or header.get("alg") != "RS256":
            raise Rejected("alg")
        if "crit" in header or "zip" in header or "b64" in header or "enc" in header:
            raise Rejected("header")
        cty = header.get("cty")
        if cty is not None and (
            not isinstance(cty, str) or cty.lower().removeprefix("application/") == "jwt"
        ):
            raise Rejected("nested")
        kid = header.get("kid")
        if kid is not None and (not isinstance(kid, str) or not kid or len(kid) > 256):
            raise Rejected("kid")
        typ = header.get("typ")
        if not isinstance(typ, str) or typ.strip().lower().removeprefix("application/") != "at+jwt":
            raise Rejected("typ")
        key = keys.get(kid)  # type: ignore[arg-type]
        if key is None:
            raise Rejected("no key")
        try:
            key.verify(b64(sig), f"{head}.{body}".encode(), pad, digest)
        except InvalidSignature:
            raise Rejected("signature") from None
        claims = decode(b64(body))
        if type(claims) is not dict:
            raise Rejected("payload")
        now = time.time()
        if claims.get("iss") != issuer:
            raise Rejected("iss")
        aud = claims.get("aud")
        if not (
            aud in audiences
            if isinstance(aud, str)
            else isinstance(aud, list) and any(isinstance(a, str) and a in audiences for a in aud)
        ):
            raise Rejected("aud")
        exp, iat, nbf = claims.get("exp"), claims.get("iat"), claims.get("nbf")
        if type(exp) not in (int, float) or now >= exp + leeway:
            raise Rejected("exp")
        if type(iat) not in (int, float) or iat > now + leeway:
            raise Rejected("iat")
        if nbf is not None and (type(nbf) not in (int, float) or nbf > now + leeway):
            raise Rejected("nbf")
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub:
            raise Rejected("sub")
        if exp - iat > max_lifetime:
            raise Rejected("lifetime")
        granted = claims.get("scope")
        if not isinstance(granted, str) or not required.issubset(granted.split()):
            raise Rejected("scope")
        return claims

    return verify


def run_now(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Drive a coroutine that never suspends (the key lookup answers from memory)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("verification suspended; the key lookup should not wait here")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--tokens", type=int, default=3000, help="distinct tokens for the varying rows")
    args = parser.parse_args()
    issuer = LocalIssuer()

    def mint(subject: str) -> str:
        return issuer.mint(subject, audience="api", scope="orders.read", lifetime=timedelta(minutes=50))

    token = mint("bench")
    distinct = [mint(f"user-{n}") for n in range(args.tokens)]
    key = issuer.signing_key
    # The JWKS cache jwt_only serves keys from, loaded once from the issuer's JWKS document.
    jwks_document = issuer.jwks()
    answer = httpx2.Response(200, json=jwks_document)
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda _: answer))
    jwks = JwksCache("https://issuer.example/jwks", http)
    asyncio.run(jwks.refresh())

    policy = Policy(
        issuer=issuer.url,
        audiences=frozenset({"api"}),
        algorithms=("RS256",),
        max_token_lifetime=timedelta(hours=1),
        required_scopes=frozenset({"orders.read"}),
    )

    def verifier(cache_size: int) -> Verifier:
        """Wired as the jwt_only extension wires it."""
        return Verifier(
            policy, jwks.key_for, fresh_key=jwks.fresh_key, cache_size=cache_size, key_version=jwks.version
        )

    uncached = verifier(0)
    cached = verifier(1024)
    # Every call of its row is a token the cache has never seen: a stream of distinct tokens.
    cached_for_misses = verifier(1024)
    assert cached_for_misses.cache is not None
    forget = cached_for_misses.cache.clear  # before each round; a round uses tokens[n:n+iterations]

    public = key.public_key
    head, body, sig = token.split(".")
    signature = base64.urlsafe_b64decode(sig + "=" * (-len(sig) % 4))
    signing_input = f"{head}.{body}".encode()
    pad, digest = padding.PKCS1v15(), hashes.SHA256()

    def bare() -> None:
        public.verify(signature, signing_input, pad, digest)  # type: ignore[call-arg,union-attr]

    handwritten = handwritten_verifier(issuer.url, {key.kid: public}, "api", "orders.read")  # type: ignore[dict-item]
    pyjwt_key = pyjwt.PyJWK(key.as_dict(private=False)).key

    def pyjwt_verify() -> None:
        pyjwt.get_unverified_header(token)
        pyjwt.decode(
            token,
            pyjwt_key,
            algorithms=["RS256"],
            audience="api",
            issuer=issuer.url,
            leeway=30,
            options={"require": ["exp", "iat", "sub"]},
        )

    cycle_a = itertools.cycle(distinct).__next__
    cycle_b = itertools.cycle(distinct).__next__
    cycle_c = itertools.cycle(distinct).__next__
    candidates: list[tuple[str, Callable[[], object]]] = [
        ("bare `cryptography` RSA verify (the floor)", bare),
        ("hand-written `cryptography` + msgspec verifier (same checks)", lambda: handwritten(token)),
        ("fw verifier, cache off", lambda: run_now(uncached.verify(token))),
        ("fw verifier, cache on, repeated token", lambda: run_now(cached.verify(token))),
        ("hand-written verifier, a different token each call", lambda: handwritten(cycle_a())),
        ("fw verifier, cache off, a different token each call", lambda: run_now(uncached.verify(cycle_b()))),
        (
            "fw verifier, cache on, a different token each call (all misses)",
            lambda: run_now(cached_for_misses.verify(cycle_c())),
        ),
        ("PyJWT `decode` (comparable checks)", pyjwt_verify),
    ]
    for _, fn in candidates:
        fn()  # every candidate accepts the token before anything is timed
    assert run_now(cached.verify(token)).identity == "bench"
    assert asyncio.run(uncached.verify(token)).claims == handwritten(token)
    misses = next(i for i, (label, _) in enumerate(candidates) if "all misses" in label)
    times = per_call([fn for _, fn in candidates], args.iterations, args.rounds, {misses: forget})
    floor, hand = times[0], times[1]
    print(
        f"best of {args.rounds} interleaved rounds x {args.iterations} calls, "
        f"RSA-2048, Python {sys.version.split()[0]}\n"
    )
    print("| Verification of one RS256 token | µs per token | above the floor | overhead / hand-written's |")
    print("|---|---:|---:|---:|")
    for (label, _), value in zip(candidates, times, strict=True):
        if value is floor:
            print(f"| {label} | {value:.1f} | - | - |")
            continue
        ratio = f"{(value - floor) / (hand - floor):.2f}x" if value > floor else "below the floor"
        print(f"| {label} | {value:.1f} | {value - floor:+.1f} µs | {ratio} |")


if __name__ == "__main__":
    main()
