"""An issuer's metadata and where its keys are: OpenID Connect discovery, RFC 8414, or a configured URL.

The metadata document must name the issuer it was fetched for, so a misconfigured proxy or a
look-alike host cannot hand over somebody else's keys or endpoints.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx2

from fw.auth.tokens.errors import DiscoveryError, IssuerMismatch
from fw.auth.tokens.fetch import fetch_json
from fw.auth.tokens.urls import same_origin, transport_problem

Discovery = Literal["oidc", "oauth", "manual"]

#: Fetches one JSON object; each protocol brings the one whose failures it knows how to report.
JsonGetter = Callable[[str], Awaitable[dict[str, Any]]]


def metadata_url(issuer: str, discovery: Discovery) -> str:
    """Where the issuer publishes its metadata.

    OpenID Connect appends ``/.well-known/openid-configuration`` to the issuer; RFC 8414 inserts
    ``/.well-known/oauth-authorization-server`` between the host and the issuer's path.
    """
    if discovery == "oidc":
        return issuer.rstrip("/") + "/.well-known/openid-configuration"
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme, parts.netloc, "/.well-known/oauth-authorization-server" + path, "", ""))


async def issuer_metadata(
    get_json: JsonGetter,
    issuer: str,
    discovery: Discovery = "oidc",
    *,
    ignore_trailing_slash: bool = False,
) -> dict[str, Any]:
    """The issuer's metadata document, refused with :class:`IssuerMismatch` when it names another issuer.

    The match is exact; ``ignore_trailing_slash`` lets ``https://id.example/`` stand for
    ``https://id.example``, as the OpenID relying party has always allowed.
    """
    url = metadata_url(issuer, discovery)
    metadata = await get_json(url)
    if ignore_trailing_slash:
        matches = str(metadata.get("issuer", "")).rstrip("/") == issuer.rstrip("/")
    else:
        matches = metadata.get("issuer") == issuer
    if not matches:
        raise IssuerMismatch(url, issuer, metadata.get("issuer"))
    return metadata


async def jwks_uri_for(
    http: httpx2.AsyncClient,
    issuer: str,
    discovery: Discovery,
    *,
    jwks_uri: str = "",
    allow_loopback_http: bool = False,
) -> str:
    """The URL of the issuer's signing keys, after checking it may be trusted."""
    if discovery == "manual":
        if not jwks_uri:
            raise DiscoveryError("discovery = manual needs jwks_uri")
        if not same_origin(jwks_uri, issuer):
            raise DiscoveryError(f"jwks_uri {jwks_uri} is not on the issuer's origin")
        uri = jwks_uri
    else:
        metadata = await issuer_metadata(partial(fetch_json, http), issuer, discovery)
        found = metadata.get("jwks_uri")
        if not isinstance(found, str) or not found:
            raise DiscoveryError(f"{metadata_url(issuer, discovery)} has no jwks_uri")
        uri = found
    problem = transport_problem(uri, allow_loopback_http=allow_loopback_http)
    if problem:
        raise DiscoveryError(f"jwks_uri {uri} {problem}")
    return uri
