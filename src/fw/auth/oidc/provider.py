"""One OpenID provider as seen by a relying party: its discovery document and signing keys.

Both are fetched lazily and cached; an unknown ``kid`` refetches the key set once, so a provider's
key rotation needs no restart.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
from joserfc.jwk import KeySet

from fw.auth.jwt.urls import is_loopback_host
from fw.auth.oidc.errors import OidcError, ProviderError, ProviderUnavailable

_KEYS_MIN_REFRESH = 30.0


def check_issuer_url(issuer: str, *, allow_loopback_http: bool) -> str | None:
    """Why ``issuer`` is unacceptable, or ``None``: https, or http on loopback when allowed."""
    try:
        parts = urlsplit(issuer)
    except ValueError:
        return "is not a URL"
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and parts.hostname:
        if allow_loopback_http and is_loopback_host(parts.hostname):
            return None
        if is_loopback_host(parts.hostname):
            return "is http; set auth.oidc.allow_loopback_http = true for a loopback development provider"
        return "must be an https URL"
    return "must be an absolute https URL"


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
        http: httpx.AsyncClient | None = None,
        timeout: float = 10.0,
    ) -> None:
        problem = check_issuer_url(issuer, allow_loopback_http=allow_loopback_http)
        if problem:
            raise ValueError(f"issuer {issuer!r} {problem}")
        self.issuer = issuer.rstrip("/")
        self._http = http
        self._timeout = timeout
        self._metadata: ProviderMetadata | None = None
        self._keys: KeySet | None = None
        self._keys_fetched = 0.0
        self._lock = asyncio.Lock()

    @property
    def http(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = httpx.AsyncClient(timeout=self._timeout, follow_redirects=False)
        return self._http

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def get_json(self, url: str, **kwargs: Any) -> dict[str, Any]:
        try:
            response = await self.http.get(url, **kwargs)
        except httpx.HTTPError as error:
            raise ProviderUnavailable("the identity provider could not be reached", str(error)) from None
        return _json_body(response)

    async def post_form(self, url: str, data: dict[str, str], **kwargs: Any) -> dict[str, Any]:
        try:
            response = await self.http.post(url, data=data, headers={"Accept": "application/json"}, **kwargs)
        except httpx.HTTPError as error:
            raise ProviderUnavailable("the identity provider could not be reached", str(error)) from None
        return _json_body(response)

    async def metadata(self) -> ProviderMetadata:
        """The discovery document; its ``issuer`` must equal the configured issuer exactly."""
        if self._metadata is None:
            async with self._lock:
                if self._metadata is None:
                    self._metadata = await self._discover()
        return self._metadata

    async def _discover(self) -> ProviderMetadata:
        document = await self.get_json(f"{self.issuer}/.well-known/openid-configuration")
        if str(document.get("issuer", "")).rstrip("/") != self.issuer:
            raise OidcError("discovery document names another issuer", str(document.get("issuer")))
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

    async def keys(self, *, kid: str | None = None) -> KeySet:
        """The provider's key set; refetched when ``kid`` is unknown (not more than every 30 s)."""
        now = time.monotonic()
        stale = kid is not None and self._keys is not None and not _has_kid(self._keys, kid)
        if self._keys is None or (stale and now - self._keys_fetched > _KEYS_MIN_REFRESH):
            metadata = await self.metadata()
            document = await self.get_json(metadata.jwks_uri)
            try:
                self._keys = KeySet.import_key_set(document)  # type: ignore[arg-type]
            except Exception as error:  # joserfc raises several kinds for a malformed set
                raise OidcError("the provider's key set is malformed", str(error)) from None
            self._keys_fetched = now
        return self._keys


def _has_kid(keys: KeySet, kid: str) -> bool:
    return any(key.kid == kid for key in keys.keys)


def _json_body(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        raise ProviderError(body["error"], str(body.get("error_description") or ""))
    if response.status_code >= 400 or not isinstance(body, dict):
        raise ProviderUnavailable(
            "the identity provider answered something unexpected", f"HTTP {response.status_code}"
        )
    return body
