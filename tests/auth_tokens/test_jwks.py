"""The JWKS cache and discovery against scripted issuer answers (httpx2.MockTransport)."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from fw.auth.tokens.discovery import jwks_uri_for, metadata_url
from fw.auth.tokens.errors import DiscoveryError
from fw.auth.tokens.fetch import MAX_METADATA_BYTES
from fw.auth.tokens.jwks import JwksCache, parse_jwks
from fw.testing.issuer import generate_key

KEY_A = generate_key("RS256", "a")
KEY_B = generate_key("RS256", "b")
EC = generate_key("ES256", "ec")


def _public(key: Any) -> dict[str, Any] | None:
    """A key's public JWK members (``None`` for no key): two keys compare equal when they are
    the same key published the same way."""
    return None if key is None else dict(key.as_dict(private=False))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Issuer:
    """Answers JWKS requests with whatever ``keys`` holds; counts requests."""

    def __init__(self, *keys: Any) -> None:
        self.keys = list(keys)
        self.calls = 0
        self.down = False

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        self.calls += 1
        if self.down:
            raise httpx2.ConnectError("connection refused", request=request)
        return httpx2.Response(200, json={"keys": [k.as_dict(private=False) for k in self.keys]})


def _cache(issuer: Issuer, clock: Clock, **options: float) -> JwksCache:
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(issuer.handler))
    return JwksCache("https://issuer.example/jwks", http, clock=clock, **options)


async def test_an_unknown_kid_refetches_at_most_once_per_cooldown() -> None:
    issuer, clock = Issuer(KEY_A), Clock()
    cache = _cache(issuer, clock, refetch_cooldown=30)
    await cache.refresh()
    for _ in range(20):
        assert await cache.key_for("nope", "RS256") is None
    assert issuer.calls == 2
    clock.now += 31
    assert await cache.key_for("nope", "RS256") is None
    assert issuer.calls == 3


async def test_a_new_kid_is_found_after_rotation() -> None:
    issuer, clock = Issuer(KEY_A), Clock()
    cache = _cache(issuer, clock)
    await cache.refresh()
    issuer.keys = [KEY_B]
    assert _public(await cache.key_for("b", "RS256")) == _public(KEY_B)


async def test_stale_keys_are_refreshed_and_removed_keys_stop_verifying() -> None:
    issuer, clock = Issuer(KEY_A, KEY_B), Clock()
    cache = _cache(issuer, clock, max_age=300, refetch_cooldown=30)
    await cache.refresh()
    issuer.keys = [KEY_B]
    assert _public(await cache.key_for("a", "RS256")) == _public(KEY_A)
    clock.now += 301
    assert _public(await cache.key_for("a", "RS256")) == _public(KEY_A)  # served while the refresh runs
    assert cache.pending_refresh is not None
    await cache.pending_refresh
    assert issuer.calls == 2
    assert await cache.key_for("a", "RS256") is None  # (one more fetch: a kid it no longer knows)
    assert _public(await cache.key_for("b", "RS256")) == _public(KEY_B)
    assert issuer.calls == 3


async def test_the_last_good_set_survives_an_outage() -> None:
    issuer, clock = Issuer(KEY_A), Clock()
    cache = _cache(issuer, clock, max_age=300)
    await cache.refresh()
    issuer.down = True
    clock.now += 1000
    assert _public(await cache.key_for("a", "RS256")) == _public(KEY_A)
    assert cache.pending_refresh is not None
    await cache.pending_refresh
    assert issuer.calls == 2
    assert _public(await cache.key_for("a", "RS256")) == _public(KEY_A)
    with pytest.raises(DiscoveryError):
        await cache.refresh()
    assert _public(await cache.key_for("a", "RS256")) == _public(KEY_A)


async def test_a_key_is_only_used_with_an_algorithm_of_its_type() -> None:
    issuer, clock = Issuer(KEY_A, EC), Clock()
    cache = _cache(issuer, clock)
    await cache.refresh()
    assert await cache.key_for("a", "ES256") is None
    assert await cache.key_for("ec", "RS256") is None
    assert _public(await cache.key_for("ec", "ES256")) == _public(EC)
    assert await cache.key_for("a", "PS256") is None  # the key declares alg RS256


def test_unusable_jwks_entries_are_skipped_not_fatal() -> None:
    good = KEY_A.as_dict(private=False)
    keys = parse_jwks(
        {
            "keys": [
                {"kty": "oct", "k": "c2VjcmV0", "kid": "hmac"},
                {"kty": "RSA", "kid": "broken", "n": "!!", "e": "AQAB"},
                {**good, "kid": "enc", "use": "enc"},
                "not an object",
                good,
            ]
        }
    )
    assert set(keys.by_kid) == {"a"}


def test_a_jwks_without_keys_is_an_error() -> None:
    with pytest.raises(DiscoveryError):
        parse_jwks({"nothing": []})


def test_metadata_urls_follow_each_standard() -> None:
    assert metadata_url("https://id.example", "oidc") == "https://id.example/.well-known/openid-configuration"
    assert (
        metadata_url("https://id.example/t/1", "oidc")
        == "https://id.example/t/1/.well-known/openid-configuration"
    )
    assert (
        metadata_url("https://id.example", "oauth")
        == "https://id.example/.well-known/oauth-authorization-server"
    )
    assert (
        metadata_url("https://id.example/t/1", "oauth")
        == "https://id.example/.well-known/oauth-authorization-server/t/1"
    )


async def test_discovered_jwks_uri_must_be_https() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, json={"issuer": "https://id.example", "jwks_uri": "http://id.example/jwks"}
        )

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as http:
        with pytest.raises(DiscoveryError, match="must be https"):
            await jwks_uri_for(http, "https://id.example", "oidc")


async def test_manual_discovery_refuses_a_cross_origin_jwks_uri() -> None:
    async with httpx2.AsyncClient() as http:
        with pytest.raises(DiscoveryError, match="origin"):
            await jwks_uri_for(http, "https://id.example", "manual", jwks_uri="https://id.example:8443/jwks")
        assert (
            await jwks_uri_for(http, "https://id.example", "manual", jwks_uri="https://id.example:443/keys")
            == "https://id.example:443/keys"
        )


@pytest.mark.parametrize("body", [b"not json", b"[1]", b'{"issuer": "https://id.example"}'])
async def test_broken_metadata_is_a_discovery_error(body: bytes) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body)

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as http:
        with pytest.raises(DiscoveryError):
            await jwks_uri_for(http, "https://id.example", "oidc")


async def test_a_stale_set_without_the_needed_key_is_refreshed_before_answering() -> None:
    issuer, clock = Issuer(KEY_A), Clock()
    cache = _cache(issuer, clock, max_age=300)
    await cache.refresh()
    issuer.keys = [KEY_A, KEY_B]
    clock.now += 301
    assert _public(await cache.key_for("b", "RS256")) == _public(KEY_B)
    assert issuer.calls == 2
    await cache.close()


def test_a_duplicated_kid_serves_only_the_algorithm_each_key_fits() -> None:
    ec = generate_key("ES256", "shared").as_dict(private=False)
    rsa = generate_key("RS256", "shared").as_dict(private=False)
    keys = parse_jwks({"keys": [ec, rsa]})
    assert _public(keys.find("shared", "RS256")) == rsa
    assert _public(keys.find("shared", "ES256")) == ec
    assert keys.find("shared", "ES384") is None
    assert len(keys) == 2


def test_keys_without_use_or_alg_are_usable_for_their_own_key_type_only() -> None:
    bare = {k: v for k, v in KEY_A.as_dict(private=False).items() if k not in ("use", "alg")}
    keys = parse_jwks({"keys": [bare]})
    assert _public(keys.find("a", "RS256")) == bare
    assert _public(keys.find("a", "PS256")) == bare  # nothing narrows an RSA key to one RSA algorithm
    assert keys.find("a", "ES256") is None


def test_symmetric_and_private_members_never_become_verification_keys() -> None:
    private = KEY_A.as_dict(private=True)
    keys = parse_jwks({"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "a", "alg": "HS256"}, private]})
    key = keys.find("a", "RS256")
    assert key is not None
    assert not key.is_private
    assert _public(key) == KEY_A.as_dict(private=False)
    assert len(keys) == 1


def _serve(handler: Any) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler))


async def test_a_jwks_endpoint_redirecting_elsewhere_is_not_followed() -> None:
    fetched: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        fetched.append(str(request.url))
        if request.url.host == "id.example":
            return httpx2.Response(302, headers={"Location": "https://evil.example/jwks"})
        return httpx2.Response(200, json={"keys": [KEY_A.as_dict(private=False)]})

    async with _serve(handler) as http:
        cache = JwksCache("https://id.example/jwks", http)
        with pytest.raises(DiscoveryError, match="redirect"):
            await cache.refresh()
    assert fetched == ["https://id.example/jwks"]
    assert len(cache.keys) == 0


async def test_a_metadata_document_redirecting_elsewhere_is_not_followed() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        assert request.url.host == "id.example", "a redirect was followed"
        return httpx2.Response(
            301, headers={"Location": "https://evil.example/.well-known/openid-configuration"}
        )

    async with _serve(handler) as http:
        with pytest.raises(DiscoveryError, match="redirect"):
            await jwks_uri_for(http, "https://id.example", "oidc")


async def test_an_html_answer_is_not_a_key_set() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, content=b"<html><body>Sign in</body></html>", headers={"Content-Type": "text/html"}
        )

    async with _serve(handler) as http:
        with pytest.raises(DiscoveryError, match="JSON"):
            await JwksCache("https://id.example/jwks", http).refresh()


async def test_a_huge_answer_is_refused_without_being_read_to_the_end() -> None:
    produced: list[int] = []

    async def endless() -> Any:
        while True:
            produced.append(64 * 1024)
            yield b" " * (64 * 1024)

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=endless())

    async with _serve(handler) as http:
        with pytest.raises(DiscoveryError, match="more than"):
            await JwksCache("https://id.example/jwks", http).refresh()
    assert sum(produced) <= MAX_METADATA_BYTES + 64 * 1024


async def test_a_declared_length_over_the_limit_is_refused_before_reading() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=b"{}", headers={"Content-Length": str(MAX_METADATA_BYTES + 1)})

    async with _serve(handler) as http:
        with pytest.raises(DiscoveryError, match="more than"):
            await JwksCache("https://id.example/jwks", http).refresh()


async def test_metadata_for_another_issuer_is_refused_even_with_a_trailing_slash() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, json={"issuer": "https://id.example/", "jwks_uri": "https://id.example/jwks"}
        )

    async with _serve(handler) as http:
        with pytest.raises(DiscoveryError, match="must match exactly"):
            await jwks_uri_for(http, "https://id.example", "oidc")
