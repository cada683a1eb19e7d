"""Find an issuer's JWKS URL: OpenID Connect discovery, RFC 8414 metadata, or a configured URL.

The metadata document must name the issuer it was fetched for, so a misconfigured proxy or a
look-alike host cannot hand over somebody else's keys.
"""

from __future__ import annotations

import json
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

import httpx

from fw.auth.jwt.urls import same_origin, transport_problem

Discovery = Literal["oidc", "oauth", "manual"]
DISCOVERY_MODES: tuple[str, ...] = ("oidc", "oauth", "manual")
#: Metadata and JWKS documents are small; anything bigger is refused unread.
MAX_METADATA_BYTES = 512 * 1024


class DiscoveryError(Exception):
    """Key discovery failed; the message says what was fetched and what was wrong."""


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


async def fetch_json(
    http: httpx.AsyncClient, url: str, *, limit: int = MAX_METADATA_BYTES
) -> dict[str, object]:
    """GET a JSON object; any transport, status, size or format problem is a :class:`DiscoveryError`.

    Redirects are never followed (a redirect could lead off the issuer's origin), and the body
    is read in chunks up to ``limit`` bytes, so a hostile or broken endpoint cannot make the
    application buffer an unbounded answer.
    """
    try:
        async with http.stream(
            "GET", url, headers={"Accept": "application/json"}, follow_redirects=False
        ) as response:
            if response.is_redirect:
                raise DiscoveryError(
                    f"{url} answered a redirect (HTTP {response.status_code}); fw does not follow it"
                )
            if response.status_code != 200:
                raise DiscoveryError(f"{url} answered HTTP {response.status_code}")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise DiscoveryError(f"{url} answered more than {limit} bytes")
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > limit:
                    raise DiscoveryError(f"{url} answered more than {limit} bytes")
    except httpx.HTTPError as error:
        raise DiscoveryError(
            f"{url} could not be fetched ({type(error).__name__}: {error or 'no answer'})"
        ) from None
    try:
        data = json.loads(body)
    except ValueError:
        raise DiscoveryError(f"{url} did not answer JSON") from None
    if not isinstance(data, dict):
        raise DiscoveryError(f"{url} did not answer a JSON object")
    return data


async def jwks_uri_for(
    http: httpx.AsyncClient,
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
        url = metadata_url(issuer, discovery)
        metadata = await fetch_json(http, url)
        if metadata.get("issuer") != issuer:
            raise DiscoveryError(
                f"{url} names issuer {metadata.get('issuer')!r}, not {issuer!r} (they must match exactly)"
            )
        found = metadata.get("jwks_uri")
        if not isinstance(found, str) or not found:
            raise DiscoveryError(f"{url} has no jwks_uri")
        uri = found
    problem = transport_problem(uri, allow_loopback_http=allow_loopback_http)
    if problem:
        raise DiscoveryError(f"jwks_uri {uri} {problem}")
    return uri
