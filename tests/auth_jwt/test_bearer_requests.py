"""jwt_only end to end: a local issuer on loopback, the extension's middleware, a small API."""

from __future__ import annotations

import base64
import json
import time
from datetime import timedelta
from pathlib import Path

import pytest

from fw.auth.modes.jwt_only.middleware import _authorization
from fw.auth.tokens.jws import MAX_TOKEN_BYTES
from fw.testing.issuer import LocalIssuer

from .conftest import bearer, echo_sockets, jwt_only, serving
from .settings import auth_settings, jwt_settings


def _b64(data: dict[str, object] | bytes) -> str:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _signed(issuer: LocalIssuer, payload: bytes, **header: object) -> str:
    """A correctly RS256-signed token with exactly these payload bytes and extra header members.

    Signed with ``cryptography`` directly, because a JOSE library refuses to produce most of
    the malformed shapes a verifier must survive.
    """
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    protected = {"alg": "RS256", "kid": issuer.signing_key.kid, "typ": "at+jwt", **header}
    signing_input = f"{_b64(protected)}.{_b64(payload)}".encode()
    private = issuer.signing_key.private_key
    signature = private.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())  # type: ignore[union-attr,call-arg]
    return f"{signing_input.decode()}.{_b64(signature)}"


async def test_a_valid_token_reaches_the_handler_with_the_caller(issuer: LocalIssuer) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        response = await client.get("/api/me", headers=bearer(issuer.mint("alice", scope="read")))
    assert response.status_code == 200
    body = response.json()
    assert body["account_id"] == "alice"
    assert body["claims"]["scope"] == "read"
    assert body["method"] == "bearer"


async def test_an_anonymous_request_on_a_protected_path_gets_401_with_bearer_challenge(
    issuer: LocalIssuer,
) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        response = await client.get("/api/me")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "unauthorized"
    assert "set-cookie" not in response.headers


async def test_unprotected_paths_see_no_caller_when_anonymous(issuer: LocalIssuer) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        response = await client.get("/public")
    assert response.status_code == 200
    assert response.json() == {"account_id": None, "claims": None, "method": None}


async def test_a_presented_token_is_verified_even_on_an_unprotected_path(issuer: LocalIssuer) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        bad = await client.get("/public", headers=bearer(issuer.mint(audience="other")))
        good = await client.get("/public", headers=bearer(issuer.mint("bob")))
    assert bad.status_code == 401
    assert good.json()["account_id"] == "bob"


async def test_another_authorization_scheme_is_anonymous(issuer: LocalIssuer) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        public = await client.get("/public", headers={"Authorization": "Basic dXNlcjpwYXNz"})
        protected = await client.get("/api/me", headers={"Authorization": "Basic dXNlcjpwYXNz"})
    assert public.status_code == 200
    assert public.json()["account_id"] is None
    assert protected.status_code == 401


async def test_exclude_patterns_open_part_of_a_protected_tree(issuer: LocalIssuer) -> None:
    settings = auth_settings(jwt_settings(issuer.url), include=["/api/"], exclude=["/api/open/**"])
    async with serving(settings) as (client, _):
        assert (await client.get("/api/open/page")).status_code == 200
        assert (await client.get("/api/me")).status_code == 401


