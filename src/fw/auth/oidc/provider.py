"""One OpenID provider as seen by a relying party: its discovery document, signing keys and endpoints.

Discovery, the key cache and the bounded fetch are the token core's; this module words their
failures in relying-party terms. The document and keys are fetched lazily and cached; an
unknown ``kid`` refetches the key set (at most every 30 s), so a provider's key rotation needs
no restart, and the last good keys stay in use while the provider is down.
"""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import dataclass, field
from typing import Any

import httpx2

from fw.auth.oidc.errors import OidcError, ProviderError, ProviderUnavailable
from fw.auth.tokens.algorithms import Key
from fw.auth.tokens.discovery import issuer_metadata
from fw.auth.tokens.errors import (
    DiscoveryError,
    IssuerMismatch,
    MalformedKeySet,
    UnexpectedAnswer,
    Unreachable,
)
from fw.auth.tokens.fetch import Answer, fetch_bounded
from fw.auth.tokens.jwks import JwksCache
from fw.auth.tokens.urls import transport_problem

_KEYS_MIN_REFRESH = 30.0


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
    ) -> None:
        problem = transport_problem(issuer, allow_loopback_http=allow_loopback_http)
        if problem:
            raise ValueError(f"issuer {issuer!r} {problem}")
        self.issuer = issuer.rstrip("/")
        self._http = http
        self._timeout = timeout
        self._metadata: ProviderMetadata | None = None
        self._keys: JwksCache | None = None
        self._lock = asyncio.Lock()

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

    async def get_json(self, url: str, *, headers: dict[str, str] | None = None) -> dict[str, Any]:
        return await self._call("GET", url, headers=headers)

    async def post_form(
        self, url: str, data: dict[str, str], *, auth: httpx2.BasicAuth | None = None
    ) -> dict[str, Any]:
        return await self._call("POST", url, data=data, auth=auth)

    async def _call(
        self,
        method: str,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        data: dict[str, str] | None = None,
        auth: httpx2.BasicAuth | None = None,
    ) -> dict[str, Any]:
        try:
            # Any status: OAuth errors arrive as 4xx answers with a JSON body.
            answer = await fetch_bounded(
                self.http, method, url, expect=None, headers=headers, data=data, auth=auth
            )
        except DiscoveryError as error:
            raise _failure(error) from None
        return _json_body(answer)

    async def metadata(self) -> ProviderMetadata:
        """The discovery document; its ``issuer`` must equal the configured issuer exactly."""
        if self._metadata is None:
            async with self._lock:
                if self._metadata is None:
                    self._metadata = await self._discover()
        return self._metadata

    async def _discover(self) -> ProviderMetadata:
        try:
            document = await issuer_metadata(self.get_json, self.issuer, ignore_trailing_slash=True)
        except IssuerMismatch as mismatch:
            raise OidcError("discovery document names another issuer", str(mismatch.named)) from None
        required = ("authorization_endpoint", "token_endpoint", "jwks_uri")
        missing = [name for name in required if not isinstance(document.get(name), str)]
        if missing:
            raise OidcError("discovery document is incomplete", ", ".join(missing))
        prompts = document.get("prompt_values_supported") or ()
        return ProviderMetadata(
            issuer=self.issuer,
            authorization_endpoint=document["authorization_endpoint"],
            token_endpoint=document["token_endpoint"],
            jwks_uri=document["jwks_uri"],
            userinfo_endpoint=str(document.get("userinfo_endpoint") or ""),
            end_session_endpoint=str(document.get("end_session_endpoint") or ""),
            device_authorization_endpoint=str(document.get("device_authorization_endpoint") or ""),
            prompt_values_supported=tuple(str(p) for p in prompts) if isinstance(prompts, list) else (),
            raw=document,
        )

    async def key_for(self, kid: str | None, alg: str) -> Key | None:
        """The provider's key for a token's ``kid`` and ``alg``, or ``None`` when it publishes none.

        The first load must succeed (its failure is raised); after that an unknown ``kid``
        refetches quietly, keeping the last good keys when the provider does not answer.
        """
        if self._keys is None:
            metadata = await self.metadata()
            # A key set is only refreshed for an unknown kid, and one unusable entry spoils it.
            self._keys = JwksCache(
                metadata.jwks_uri,
                self.http,
                refetch_cooldown=_KEYS_MIN_REFRESH,
                max_age=math.inf,
                strict=True,
            )
        try:
            await self._keys.load()
        except DiscoveryError as error:
            raise _failure(error) from None
        return await self._keys.key_for(kid, alg)


def _failure(error: DiscoveryError) -> OidcError:
    """A token-core fetch failure in relying-party terms."""
    if isinstance(error, Unreachable):
        return ProviderUnavailable("the identity provider could not be reached", error.cause)
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
