"""The device flow client (RFC 8628) against the development provider."""

from __future__ import annotations

import asyncio
import logging

import pytest

from fw.auth.oidc import DeviceClient, DeviceConfig, DeviceFlowError, DeviceOptions, Provider
from fw.testing import TestIdentityProvider


def device_client(idp: TestIdentityProvider) -> DeviceClient:
    provider = Provider(idp.issuer, allow_loopback_http=True)
    return DeviceClient(provider, DeviceConfig(client_id="fw-test-device"), DeviceOptions(slow_down_step=0.2))


async def test_a_device_gets_tokens_and_identity_once_the_person_approves(idp: TestIdentityProvider) -> None:
    client = device_client(idp)
    authorization = await client.begin(scopes=["profile"])
    assert authorization.verification_uri == f"{idp.issuer}/device"
    assert authorization.user_code in authorization.verification_uri_complete
    polling = asyncio.ensure_future(client.poll(authorization))
    await asyncio.sleep(0.2)
    idp.approve_device(authorization.user_code, "bob")
    tokens, identity = await asyncio.wait_for(polling, 10)
    assert identity.subject == "bob" and identity.issuer == idp.issuer
    assert (
        tokens.access_token and "access_token" not in repr(tokens) and tokens.access_token not in repr(tokens)
    )
    await client.provider.aclose()


async def test_the_device_code_never_appears_in_repr_str_or_logs(
    idp: TestIdentityProvider, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    client = device_client(idp)
    authorization = await client.begin()
    device_code = next(iter(idp.state.devices))
    assert device_code not in repr(authorization)
    assert device_code not in str(authorization)
    assert device_code not in caplog.text
    assert not hasattr(authorization, "device_code")
    await client.provider.aclose()


async def test_a_denied_device_authorization_ends_polling(idp: TestIdentityProvider) -> None:
    client = device_client(idp)
    authorization = await client.begin()
    idp.deny_device(authorization.user_code)
    with pytest.raises(DeviceFlowError, match="access_denied"):
        await asyncio.wait_for(client.poll(authorization), 10)
    await client.provider.aclose()


async def test_slow_down_lengthens_the_interval(idp: TestIdentityProvider) -> None:
    client = device_client(idp)
    authorization = await client.begin()
    fast = type(authorization)(
        authorization.verification_uri,
        authorization.user_code,
        authorization.verification_uri_complete,
        authorization.expires_at,
        0.0,  # poll immediately: the provider answers slow_down
        authorization._device_code,
    )
    polling = asyncio.ensure_future(client.poll(fast))
    await asyncio.sleep(0.5)
    grant = next(iter(idp.state.devices.values()))
    assert grant.interval > 1  # the provider saw polling too fast and asked to slow down
    idp.approve_device(authorization.user_code, "alice")
    _, identity = await asyncio.wait_for(polling, 15)
    assert identity.subject == "alice"
    await client.provider.aclose()


async def test_polling_stops_when_cancelled(idp: TestIdentityProvider) -> None:
    client = device_client(idp)
    authorization = await client.begin()
    polling = asyncio.ensure_future(client.poll(authorization))
    await asyncio.sleep(0.1)
    polling.cancel()
    with pytest.raises(asyncio.CancelledError):
        await polling
    await client.provider.aclose()


def test_a_device_client_needs_a_client_id() -> None:
    with pytest.raises(ValueError, match="client_id"):
        DeviceClient(Provider("https://id.example.com"), DeviceConfig(client_id=""))
