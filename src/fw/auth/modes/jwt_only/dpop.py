"""``auth.jwt.dpop``: sender-constrained access tokens (RFC 9449) in front of the bearer checks.

With ``allowed`` a request may present ``Authorization: DPoP <token>`` with a ``DPoP`` proof,
or a plain ``Bearer`` token that is not DPoP-bound; with ``required`` only the former. A token
presented with DPoP must carry ``cnf.jkt``, the thumbprint of the key that signed the proof; a
DPoP-bound token presented as ``Bearer`` is refused (RFC 9449 7.2), so a stolen bound token is
useless without its key. The access token itself goes through the very same verification,
admission, revocation and account checks as a bearer token (the middleware's own).

Each proof is used once: its ``jti`` is recorded in this process and as a take-once record in
the ``auth.backend`` store, which ``jwt_only`` opens whenever DPoP is on, so a proof replayed
against another process sharing that store is refused too (and a store that cannot answer is a
503: the promise is not dropped silently). ``htu`` is compared with :func:`target_uri`, built
from the path as the client sent it. Failures answer 401 with a ``WWW-Authenticate: DPoP``
challenge naming the error; ``use_dpop_nonce`` comes with the nonce.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal
from urllib.parse import quote

from starlette.datastructures import URL
from starlette.responses import Response
from starlette.types import Scope

from fw.auth.caller import Authentication, Caller, record
from fw.auth.dpop import DpopError, DpopRejected, NonceIssuer, ProofVerifier, SeenProofs
from fw.auth.outcome import note
from fw.auth.protection import Protection
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.interfaces import CeremonyStore
from fw.auth.tokens.jws import MAX_TOKEN_BYTES
from fw.core.middleware import Amend
from fw.problems import Problem

logger = logging.getLogger("fw.auth.jwt")

#: What the bearer middleware's own checks answer for one token: the caller, ``None`` (401) or
#: the store failure (503).
Authenticate = Callable[[str | None], Awaitable[Authentication | StoreUnavailable | None]]

Scheme = Literal["bearer", "dpop"]


@dataclass(frozen=True, slots=True)
class Presented:
    """What the request's headers present: the scheme, the token (``None`` when malformed), the proofs."""

    scheme: Scheme
    token: str | None
    proofs: tuple[str, ...]


def presented(scope: Scope) -> Presented | None:
    """``Authorization: Bearer|DPoP <token>`` and every ``DPoP`` header; ``None`` for neither scheme."""
    found: list[bytes] = []
    proofs: list[str] = []
    for name, value in scope["headers"]:
        if name == b"authorization":
            found.append(value)
        elif name == b"dpop":
            proofs.append(value.decode("latin-1").strip())
    if not found:
        return None
    scheme, _, rest = found[0].replace(b"\t", b" ").strip(b" ").partition(b" ")
    kind: Scheme | None = {b"bearer": "bearer", b"dpop": "dpop"}.get(scheme.lower())  # type: ignore[assignment]
    if kind is None:
        return None if len(found) == 1 else Presented("bearer", None, ())
    token = rest.strip(b" ")
    if len(found) > 1 or not token or len(token) > MAX_TOKEN_BYTES or b" " in token or b"," in token:
        return Presented(kind, None, tuple(proofs))
    try:
        return Presented(kind, token.decode("ascii"), tuple(proofs))
    except UnicodeDecodeError:
        return Presented(kind, None, tuple(proofs))


