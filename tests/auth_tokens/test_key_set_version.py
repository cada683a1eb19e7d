"""The key-set version the verified-token cache follows: new keys, new version; same keys, same version."""

from __future__ import annotations

from .test_jwks import KEY_A, KEY_B, Clock, Issuer, _cache


async def test_a_refetch_bringing_the_same_keys_keeps_the_version() -> None:
    issuer, clock = Issuer(KEY_A), Clock()
    cache = _cache(issuer, clock)
    await cache.refresh()
    first = cache.version()
    await cache.refresh()
    assert issuer.calls == 2
    assert cache.version() == first


async def test_a_refetch_bringing_other_keys_changes_the_version() -> None:
    issuer, clock = Issuer(KEY_A), Clock()
    cache = _cache(issuer, clock)
    await cache.refresh()
    first = cache.version()
    issuer.keys = [KEY_A, KEY_B]
    await cache.refresh()
    assert cache.version() != first


async def test_asking_the_version_of_a_stale_set_refreshes_it_in_the_background() -> None:
    issuer, clock = Issuer(KEY_A), Clock()
    cache = _cache(issuer, clock, max_age=300)
    await cache.refresh()
    first = cache.version()
    assert cache.pending_refresh is None
    issuer.keys = [KEY_B]
    clock.now += 301
    assert cache.version() == first  # still serving the old set while the refresh runs
    assert cache.pending_refresh is not None
    await cache.pending_refresh
    assert cache.version() != first
    assert issuer.calls == 2


async def test_asking_the_version_of_a_fresh_set_fetches_nothing() -> None:
    issuer, clock = Issuer(KEY_A), Clock()
    cache = _cache(issuer, clock, max_age=300)
    await cache.refresh()
    for _ in range(5):
        cache.version()
    assert cache.pending_refresh is None
    assert issuer.calls == 1