async def test_every_rejection_looks_the_same(issuer: LocalIssuer) -> None:
    now = time.time()
    other = LocalIssuer()  # a different signing key, never published by this issuer
    header = _b64({"alg": "RS256", "kid": issuer.signing_key.kid, "typ": "at+jwt"})
    claims = {"iss": issuer.url, "sub": "a", "aud": "api", "iat": int(now), "exp": int(now) + 60}
    valid_signature = issuer.mint().split(".")[2]
    public_pem = issuer.signing_key.as_pem(private=False)
    import hashlib
    import hmac

    hs_header = _b64({"alg": "HS256", "typ": "at+jwt"})
    hs_input = f"{hs_header}.{_b64(claims)}".encode()
    hs_signature = base64.urlsafe_b64encode(hmac.new(public_pem, hs_input, hashlib.sha256).digest())
    duplicated = json.dumps(claims)[:-1].encode() + b', "sub": "admin"}'
    rejected = {
        "expired": issuer.mint(issued_at=now - 600, lifetime=timedelta(minutes=5)),
        "wrong issuer": issuer.mint(claims={"iss": "https://evil.example"}),
        "wrong audience": issuer.mint(audience="someone-else"),
        "iat in the future": issuer.mint(issued_at=now + 3600),
        "no sub": issuer.mint(claims={"sub": None}),
        "id token": issuer.mint(token_type="JWT"),
        "no typ": issuer.mint(token_type=None),
        "too long lived": issuer.mint(lifetime=timedelta(hours=2)),
        "unknown kid": issuer.mint(key=other.signing_key, header={"kid": other.signing_key.kid}),
        "kid path trick": issuer.mint(header={"kid": "../../../etc/passwd"}),
        "alg none": f"{_b64({'alg': 'none', 'typ': 'at+jwt'})}.{_b64(claims)}.",
        "alg none with signature": f"{_b64({'alg': 'none'})}.{_b64(claims)}.{valid_signature}",
        "hs256 with the public key": f"{hs_header}.{_b64(claims)}.{hs_signature.rstrip(b'=').decode()}",
        "crit header": _signed(issuer, json.dumps(claims).encode(), crit=["exp"], exp=1),
        "unknown crit header": _signed(issuer, json.dumps(claims).encode(), crit=["x-fw"], **{"x-fw": 1}),
        "nested jwt": _signed(issuer, json.dumps(claims).encode(), cty="JWT"),
        "zip header": _signed(issuer, json.dumps(claims).encode(), zip="DEF"),
        "payload not an object": _signed(issuer, b"[1, 2]"),
        "payload NaN": _signed(issuer, json.dumps(claims)[:-1].encode() + b', "nbf": NaN}'),
        "jwe": "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.a.b.c.d",
        "tampered payload": f"{header}.{_b64({**claims, 'sub': 'admin'})}.{valid_signature}",
        "duplicated claims": _signed(issuer, duplicated),
        "non-numeric exp": issuer.mint(claims={"exp": "tomorrow"}),
        "non-numeric iat": issuer.mint(claims={"iat": "1700000000"}),
        "audience list without ours": issuer.mint(audience=["a", "b"]),
        "control": _signed(issuer, json.dumps(claims).encode()),
        "boolean exp": issuer.mint(claims={"exp": True}),
        "not a jwt": "hello-world",
        "padded signature": _signed(issuer, json.dumps(claims).encode()) + "=" * 2,
        "standard base64 alphabet": _signed(issuer, json.dumps(claims).encode())
        .replace("-", "+")
        .replace("_", "/"),
        "oversized": "a" * 20000 + ".b.c",
        "empty": "",
        "non-ascii": "é.é.é",
        "spaces": "a b",
        "two tokens": f"{issuer.mint()}, {issuer.mint()}",
    }
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        bodies = set()
        control = await client.get("/api/me", headers=bearer(rejected.pop("control")))
        assert control.status_code == 200  # the hand-signed shape itself is acceptable
        for reason, token in rejected.items():
            raw = f"Bearer {token}".encode()
            response = await client.get("/api/me", headers=[(b"authorization", raw)])
            assert response.status_code == 401, reason
            assert response.headers["www-authenticate"] == "Bearer", reason
            bodies.add(response.content)
        anonymous = await client.get("/api/me")
        bodies.add(anonymous.content)
        for raw in (b"Bearer", b"Bearer ", b"bearer \xff\xfe"):
            response = await client.get("/api/me", headers=[(b"authorization", raw)])
            assert response.status_code == 401, raw
            bodies.add(response.content)
        doubled = await client.get(
            "/api/me", headers=[(b"authorization", f"Bearer {issuer.mint()}".encode())] * 2
        )
        assert doubled.status_code == 401
        bodies.add(doubled.content)
    assert len(bodies) == 1


