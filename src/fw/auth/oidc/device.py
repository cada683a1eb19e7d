"""RFC 8628 device authorization for input-constrained devices, as an OIDC public client.

The device code is the credential the device polls with: it never appears in ``repr``, ``str``
or logs. Polling follows the provider's interval, slows down by 5 s on ``slow_down`` for that
request and every later one (RFC 8628 section 3.5), and stops as soon as the surrounding task is
cancelled.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from fw.auth.oidc.authorization import scope_string
from fw.auth.oidc.errors import OidcError, ProviderError
from fw.auth.oidc.exchange import Tokens, VerifiedIdentity, parse_tokens, verify_id_token
from fw.auth.oidc.provider import Provider


@dataclass(frozen=True)
class DeviceConfig:
    """The device's registration at the provider: a public client, so no secret."""

    client_id: str


@dataclass(frozen=True)
class DeviceOptions:
    """Polling bounds. ``min_interval`` is the interval when the provider names none;
    ``slow_down_step`` what each ``slow_down`` adds (RFC 8628: 5 s); ``sleep`` how the client
    waits between requests (a program on its own scheduler, or a test counting the waits, passes
    its own)."""

    min_interval: float = 5.0
    slow_down_step: float = 5.0
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep


@dataclass(frozen=True)
class DeviceAuthorization:
    """What the person needs to approve the device. The device code stays private."""

    verification_uri: str
    user_code: str
    verification_uri_complete: str
    expires_at: float
    interval: float
    _device_code: str = field(repr=False, compare=False)

    def __str__(self) -> str:
        return f"visit {self.verification_uri} and enter {self.user_code}"


class DeviceFlowError(OidcError):
    """The device flow ended without tokens: ``access_denied``, ``expired_token`` or another error."""


class DeviceClient:
    """Begins a device authorization and polls until the person approves, denies or it expires."""

    def __init__(
        self, provider: Provider, config: DeviceConfig, options: DeviceOptions | None = None
    ) -> None:
        if not config.client_id:
            raise ValueError("DeviceConfig.client_id is required")
        self.provider = provider
        self.config = config
        self.options = options or DeviceOptions()

    async def begin(self, scopes: Sequence[str] = ()) -> DeviceAuthorization:
        metadata = await self.provider.metadata()
        if not metadata.device_authorization_endpoint:
            raise OidcError("the provider publishes no device_authorization_endpoint")
        body = await self.provider.post_form(
            metadata.device_authorization_endpoint,
            {"client_id": self.config.client_id, "scope": scope_string(scopes)},
            endpoint="device_authorization",
        )
        try:
            device_code = str(body["device_code"])
            user_code = str(body["user_code"])
            verification_uri = str(body.get("verification_uri") or body["verification_url"])
        except KeyError as missing:
            raise OidcError("the device authorization response is incomplete", str(missing)) from None
        interval = body.get("interval")
        expires_in = body.get("expires_in")
        return DeviceAuthorization(
            verification_uri=verification_uri,
            user_code=user_code,
            verification_uri_complete=str(body.get("verification_uri_complete") or ""),
            expires_at=time.time() + (float(expires_in) if isinstance(expires_in, int | float) else 600.0),
            interval=float(interval) if isinstance(interval, int | float) else self.options.min_interval,
            _device_code=device_code,
        )

    async def poll(self, authorization: DeviceAuthorization) -> tuple[Tokens, VerifiedIdentity]:
        """Wait for the person's answer; cancel the awaiting task to stop polling."""
        metadata = await self.provider.metadata()
        interval = authorization.interval
        form = {
            "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            "device_code": authorization._device_code,
            "client_id": self.config.client_id,
        }
        while True:
            await self.options.sleep(interval)
            if time.time() > authorization.expires_at:
                raise DeviceFlowError("the device authorization expired", "expired_token")
            try:
                body = await self.provider.post_form(metadata.token_endpoint, form)
            except ProviderError as error:
                if error.error == "authorization_pending":
                    continue
                if error.error == "slow_down":
                    interval += self.options.slow_down_step
                    continue
                raise DeviceFlowError(f"the device flow ended: {error.error}", error.description) from None
            tokens = parse_tokens(body)
            if not tokens.id_token:
                raise OidcError("the token response has no id_token")
            identity = await verify_id_token(
                self.provider, tokens.id_token, client_id=self.config.client_id, nonce=None
            )
            return tokens, identity