class DpopGate:
    """The DPoP half of ``jwt_only``'s request checks; the middleware hands it every request."""

    def __init__(
        self,
        mode: Literal["allowed", "required"],
        proofs: ProofVerifier,
        protection: Protection,
        *,
        shared: CeremonyStore,
        nonces: NonceIssuer | None = None,
        seen: SeenProofs | None = None,
    ) -> None:
        self.mode = mode
        self.proofs = proofs
        self.protection = protection
        self.shared = shared
        self.nonces = nonces
        self.seen = seen or SeenProofs()
        self._algs = " ".join(proofs.algorithms)

    # Answers.
    def challenge(self, error: DpopError | None = None, *, bearer: bool = False) -> Problem:
        """A 401 whose ``WWW-Authenticate`` names the DPoP error (and Bearer where it is accepted)."""
        dpop = f'DPoP error="{error}", algs="{self._algs}"' if error else f'DPoP algs="{self._algs}"'
        value = f"Bearer, {dpop}" if bearer and self.mode == "allowed" else dpop
        headers = {"WWW-Authenticate": value}
        if error == "use_dpop_nonce" and self.nonces is not None:
            headers["DPoP-Nonce"] = self.nonces.current()
        return Problem(status=401, code="unauthorized", headers=headers)

    async def decide(self, scope: Scope, authenticate: Authenticate) -> Response | Amend | None:
        """Authenticate the request (or leave it anonymous): the problem to answer with, or
        ``None`` / the ``DPoP-Nonce`` header to add, to hand the request on, the caller recorded."""
        request = presented(scope)
        if request is None:
            if self.protection.requires_auth(scope["path"]):
                note(scope, "jwt_only", "rejected", "missing")
                return self.challenge(bearer=True).response()
            note(scope, "jwt_only", "anonymous")
            return None
        outcome = await self._check(scope, request, authenticate)
        if isinstance(outcome, Problem):
            if isinstance(outcome, StoreUnavailable):
                note(scope, "jwt_only", "unavailable")
            elif scope.get("fw.auth", ("", "", ""))[1] != "rejected":
                note(scope, "jwt_only", "rejected", "dpop")
            return outcome.response()
        record(scope, outcome)
        note(scope, "jwt_only", "allowed")
        if request.scheme == "dpop" and self.nonces is not None:
            nonce = self.nonces.current()
            return lambda headers: headers.append("DPoP-Nonce", nonce)
        return None

    async def _check(
        self, scope: Scope, request: Presented, authenticate: Authenticate
    ) -> Authentication | Problem:
        if request.scheme == "bearer" and self.mode == "required":
            logger.debug("bearer rejected: auth.jwt.dpop = required")
            return self.challenge("invalid_token")
        outcome = await authenticate(request.token)
        if isinstance(outcome, StoreUnavailable):
            return StoreUnavailable()
        if outcome is None:
            return self.challenge("invalid_token") if request.scheme == "dpop" else _bearer_refused()
        bound = _bound_key(outcome)
        if request.scheme == "bearer":
            if bound is not None:  # RFC 9449 7.2: a DPoP-bound token is never a bearer token
                logger.debug("bearer rejected: the token is DPoP-bound")
                return self.challenge("invalid_token", bearer=True)
            return outcome
        if bound is None:
            logger.debug("dpop rejected: the token carries no cnf.jkt")
            return self.challenge("invalid_token")
        assert request.token is not None  # authenticate() refuses a malformed token
        try:
            await self._proof(scope, request, request.token, bound)
        except DpopRejected as rejected:
            logger.debug("dpop rejected: %s", rejected.reason)
            return self.challenge(rejected.error)
        except StoreUnavailable as failure:
            logger.error("auth store unavailable for the DPoP replay check: %s", failure)
            return StoreUnavailable()
        return outcome

    async def _proof(self, scope: Scope, request: Presented, token: str, bound: str) -> None:
        if len(request.proofs) != 1:
            raise DpopRejected("exactly one DPoP header is required")
        now = time.time()
        method = scope.get("method", "GET")  # a WebSocket handshake is a GET
        nonces = self.nonces.accepted(now) if self.nonces is not None else None
        proof = self.proofs.verify(
            request.proofs[0],
            method=method,
            url=target_uri(scope),
            now=now,
            access_token=token,
            nonces=nonces,
        )
        if proof.jkt != bound:
            raise DpopRejected("the proof is signed by another key than the token is bound to")
        rules = self.proofs.rules
        expires_at = proof.iat + rules.max_age + 2 * rules.leeway
        key = hashlib.sha256(f"{proof.jkt}\0{proof.jti}".encode()).hexdigest()
        if not self.seen.first_use(key, expires_at, now=now):
            raise DpopRejected("the proof was used before")
        stored = await self.shared.put(f"dpop-jti:{key}", {}, datetime.fromtimestamp(expires_at, UTC))
        if not stored:
            raise DpopRejected("the proof was used before (by another process)")


def target_uri(scope: Scope) -> str:
    """The target URI of the request (RFC 9110 7.1) that a proof's ``htu`` names, query left out.

    The path is the one the client sent (``raw_path``, percent-encodings intact), so
    ``/items/caf%C3%A9`` is that URI and not a decoded ``/items/café`` no URI can hold, and
    ``a%2Fb`` stays apart from ``a/b``. A server that gives no ``raw_path`` leaves only the
    decoded path: it is encoded again, which cannot tell ``%2F`` from ``/``. Scheme and authority
    are the ones the request addressed (its ``Host``); a WebSocket handshake is the HTTP(S) GET
    it started as.
    """
    url = URL(scope=scope)
    scheme = {"ws": "http", "wss": "https"}.get(url.scheme, url.scheme)
    raw = scope.get("raw_path")
    if isinstance(raw, bytes) and raw.startswith(b"/"):
        path = raw.partition(b"?")[0].decode("latin-1")
    else:
        path = quote(scope["path"], safe="/:@!$&'()*+,;=")
    return f"{scheme}://{url.netloc}{path}"


def _bound_key(authentication: Authentication) -> str | None:
    """The token's ``cnf.jkt``, or ``None`` when it is not DPoP-bound."""
    principal = authentication.principal
    claims = principal.identity.claims if isinstance(principal, Caller) else {}
    cnf = claims.get("cnf")
    jkt = cnf.get("jkt") if isinstance(cnf, dict) else None
    return jkt if isinstance(jkt, str) and jkt else None


def _bearer_refused() -> Problem:
    return Problem(status=401, code="unauthorized", headers={"WWW-Authenticate": "Bearer"})
