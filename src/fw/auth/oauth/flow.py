"""The authorization code flow without ID tokens: authorize with PKCE, redeem the code, look up the user.

The access token lives only inside :func:`sign_in_profile`: it is redeemed, sent once to the
own-user lookup and dropped, so nothing can store, log or reuse it (no refresh token is asked
for or kept). The lookup's answer is unsigned; trust rests on the token coming from a PKCE
exchange this deployment started, over TLS.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import httpx2

from fw.auth.oauth.errors import ProfileRejected, ProviderUnavailable, RateLimited
from fw.auth.oauth.provider import OauthProvider
from fw.auth.oidc.authorization import PendingLogin, pkce_challenge
from fw.auth.tokens.errors import DiscoveryError, ProviderError, Unreachable
from fw.auth.tokens.fetch import Answer, fetch_bounded

#: Token and profile answers are a few hundred bytes; anything bigger is refused unread.
MAX_ANSWER_BYTES = 64 * 1024


def authorization_url(
    provider: OauthProvider, *, client_id: str, pending: PendingLogin, scopes: Sequence[str] = ()
) -> str:
    """Where the browser goes: code flow, PKCE S256, this attempt's state, the scopes (or the default)."""
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": pending.redirect_uri,
        "scope": " ".join(scopes or provider.default_scopes),
        "state": pending.state,
        "code_challenge": pkce_challenge(pending.code_verifier),
        "code_challenge_method": "S256",
    }
    endpoint = provider.authorization_endpoint
    separator = "&" if urlsplit(endpoint).query else "?"
    return f"{endpoint}{separator}{urlencode(params)}"


async def sign_in_profile(
    http: httpx2.AsyncClient,
    provider: OauthProvider,
    *,
    client_id: str,
    client_secret: str,
    code: str,
    pending: PendingLogin,
) -> dict[str, Any]:
    """Redeem ``code`` and return the signed-in user's claims; the access token goes no further."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": pending.redirect_uri,
        "code_verifier": pending.code_verifier,
    }
    # RFC 6749 2.3.1: both parts are form-urlencoded before the Basic encoding.
    client = httpx2.BasicAuth(quote(client_id, safe=""), quote(client_secret, safe=""))
    access_token = await _redeem(http, provider, form, client)
    return await _profile(http, provider, access_token)


async def _send(http: httpx2.AsyncClient, method: str, url: str, **kw: Any) -> Answer:
    try:
        return await fetch_bounded(http, method, url, limit=MAX_ANSWER_BYTES, expect=None, **kw)
    except Unreachable as error:
        raise ProviderUnavailable("the provider could not be reached", error.cause) from None
    except DiscoveryError as error:  # a redirect or an oversized answer
        raise ProfileRejected("the provider answered something fw cannot use", str(error)) from None


def _json(answer: Answer) -> Any:
    try:
        return json.loads(answer.content)
    except ValueError:
        return None


async def _redeem(
    http: httpx2.AsyncClient, provider: OauthProvider, form: dict[str, str], client: httpx2.BasicAuth
) -> str:
    answer = await _send(http, "POST", provider.token_endpoint, data=form, auth=client, endpoint="token")
    body = _json(answer)
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        raise ProviderError(body["error"][:64], str(body.get("error_description") or "")[:256])
    if answer.status >= 500:
        raise ProviderUnavailable("the provider failed to redeem the code", f"HTTP {answer.status}")
    token = body.get("access_token") if isinstance(body, dict) else None
    if answer.status != 200 or not isinstance(token, str) or not token:
        raise ProfileRejected("the provider's token answer carries no access token", f"HTTP {answer.status}")
    return token


async def _profile(http: httpx2.AsyncClient, provider: OauthProvider, access_token: str) -> dict[str, Any]:
    answer = await _send(
        http,
        "GET",
        provider.user_endpoint,
        headers={"Authorization": f"Bearer {access_token}"},
        endpoint="userinfo",
    )
    if answer.status == 429:
        reset = answer.headers.get("x-rate-limit-reset", "")
        raise RateLimited(int(reset) if reset.isdigit() else None)
    if answer.status >= 500:
        raise ProviderUnavailable("the provider failed to look up the user", f"HTTP {answer.status}")
    if answer.status != 200:
        raise ProfileRejected("the provider refused the user lookup", f"HTTP {answer.status}")
    return profile_claims(provider, _json(answer))


def profile_claims(provider: OauthProvider, body: Any) -> dict[str, Any]:
    """The lookup answer ``{"data": {...}}`` renamed to claims; ``id`` must be a non-empty string.

    A field of the definition present with a non-string value makes the whole answer unusable:
    an answer that changed shape is refused, never half-read.
    """
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict):
        raise ProfileRejected("the provider's user lookup answer has no data object")
    claims: dict[str, Any] = {}
    for field, claim in provider.renames:
        if field not in data:
            continue
        value = data[field]
        if not isinstance(value, str):
            raise ProfileRejected(f"the provider's user lookup answer has a non-string {field}")
        claims[claim] = value
    if not claims.get("sub"):
        raise ProfileRejected("the provider's user lookup answer has no id")
    return claims


def retry_after(error: RateLimited, *, now: float | None = None) -> int:
    """Seconds until the provider's limit refills, between 1 and 15 minutes (its window)."""
    moment = time.time() if now is None else now
    wait = (error.reset or 0) - int(moment)
    return max(1, min(wait, 900))