async def test_required_scopes_are_read_from_scope_or_scp(issuer: LocalIssuer) -> None:
    settings = auth_settings(jwt_settings(issuer.url, required_scopes=["orders.read", "orders.write"]))
    async with serving(settings) as (client, _):
        both = issuer.mint(scope="orders.read orders.write profile")
        scp_list = issuer.mint(claims={"scp": ["orders.read", "orders.write"]})
        one = issuer.mint(scope="orders.read")
        assert (await client.get("/api/me", headers=bearer(both))).status_code == 200
        assert (await client.get("/api/me", headers=bearer(scp_list))).status_code == 200
        assert (await client.get("/api/me", headers=bearer(one))).status_code == 401


async def test_token_type_is_compared_case_insensitively_without_the_application_prefix(
    issuer: LocalIssuer,
) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        token = issuer.mint(token_type="application/AT+JWT")
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 200


async def test_a_rotated_key_is_picked_up_without_a_restart(issuer: LocalIssuer) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, extension):
        before = await client.get("/api/me", headers=bearer(issuer.mint()))
        issuer.rotate(keep_previous=False)
        after = await client.get("/api/me", headers=bearer(issuer.mint()))
    assert before.status_code == 200
    assert after.status_code == 200
    assert extension.jwks is not None
    assert extension.jwks.fetches == 2  # the startup fetch and one refetch for the new kid


async def test_a_flood_of_unknown_kids_does_not_hammer_the_issuer(issuer: LocalIssuer) -> None:
    other = LocalIssuer()
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        fetched_at_start = issuer.requests["/jwks.json"]
        for n in range(50):
            token = issuer.mint(key=other.signing_key, header={"kid": f"bogus-{n}"})
            assert (await client.get("/api/me", headers=bearer(token))).status_code == 401
        fetched = issuer.requests["/jwks.json"] - fetched_at_start
    assert fetched == 1


async def test_the_last_good_keys_stay_in_use_while_the_issuer_is_down(issuer: LocalIssuer) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url)), cooldown=0.0) as (client, _):
        issuer.available = False
        token = issuer.mint()
        unknown = issuer.mint(header={"kid": "not-published"})
        assert (await client.get("/api/me", headers=bearer(unknown))).status_code == 401
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 200


async def test_oauth_metadata_discovery_finds_the_keys(issuer: LocalIssuer) -> None:
    settings = auth_settings(jwt_settings(issuer.url, discovery="oauth"))
    async with serving(settings) as (client, _):
        assert (await client.get("/api/me", headers=bearer(issuer.mint()))).status_code == 200
    assert issuer.requests["/.well-known/oauth-authorization-server"] == 1
    assert issuer.requests["/.well-known/openid-configuration"] == 0


async def test_manual_discovery_uses_the_configured_jwks_uri(issuer: LocalIssuer) -> None:
    settings = auth_settings(jwt_settings(issuer.url, discovery="manual", jwks_uri=issuer.jwks_uri))
    async with serving(settings) as (client, _):
        assert (await client.get("/api/me", headers=bearer(issuer.mint()))).status_code == 200
    assert issuer.requests["/.well-known/openid-configuration"] == 0


async def test_an_issuer_under_a_path_is_discovered_with_both_metadata_styles() -> None:
    with LocalIssuer(path="/tenant/a") as issuer:
        for discovery in ("oidc", "oauth"):
            async with serving(auth_settings(jwt_settings(issuer.url, discovery=discovery))) as (client, _):
                assert (await client.get("/api/me", headers=bearer(issuer.mint()))).status_code == 200
        assert issuer.requests["/.well-known/oauth-authorization-server/tenant/a"] == 1


