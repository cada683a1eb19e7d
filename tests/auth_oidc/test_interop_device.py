"""The device client against an independent, certified provider (npm ``oidc-provider``, loopback).

The device is registered as the RFC 8628 public client it is: ``token_endpoint_auth_method =
none`` and the device-code grant. The person's side (code confirmation, login, consent) is
driven through the provider's own development pages, as a phone's browser would.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import pytest
from interop.conftest import RunningProvider, start_provider

from fw.auth.oidc import DeviceClient, DeviceConfig, DeviceFlowError, DeviceOptions, Provider

__all__ = ["start_provider"]  # the harness fixture, used below

DEVICE_CLIENT = {
    "client_id": "fw-device",
    "token_endpoint_auth_method": "none",
    "grant_types": ["urn:ietf:params:oauth:grant-type:device_code"],
    "response_types": [],
    "redirect_uris": [],
}


def configure(start: Callable[[dict[str, Any]], RunningProvider]) -> RunningProvider:
    return start({"clients": [DEVICE_CLIENT], "accounts": {"alice": {"email": "alice@interop.test"}}})


def submit_first_form(browser: httpx2.Client, page: httpx2.Response, **fields: str) -> httpx2.Response:
    form = re.search(r"<form([^>]*)>(.*?)</form>", page.text, re.S)
    assert form, page.text
    action = re.search(r'action="([^"]*)"', form.group(1))
    hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form.group(2)))
    target = page.url.join(action.group(1)) if action else page.url
    return browser.post(target, data={**hidden, **fields})


def approve(verification_uri_complete: str, *, confirm: str) -> httpx2.Response:
    """Confirm the user code, sign in as alice and consent; returns the provider's last page."""
    with httpx2.Client(follow_redirects=True, timeout=10) as browser:
        page = browser.get(verification_uri_complete)
        page = submit_first_form(browser, page, confirm=confirm) if confirm == "yes" else page
        if confirm != "yes":
            return submit_first_form(browser, page, abort="yes")
        page = submit_first_form(browser, page, login="alice", password="any")
        if "/interaction/" in page.url.path:
            page = submit_first_form(browser, page)
        return page


@pytest.fixture
async def device(
    start_provider: Callable[[dict[str, Any]], RunningProvider],
) -> AsyncIterator[DeviceClient]:
    """The device client of ``fw-device`` at a freshly started certified provider."""
    provider = configure(start_provider)
    idp = Provider(provider.issuer, allow_loopback_http=True)
    try:
        yield DeviceClient(idp, DeviceConfig("fw-device"), DeviceOptions(min_interval=1))
    finally:
        await idp.aclose()


async def test_a_device_signs_in_through_a_certified_provider(device: DeviceClient) -> None:
    authorization = await device.begin(["openid", "email"])
    assert authorization.user_code and authorization.verification_uri.startswith(device.provider.issuer)
    assert "device_code" not in repr(authorization)
    final = await asyncio.to_thread(approve, authorization.verification_uri_complete, confirm="yes")
    assert final.status_code == 200, final.text
    tokens, identity = await asyncio.wait_for(device.poll(authorization), 30)
    assert identity.claims["sub"] == "alice"
    assert identity.claims["aud"] == "fw-device"
    assert tokens.access_token


async def test_a_device_refused_at_a_certified_provider_stops_polling(device: DeviceClient) -> None:
    authorization = await device.begin()
    await asyncio.to_thread(approve, authorization.verification_uri_complete, confirm="no")
    with pytest.raises(DeviceFlowError, match="access_denied"):
        await asyncio.wait_for(device.poll(authorization), 30)
