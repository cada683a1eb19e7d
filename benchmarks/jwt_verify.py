"""In-process cost of verifying one RS256 access token, against the floor of a bare RSA check.

fw's verifier (header checks, key lookup, joserfc signature verification, claim checks) is
timed against ``cryptography`` verifying the same signature and nothing else; the difference
is what fw adds. Also timed: PyJWT's ``jwt.decode`` doing comparable checks. Prints a table.

    .venv/bin/python benchmarks/jwt_verify.py [--iterations 2000] [--rounds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import jwt as pyjwt
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding

from fw.auth.jwt.verifier import Policy, Verifier
from fw.auth.tokens.algorithms import Key
from fw.auth.tokens.jwks import KeySet
from fw.testing.issuer import LocalIssuer


def per_call(fns: list[Callable[[], object]], iterations: int, rounds: int) -> list[float]:
    """Microseconds per call of each function: the best of interleaved rounds.

    Interleaving exposes every candidate to the same machine noise; the minimum is the cost
    of the code itself, which is what an overhead comparison needs.
    """
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for index, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(iterations):
                fn()
            best[index] = min(best[index], (time.perf_counter() - start) / iterations * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    issuer = LocalIssuer()
    token = issuer.mint("bench", audience="api", scope="orders.read", lifetime=timedelta(minutes=50))
    key = issuer.signing_key

    keys = KeySet([key])  # the same lookup the JWKS cache serves from

    async def key_for(kid: str | None, alg: str) -> Key | None:
        return keys.find(kid, alg)

    verifier = Verifier(
        Policy(
            issuer=issuer.url,
            audiences=frozenset({"api"}),
            algorithms=("RS256",),
            max_token_lifetime=timedelta(hours=1),
            required_scopes=frozenset({"orders.read"}),
        ),
        key_for,
    )
    public = key.public_key
    head, body, sig = token.split(".")
    signature = base64.urlsafe_b64decode(sig + "=" * (-len(sig) % 4))
    signing_input = f"{head}.{body}".encode()

    def bare() -> None:
        public.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())  # type: ignore[call-arg,union-attr]

    loop = asyncio.new_event_loop()

    def fw_verify() -> None:
        coroutine = verifier.verify(token)
        try:
            coroutine.send(None)
        except StopIteration:
            return
        raise RuntimeError("verification suspended; the key lookup should not wait here")

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

    assert loop.run_until_complete(verifier.verify(token)).identity == "bench"
    loop.close()
    floor, ours, theirs = per_call([bare, fw_verify, pyjwt_verify], args.iterations, args.rounds)
    print(
        f"best of {args.rounds} interleaved rounds x {args.iterations} calls, "
        f"RSA-2048, Python {sys.version.split()[0]}\n"
    )
    print("| Verification of one RS256 token | µs per token | above the bare signature check |")
    print("|---|---:|---:|")
    print(f"| bare `cryptography` RSA verify (the floor) | {floor:.1f} | - |")
    print(f"| fw verifier (all checks) | {ours:.1f} | {ours - floor:+.1f} µs |")
    print(f"| PyJWT `decode` (comparable checks) | {theirs:.1f} | {theirs - floor:+.1f} µs |")


if __name__ == "__main__":
    main()