async def test_claim_admission_checks_the_value_at_a_json_pointer(issuer: LocalIssuer) -> None:
    from fw.auth.settings import Claim

    settings = auth_settings(
        jwt_settings(issuer.url, admission="claim", claim=Claim("/org/roles", ["admin", "ops"], "any"))
    )
    async with serving(settings) as (client, _):
        admitted = issuer.mint(claims={"org": {"roles": ["ops"]}})
        refused = issuer.mint(claims={"org": {"roles": ["guest"]}})
        missing = issuer.mint()
        assert (await client.get("/api/me", headers=bearer(admitted))).status_code == 200
        assert (await client.get("/api/me", headers=bearer(refused))).status_code == 401
        assert (await client.get("/api/me", headers=bearer(missing))).status_code == 401


async def test_another_identity_claim_becomes_the_account_id(issuer: LocalIssuer) -> None:
    settings = auth_settings(jwt_settings(issuer.url, identity_claim="client_id"))
    async with serving(settings) as (client, _):
        response = await client.get("/api/me", headers=bearer(issuer.mint("someone")))
    assert response.json()["account_id"] == "fw-local-issuer"


def test_an_anonymous_websocket_on_a_protected_path_is_closed(issuer: LocalIssuer) -> None:
    from starlette.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

    extension = jwt_only(auth_settings(jwt_settings(issuer.url)), "sqlite:///unused.sqlite3")
    app = echo_sockets(extension, "/api/ws", "/ws")
    with TestClient(app) as client:
        with client.websocket_connect("/ws") as open_socket:
            assert open_socket.receive_text() == "hello"
        with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/api/ws"):
            pass
    assert closed.value.code == 1008


async def test_admission_authenticated_without_revocation_touches_no_store(
    issuer: LocalIssuer, tmp_path: Path
) -> None:
    database = tmp_path / "never-opened.sqlite3"
    async with serving(auth_settings(jwt_settings(issuer.url)), f"sqlite:///{database}") as (
        client,
        extension,
    ):
        assert (await client.get("/api/me", headers=bearer(issuer.mint()))).status_code == 200
        assert not extension.needs_store
    assert not database.exists()


_LONGEST = "a" * MAX_TOKEN_BYTES


@pytest.mark.parametrize(
    ("header", "reading"),
    [
        (b"Bearer abc.def.ghi", (True, "abc.def.ghi")),
        (b"Bearer  abc.def.ghi", (True, "abc.def.ghi")),
        (b"Bearer\tabc.def.ghi", (True, "abc.def.ghi")),
        (b"Bearer abc.def.ghi ", (True, "abc.def.ghi")),
        (b"bearer abc.def.ghi", (True, "abc.def.ghi")),
        (b"BEARER abc.def.ghi", (True, "abc.def.ghi")),
        (b"Bearer abc def", (True, None)),
        (b"Bearer abc,def", (True, None)),
        (b"Bearer abc\tdef", (True, None)),
        (b"Bearer ", (True, None)),
        (b"Bearer", (True, None)),
        (b"Bearer \xc3\xa9t\xc3\xa9", (True, None)),
        (b"Bearer " + _LONGEST.encode() + b"a", (True, None)),
        (b"Bearer " + _LONGEST.encode(), (True, _LONGEST)),
        (b"Basic dXNlcjpwYXNz", (False, None)),
        (b"Bearerabc", (False, None)),
    ],
)
def test_the_authorization_header_reads_the_same_in_its_usual_spelling_and_any_other(
    header: bytes, reading: tuple[bool, str | None]
) -> None:
    assert _authorization({"headers": [(b"host", b"x"), (b"authorization", header)]}) == reading


def test_two_authorization_headers_are_a_malformed_bearer() -> None:
    headers = [(b"authorization", b"Bearer a.b.c"), (b"authorization", b"Bearer a.b.c")]
    assert _authorization({"headers": headers}) == (True, None)
