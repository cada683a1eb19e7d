"""``fw doctor``'s look at the provider (:func:`fw.auth.modes.oidc_only.probe.probe_provider`): what
a sign-in would fetch first, bounded in time, each failure a startup error naming the key.

The provider is a real server on loopback; the one that never answers is a listening socket
nobody reads from.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
from naming_issuer import NamingIssuer

from fw.auth.modes.oidc_only.probe import probe_provider
from fw.auth.oidc import Provider
from fw.errors import StartupError


@pytest.fixture
def issuer() -> Iterator[NamingIssuer]:
    with NamingIssuer() as running:
        yield running


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A loopback port that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"


async def test_a_provider_with_discovery_and_keys_passes(issuer: NamingIssuer) -> None:
    provider = Provider(issuer.url, allow_loopback_http=True)
    try:
        await probe_provider(provider, "auth.oidc.issuer")
    finally:
        await provider.aclose()
    assert issuer.requests["/jwks.json"] == 1


async def test_a_key_set_without_a_usable_key_is_an_error(issuer: NamingIssuer) -> None:
    issuer.published = []
    provider = Provider(issuer.url, allow_loopback_http=True)
    try:
        with pytest.raises(StartupError) as refused:
            await probe_provider(provider, "auth.oidc.issuer")
    finally:
        await provider.aclose()
    assert (refused.value.key, refused.value.value) == ("auth.oidc.issuer", issuer.url)
    assert "no signature key" in refused.value.fix


async def test_a_provider_that_never_answers_is_an_error_within_the_bound(silent_url: str) -> None:
    provider = Provider(silent_url, allow_loopback_http=True)
    began = time.monotonic()
    try:
        with pytest.raises(StartupError) as refused:
            await probe_provider(provider, "auth.oidc.issuer", seconds=0.5)
    finally:
        await provider.aclose()
    assert time.monotonic() - began < 5
    assert "did not answer discovery and keys within 0.5 s" in refused.value.fix
