"""The device flow client (RFC 8628) against the development provider."""

from __future__ import annotations

import asyncio
import logging

import pytest

from fw.auth.oidc import DeviceClient, DeviceConfig, DeviceFlowError, DeviceOptions, Provider
from fw.testing import TestIdentityProvider, identity_provider


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


async def test_each_slow_down_adds_5_seconds_to_this_wait_and_every_later_one() -> None:
    """RFC 8628 3.5, on the client's own waits: the provider (interval 30 s) answers the first poll
    pending, then slow_down to each poll that came sooner than its interval."""
    waits: list[float] = []
    with identity_provider(device_interval=30) as idp:

        async def sleep(seconds: float) -> None:
            waits.append(seconds)  # no real waiting: every poll comes too soon for the provider
            if len(waits) == 4:
                idp.approve_device(authorization.user_code, "alice")

        provider = Provider(idp.issuer, allow_loopback_http=True)
        client = DeviceClient(provider, DeviceConfig(client_id="fw-test-device"), DeviceOptions(sleep=sleep))
        authorization = await client.begin()
        _, identity = await asyncio.wait_for(client.poll(authorization), 10)
        await provider.aclose()
        [grant] = idp.state.devices.values()
    assert identity.subject == "alice"
    # pending after 30 s; slow_down after the next 30 s (35 s from then on); slow_down again (40 s).
    assert waits == [30.0, 30.0, 35.0, 40.0]
    assert grant.interval == 40  # the provider asked for two slow-downs, and the client made both


def test_the_default_options_follow_rfc_8628_and_wait_with_asyncio_sleep() -> None:
    options = DeviceOptions()
    assert options.slow_down_step == 5.0 and options.min_interval == 5.0
    assert options.sleep is asyncio.sleep


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
