"""The front-channel half of the code flow: a fresh state, nonce and PKCE verifier per attempt.

Every authorization request asks for ``auth_time`` as an essential ID-token claim: a provider
says when the person proved who they are only when asked (``max_age``, ``prompt=login``, the
claim requested, or ``require_auth_time`` registered), and without it a sign-in cannot satisfy
any guard that needs a recent proof, so the person would be sent back to the provider at once.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

import fw.base64url as base64url
from fw.auth.oidc.provider import ProviderMetadata

#: The ``claims`` request parameter (OpenID Connect Core 5.5) every authorization request carries:
#: an ``auth_time`` requested as essential must be in the ID token (5.5.1.1). A provider that does
#: not support the parameter answers as it would without it (5.5): no request fails for it.
ESSENTIAL_AUTH_TIME = json.dumps({"id_token": {"auth_time": {"essential": True}}}, separators=(",", ":"))


def pkce_challenge(verifier: str) -> str:
    """RFC 7636 S256: base64url(sha256(verifier)) without padding."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64url.encode(digest)


@dataclass(frozen=True)
class PendingLogin:
    """The secrets of one authorization attempt; kept server-side (or sealed) until the callback."""

    state: str
    nonce: str
    code_verifier: str
    redirect_uri: str

    @classmethod
    def new(cls, redirect_uri: str) -> PendingLogin:
        return cls(
            state=secrets.token_urlsafe(32),
            nonce=secrets.token_urlsafe(32),
            code_verifier=secrets.token_urlsafe(48),
            redirect_uri=redirect_uri,
        )


def scope_string(extra: Sequence[str]) -> str:
    """``openid`` plus the configured scopes, each once, in order."""
    scopes = ["openid"]
    for scope in extra:
        if scope and scope not in scopes:
            scopes.append(scope)
    return " ".join(scopes)


def reconfirm_prompt(metadata: ProviderMetadata) -> str:
    """``login``, plus ``select_account`` only where the provider advertises it."""
    if "select_account" in metadata.prompt_values_supported:
        return "login select_account"
    return "login"


def authorization_url(
    metadata: ProviderMetadata,
    *,
    client_id: str,
    pending: PendingLogin,
    scopes: Sequence[str] = (),
    prompt: str = "",
    max_age: int | None = None,
) -> str:
    """The authorization request; ``max_age`` (seconds) asks for a proof no older than that.

    Every request asks for ``auth_time`` (:data:`ESSENTIAL_AUTH_TIME`), so a plain sign-in says
    when the person proved who they are, as a step-up's ``max_age`` already obliges.
    """
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": pending.redirect_uri,
        "scope": scope_string(scopes),
        "state": pending.state,
        "nonce": pending.nonce,
        "code_challenge": pkce_challenge(pending.code_verifier),
        "code_challenge_method": "S256",
        "claims": ESSENTIAL_AUTH_TIME,
    }
    if prompt:
        params["prompt"] = prompt
    if max_age is not None:
        params["max_age"] = str(max_age)
    endpoint = metadata.authorization_endpoint
    separator = "&" if urlsplit(endpoint).query else "?"
    return f"{endpoint}{separator}{urlencode(params)}"
