"""An issuer's metadata and where its keys are: OpenID Connect discovery, RFC 8414, or a configured URL.

The metadata document must name the issuer it was fetched for, so a misconfigured proxy or a
look-alike host cannot hand over somebody else's keys or endpoints; and every endpoint it names
must pass the issuer's own URL rule, so a provider behind a proxy that lost the scheme cannot
send the client secret, a browser or a key fetch over plain http.

A process keeps the document it fetched (:class:`IssuerDiscovery`), but only for a while and
never after a failure, so one bad answer does not stay as long as the process does.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx2

from fw.auth.tokens.errors import DiscoveryError, IncompleteMetadata, IssuerMismatch, UntrustedEndpoint
from fw.auth.tokens.fetch import fetch_json
from fw.auth.tokens.urls import same_origin, transport_problem

Discovery = Literal["oidc", "oauth", "manual"]

#: Fetches one JSON object; each protocol brings the one whose failures it knows how to report.
JsonGetter = Callable[[str], Awaitable[dict[str, Any]]]

#: Seconds a fetched metadata document is used before the next use fetches it again.
METADATA_MAX_AGE = 600.0
#: Members naming an endpoint besides the ``*_endpoint`` ones (``mtls_endpoint_aliases`` holds more).
_ENDPOINT_MEMBERS = frozenset({"jwks_uri", "check_session_iframe"})


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


def endpoints(metadata: Mapping[str, Any]) -> Iterator[tuple[str, object]]:
    """Every (member, value) of a metadata document that names an endpoint.

    That is each ``*_endpoint`` member (authorization, token, userinfo, end-session, device,
    revocation, introspection, registration, back-channel authentication, pushed authorization
    requests, and any a later specification adds), ``jwks_uri``, ``check_session_iframe`` and
    each member of ``mtls_endpoint_aliases`` (RFC 8705). A member that is absent, ``null`` or
    empty names nothing.
    """
    for member, value in metadata.items():
        named = member.endswith("_endpoint") or member in _ENDPOINT_MEMBERS
        if named and value is not None and value != "":
            yield member, value
    aliases = metadata.get("mtls_endpoint_aliases")
    if isinstance(aliases, Mapping):
        for member, value in aliases.items():
            if value is not None and value != "":
                yield f"mtls_endpoint_aliases.{member}", value
    elif aliases is not None:
        yield "mtls_endpoint_aliases", aliases


def check_endpoints(metadata: Mapping[str, Any], url: str, *, allow_loopback_http: bool) -> None:
    """Refuse a metadata document (fetched from ``url``) naming an endpoint the issuer's rule forbids.

    Raises :class:`UntrustedEndpoint` naming every such member: each must be https, or http on a
    loopback host only with ``allow_loopback_http``, exactly as the issuer
    (:func:`~fw.auth.tokens.urls.transport_problem`); a value that is not a string is refused too.
    """
    refused: list[tuple[str, object, str]] = []
    for member, value in endpoints(metadata):
        if not isinstance(value, str):
            refused.append((member, value, "is not a URL"))
        elif problem := transport_problem(value, allow_loopback_http=allow_loopback_http):
            refused.append((member, value, problem))
    if refused:
        raise UntrustedEndpoint(url, refused)


class IssuerDiscovery:
    """One issuer's metadata document, as a process keeps it.

    Fetched when first needed, then used for ``max_age`` seconds; the next use after that fetches
    it again, and so does the next use after :meth:`expire` (a caller saw an endpoint it names
    fail). A fetch that fails keeps nothing: the next use fetches again, so a bad answer lasts
    one use, not the life of the process. Every document is checked before it is kept: it names
    this issuer (:func:`issuer_metadata`), carries the ``required`` members, and every endpoint it
    names passes the issuer's URL rule (:func:`check_endpoints`). Failures are
    :class:`DiscoveryError` subclasses, or whatever ``get_json`` raises.
    """

    def __init__(
        self,
        get_json: JsonGetter,
        issuer: str,
        discovery: Literal["oidc", "oauth"] = "oidc",
        *,
        allow_loopback_http: bool = False,
        ignore_trailing_slash: bool = False,
        required: Sequence[str] = (),
        max_age: float = METADATA_MAX_AGE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.issuer = issuer
        self.discovery: Literal["oidc", "oauth"] = discovery
        self.url = metadata_url(issuer, discovery)
        self._get_json = get_json
        self._allow_loopback_http = allow_loopback_http
        self._ignore_trailing_slash = ignore_trailing_slash
        self._required = tuple(required)
        self._max_age = max_age
        self._clock = clock
        self._document: dict[str, Any] | None = None
        self._stale_at = float("-inf")
        #: How the last fetch failed, for the callers that waited for it, and how many ended.
        self._failure: BaseException | None = None
        self._finished = 0
        self._lock = asyncio.Lock()
        #: How many fetches were attempted (tests count them).
        self.fetches = 0

    def _fresh(self) -> dict[str, Any] | None:
        return self._document if self._clock() < self._stale_at else None

    async def metadata(self) -> dict[str, Any]:
        """The checked document: the kept one while it is fresh, otherwise fetched now.

        Callers arriving while a fetch is under way wait for it and share its outcome, so an
        issuer that is down is asked once, not once per waiting request.
        """
        document = self._fresh()
        if document is not None:
            return document
        finished = self._finished
        async with self._lock:
            document = self._fresh()
            if document is not None:
                return document  # another caller fetched it while this one waited
            if self._finished != finished and self._failure is not None:
                raise self._failure  # the fetch this caller waited for failed; the next use asks again
            self._document = self._failure = None
            self.fetches += 1
            try:
                document = await self._fetch()
            except Exception as failure:  # not a cancellation: the waiters fetch for themselves then
                self._failure = failure
                raise
            finally:
                self._finished += 1
            self._document = document
            self._stale_at = self._clock() + self._max_age
            return document

    async def _fetch(self) -> dict[str, Any]:
        document = await issuer_metadata(
            self._get_json, self.issuer, self.discovery, ignore_trailing_slash=self._ignore_trailing_slash
        )
        missing = [name for name in self._required if not _names_something(document.get(name))]
        if missing:
            raise IncompleteMetadata(self.url, missing)
        check_endpoints(document, self.url, allow_loopback_http=self._allow_loopback_http)
        return document

    def expire(self) -> None:
        """Fetch the document again at its next use (an endpoint it names just failed)."""
        self._stale_at = float("-inf")

    async def jwks_uri(self) -> str:
        """The issuer's ``jwks_uri`` as the current document names it (a key cache's locator)."""
        found = (await self.metadata()).get("jwks_uri")
        if not isinstance(found, str) or not found:
            raise IncompleteMetadata(self.url, ["jwks_uri"])
        return found


def _names_something(value: object) -> bool:
    return isinstance(value, str) and value != ""


async def jwks_uri_for(
    http: httpx2.AsyncClient,
    issuer: str,
    discovery: Discovery,
    *,
    jwks_uri: str = "",
    allow_loopback_http: bool = False,
) -> str:
    """The URL of the issuer's signing keys, after checking it may be trusted.

    Discovered metadata is checked whole, as :class:`IssuerDiscovery` checks it: every endpoint
    it names must pass the issuer's URL rule, not only ``jwks_uri``.
    """
    if discovery != "manual":
        found = IssuerDiscovery(
            partial(fetch_json, http), issuer, discovery, allow_loopback_http=allow_loopback_http
        )
        return await found.jwks_uri()
    if not jwks_uri:
        raise DiscoveryError("discovery = manual needs jwks_uri")
    if not same_origin(jwks_uri, issuer):
        raise DiscoveryError(f"jwks_uri {jwks_uri} is not on the issuer's origin")
    problem = transport_problem(jwks_uri, allow_loopback_http=allow_loopback_http)
    if problem:
        raise DiscoveryError(f"jwks_uri {jwks_uri} {problem}")
    return jwks_uri
