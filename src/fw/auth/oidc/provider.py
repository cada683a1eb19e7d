"""One OpenID provider as seen by a relying party: its discovery document, signing keys and endpoints.

Discovery, the key cache and the bounded fetch are the token core's; this module words their
failures in relying-party terms. Every endpoint the discovery document names must pass the
issuer's own URL rule (https, or http on loopback with ``allow_loopback_http``), or the document
is refused: a provider behind a proxy that lost the scheme would otherwise have the browser, the
client secret and the key fetch sent over plain http.

The document is fetched lazily, kept for ``metadata_max_age`` seconds and fetched again after
that, or at the next use after an endpoint it names failed; a refused or failed fetch keeps
nothing. The keys are fetched lazily and cached; an unknown ``kid`` refetches the key set (at
most every 30 s, from the ``jwks_uri`` the current document names), so a provider's key
rotation needs no restart, and the last good keys stay in use while the provider is down.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2

from fw.auth.oidc.errors import OidcError, ProviderError, ProviderUnavailable
from fw.auth.tokens.algorithms import Key
from fw.auth.tokens.discovery import METADATA_MAX_AGE, IssuerDiscovery
from fw.auth.tokens.errors import (
    DiscoveryError,
    IncompleteMetadata,
    IssuerMismatch,
    MalformedKeySet,
    UnexpectedAnswer,
    Unreachable,
    UntrustedEndpoint,
)
from fw.auth.tokens.fetch import Answer, fetch_bounded, fetch_json
from fw.auth.tokens.jwks import JwksCache
from fw.auth.tokens.urls import transport_problem

_KEYS_MIN_REFRESH = 30.0
_REQUIRED = ("authorization_endpoint", "token_endpoint", "jwks_uri")


@dataclass(frozen=True)
class ProviderMetadata:
    """The fields of the discovery document a relying party uses."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    userinfo_endpoint: str = ""
    end_session_endpoint: str = ""
    device_authorization_endpoint: str = ""
    prompt_values_supported: tuple[str, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


class Provider:
    """An issuer and the HTTP client used to talk to it."""

    def __init__(
        self,
        issuer: str,
        *,
        allow_loopback_http: bool = False,
        http: httpx2.AsyncClient | None = None,
        timeout: float = 10.0,
        metadata_max_age: float = METADATA_MAX_AGE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        problem = transport_problem(issuer, allow_loopback_http=allow_loopback_http)
        if problem:
            raise ValueError(f"issuer {issuer!r} {problem}")
        self.issuer = issuer.rstrip("/")
        self._http = http
        self._timeout = timeout
        self.discovery = IssuerDiscovery(
            self._get_document,
            self.issuer,
            allow_loopback_http=allow_loopback_http,
            ignore_trailing_slash=True,
            required=_REQUIRED,
            max_age=metadata_max_age,
            clock=clock,
        )
        self._metadata: ProviderMetadata | None = None
        #: The document ``_metadata`` was read from: a new one is read again.
        self._parsed: dict[str, Any] | None = None
        self._keys: JwksCache | None = None

    @property
    def http(self) -> httpx2.AsyncClient:
        if self._http is None:
            self._http = httpx2.AsyncClient(timeout=self._timeout, follow_redirects=False)
        return self._http

    async def aclose(self) -> None:
        if self._keys is not None:
            await self._keys.close()
            self._keys = None
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def get_json(
        self, url: str, *, headers: dict[str, str] | None = None, endpoint: str = "userinfo"
    ) -> dict[str, Any]:
        return await self._call("GET", url, headers=headers, endpoint=endpoint)

    async def post_form(
        self, url: str, data: dict[str, str], *, auth: httpx2.BasicAuth | None = None, endpoint: str = "token"
    ) -> dict[str, Any]:
        return await self._call("POST", url, data=data, auth=auth, endpoint=endpoint)

    async def _call(
        self,
        method: str,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        data: dict[str, str] | None = None,
        auth: httpx2.BasicAuth | None = None,
        endpoint: str = "other",
    ) -> dict[str, Any]:
        """One request to an endpoint the metadata named; a failure sends the next use of the
        metadata back to the provider (the endpoint may have moved). An OAuth error is an answer,
        not a failure."""
        try:
            # Any status: OAuth errors arrive as 4xx answers with a JSON body.
            answer = await fetch_bounded(
                self.http, method, url, expect=None, headers=headers, data=data, auth=auth, endpoint=endpoint
            )
            return _json_body(answer)
        except DiscoveryError as error:
            self.discovery.expire()
            raise _failure(error) from None
        except ProviderUnavailable:
            self.discovery.expire()
            raise

    async def _get_document(self, url: str) -> dict[str, Any]:
        return await fetch_json(self.http, url)

    async def metadata(self) -> ProviderMetadata:
        """The discovery document; its ``issuer`` must equal the configured issuer exactly, and
        every endpoint it names must pass the issuer's URL rule."""
        try:
            document = await self.discovery.metadata()
        except DiscoveryError as error:
            raise _failure(error) from None
        if self._metadata is None or self._parsed is not document:
            self._metadata, self._parsed = _parse(self.issuer, document), document
        return self._metadata

    def _key_cache(self) -> JwksCache:
        if self._keys is None:
            # A key set is only refreshed for an unknown kid, and one unusable entry spoils it;
            # each fetch asks the current document where the keys are.
            self._keys = JwksCache(
                self.discovery.jwks_uri,
                self.http,
                refetch_cooldown=_KEYS_MIN_REFRESH,
                max_age=math.inf,
                strict=True,
                on_failure=self.discovery.expire,
            )
        return self._keys

    async def key_for(self, kid: str | None, alg: str) -> Key | None:
        """The provider's key for a token's ``kid`` and ``alg``, or ``None`` when it publishes none.

        The first load must succeed (its failure is raised); after that an unknown ``kid``
        refetches quietly, keeping the last good keys when the provider does not answer.
        """
        keys = self._key_cache()
        try:
            await keys.load()
        except DiscoveryError as error:
            raise _failure(error) from None
        return await keys.key_for(kid, alg)

    async def check(self) -> int:
        """Fetch the discovery document and the key set now, by the rules a sign-in uses; the
        number of signature keys published. For a deployment check (``fw doctor``): raises the
        :class:`OidcError` a sign-in would meet."""
        await self.metadata()
        keys = self._key_cache()
        try:
            await keys.refresh()
        except DiscoveryError as error:
            raise _failure(error) from None
        return len(keys.keys)


def _parse(issuer: str, document: dict[str, Any]) -> ProviderMetadata:
    """The members a relying party uses, from a document discovery already checked."""
    prompts = document.get("prompt_values_supported") or ()
    return ProviderMetadata(
        issuer=issuer,
        authorization_endpoint=document["authorization_endpoint"],
        token_endpoint=document["token_endpoint"],
        jwks_uri=document["jwks_uri"],
        userinfo_endpoint=str(document.get("userinfo_endpoint") or ""),
        end_session_endpoint=str(document.get("end_session_endpoint") or ""),
        device_authorization_endpoint=str(document.get("device_authorization_endpoint") or ""),
        prompt_values_supported=tuple(str(p) for p in prompts) if isinstance(prompts, list) else (),
        raw=document,
    )


def _failure(error: DiscoveryError) -> OidcError:
    """A token-core fetch failure in relying-party terms."""
    if isinstance(error, Unreachable):
        return ProviderUnavailable("the identity provider could not be reached", str(error))
    if isinstance(error, IssuerMismatch):
        return OidcError("discovery document names another issuer", str(error.named))
    if isinstance(error, IncompleteMetadata):
        return OidcError("discovery document is incomplete", ", ".join(error.missing))
    if isinstance(error, UntrustedEndpoint):
        return ProviderUnavailable("the discovery document names an endpoint fw must not use", str(error))
    if isinstance(error, MalformedKeySet):
        return OidcError("the provider's key set is malformed", str(error))
    status = f"HTTP {error.status}" if isinstance(error, UnexpectedAnswer) else str(error)
    return ProviderUnavailable("the identity provider answered something unexpected", status)


def _json_body(answer: Answer) -> dict[str, Any]:
    try:
        body = json.loads(answer.content)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        raise ProviderError(body["error"], str(body.get("error_description") or ""))
    if answer.status >= 400 or not isinstance(body, dict):
        raise ProviderUnavailable(
            "the identity provider answered something unexpected", f"HTTP {answer.status}"
        )
    return body
