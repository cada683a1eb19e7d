"""``auth.jwt.dpop`` in ``jwt_only``: DPoP-bound tokens need their key's proof; bearer rules stay;
each proof is taken once in the ``auth.backend`` store that DPoP opens."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from auth_jwt.conftest import bearer, echo_sockets, jwt_only, serving
from auth_jwt.settings import auth_settings, jwt_settings, revocation
from backends import StoreBackend

from fw.auth.modes.jwt_only import JwtOnly
from fw.auth.stores.rdb import RdbStore
from fw.errors import StartupError
from fw.rdb.migrate import upgrade
from fw.testing.issuer import LocalIssuer

from .support import DpopClient

ME = "http://testserver/api/me"


def dpop(token: str, proof: str) -> dict[str, str]:
    return {"Authorization": f"DPoP {token}", "DPoP": proof}


def bound_token(issuer: LocalIssuer, client: DpopClient, **claims: Any) -> str:
    return issuer.mint(claims={"cnf": {"jkt": client.jkt}, **claims})


def settings(issuer: LocalIssuer, mode: str = "allowed", **jwt: Any) -> Any:
    return auth_settings(jwt_settings(issuer.url, dpop=mode, **jwt))


def challenge(response: httpx2.Response) -> str:
    return response.headers.get("www-authenticate", "")


async def test_a_bound_token_with_a_proof_of_its_key_is_accepted(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    client = DpopClient()
    token = bound_token(issuer, client)
    async with serving(settings(issuer), sqlite_store) as (http, _):
        response = await http.get("/api/me", headers=dpop(token, client.proof("GET", ME, token)))
    assert response.status_code == 200, response.text
    assert response.json()["claims"]["cnf"] == {"jkt": client.jkt}
    assert response.json()["method"] == "bearer"


async def test_a_proof_signed_by_another_key_is_refused_as_invalid_dpop_proof(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    owner, thief = DpopClient(), DpopClient()
    token = bound_token(issuer, owner)
    async with serving(settings(issuer), sqlite_store) as (http, _):
        response = await http.get("/api/me", headers=dpop(token, thief.proof("GET", ME, token)))
    assert response.status_code == 401
    assert challenge(response).startswith('DPoP error="invalid_dpop_proof"')


async def test_a_bound_token_presented_as_bearer_is_refused(issuer: LocalIssuer, sqlite_store: str) -> None:
    client = DpopClient()
    token = bound_token(issuer, client)
    async with serving(settings(issuer), sqlite_store) as (http, _):
        response = await http.get(
            "/api/me", headers={**bearer(token), "DPoP": client.proof("GET", ME, token)}
        )
    assert response.status_code == 401
    assert 'error="invalid_token"' in challenge(response)


async def test_a_replayed_proof_is_refused(issuer: LocalIssuer, sqlite_store: str) -> None:
    client = DpopClient()
    token = bound_token(issuer, client)
    proof = client.proof("GET", ME, token)
    async with serving(settings(issuer), sqlite_store) as (http, _):
        assert (await http.get("/api/me", headers=dpop(token, proof))).status_code == 200
        replay = await http.get("/api/me", headers=dpop(token, proof))
    assert replay.status_code == 401
    assert 'error="invalid_dpop_proof"' in challenge(replay)


# The two-process twin of the test above, kept apart so each replay has its own name.
async def test_a_proof_replayed_against_another_process_sharing_the_store_is_refused(
    issuer: LocalIssuer, store: StoreBackend
) -> None:
    # Neither revocation nor the registered admission: DPoP alone opens the store.
    client = DpopClient()
    token = bound_token(issuer, client)
    proof = client.proof("GET", ME, token)
    shared = settings(issuer)
    async with serving(shared, store) as (first, _), serving(shared, store) as (second, _):
        assert (await first.get("/api/me", headers=dpop(token, proof))).status_code == 200
        replay = await second.get("/api/me", headers=dpop(token, proof))
    assert replay.status_code == 401
    assert 'error="invalid_dpop_proof"' in challenge(replay)


async def test_dpop_refuses_to_start_without_the_store_of_its_replay_record(
    issuer: LocalIssuer, tmp_path: Path
) -> None:
    empty = f"sqlite:///{tmp_path / 'never-migrated.sqlite3'}"
    with pytest.raises(StartupError) as refused:
        async with serving(settings(issuer), empty):
            pass
    assert refused.value.key == "middleware.rdb.dsn"
    assert "fw migrate" in str(refused.value)
    async with serving(settings(issuer, "off"), empty) as (http, _):  # without DPoP, no store
        assert (await http.get("/api/me", headers=bearer(issuer.mint()))).status_code == 200


# Alike in shape to _broken (auth_jwt/test_revocation.py): each swaps a different store of the extension.
@contextlib.asynccontextmanager
async def unreachable_replay_record(extension: JwtOnly) -> AsyncIterator[None]:
    """The gate's replay record moved to a database nobody listens for (a closed loopback port)."""
    gate = extension.running.dpop if extension.running is not None else None
    assert gate is not None and gate.shared is not None, "DPoP keeps no shared replay record"
    broken = RdbStore.open("postgresql://fw@127.0.0.1:9/unreachable")
    working, gate.shared = gate.shared, broken.ceremonies
    try:
        yield
    finally:
        gate.shared = working
        await broken.close()


async def test_a_dpop_request_is_503_while_the_replay_record_cannot_answer(
    issuer: LocalIssuer, rdb_store: str
) -> None:
    client = DpopClient()
    token = bound_token(issuer, client)
    async with serving(settings(issuer), rdb_store) as (http, extension):
        async with unreachable_replay_record(extension):
            refused = await http.get("/api/me", headers=dpop(token, client.proof("GET", ME, token)))
            plain = await http.get("/api/me", headers=bearer(issuer.mint()))  # touches no store
        recovered = await http.get("/api/me", headers=dpop(token, client.proof("GET", ME, token)))
    assert refused.status_code == 503
    assert refused.json()["code"] == "unavailable"
    assert "www-authenticate" not in refused.headers
    assert plain.status_code == 200
    assert recovered.status_code == 200


@pytest.mark.parametrize(
    ("case", "make"),
    [
        ("no proof", lambda c, t: {"Authorization": f"DPoP {t}"}),
        (
            "two proofs",
            lambda c, t: [
                ("Authorization", f"DPoP {t}"),
                ("DPoP", c.proof("GET", ME, t)),
                ("DPoP", c.proof("GET", ME, t)),
            ],
        ),
        ("another method", lambda c, t: dpop(t, c.proof("POST", ME, t))),
        ("another URL", lambda c, t: dpop(t, c.proof("GET", "http://testserver/api/other", t))),
        ("no ath", lambda c, t: dpop(t, c.proof("GET", ME))),
        ("an ath of another token", lambda c, t: dpop(t, c.proof("GET", ME, "another-token"))),
        ("a proof that is not a JWT", lambda c, t: dpop(t, "not-a-proof")),
    ],
)
async def test_a_request_without_one_matching_proof_is_refused(
    issuer: LocalIssuer, sqlite_store: str, case: str, make: Any
) -> None:
    client = DpopClient()
    token = bound_token(issuer, client)
    async with serving(settings(issuer), sqlite_store) as (http, _):
        response = await http.get("/api/me", headers=make(client, token))
    assert response.status_code == 401, case
    assert challenge(response).startswith('DPoP error="invalid_dpop_proof"'), case


async def test_a_dpop_presentation_of_an_unbound_token_is_invalid_token(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    client = DpopClient()
    token = issuer.mint()
    async with serving(settings(issuer), sqlite_store) as (http, _):
        response = await http.get("/api/me", headers=dpop(token, client.proof("GET", ME, token)))
    assert response.status_code == 401
    assert challenge(response).startswith('DPoP error="invalid_token"')


async def test_a_forged_token_with_a_valid_proof_is_invalid_token(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    client = DpopClient()
    token = bound_token(issuer, client, aud="another-api")
    async with serving(settings(issuer), sqlite_store) as (http, _):
        response = await http.get("/api/me", headers=dpop(token, client.proof("GET", ME, token)))
    assert response.status_code == 401
    assert challenge(response).startswith('DPoP error="invalid_token"')


async def test_allowed_still_accepts_an_unbound_bearer_token_and_challenges_with_both(
    issuer: LocalIssuer,
    sqlite_store: str,
) -> None:
    async with serving(settings(issuer), sqlite_store) as (http, _):
        accepted = await http.get("/api/me", headers=bearer(issuer.mint()))
        anonymous = await http.get("/api/me")
    assert accepted.status_code == 200
    assert anonymous.status_code == 401
    assert challenge(anonymous).startswith("Bearer, DPoP algs=")


async def test_required_refuses_bearer_tokens_and_challenges_with_dpop_only(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    client = DpopClient()
    token = bound_token(issuer, client)
    async with serving(settings(issuer, "required"), sqlite_store) as (http, _):
        as_bearer = await http.get("/api/me", headers=bearer(issuer.mint()))
        anonymous = await http.get("/api/me")
        public = await http.get("/public")
        with_proof = await http.get("/api/me", headers=dpop(token, client.proof("GET", ME, token)))
    assert as_bearer.status_code == 401 and challenge(as_bearer).startswith('DPoP error="invalid_token"')
    assert anonymous.status_code == 401 and challenge(anonymous).startswith("DPoP algs=")
    assert public.status_code == 200 and public.json()["account_id"] is None
    assert with_proof.status_code == 200


async def test_off_leaves_dpop_requests_anonymous_as_before(issuer: LocalIssuer, sqlite_store: str) -> None:
    client = DpopClient()
    token = bound_token(issuer, client)
    async with serving(settings(issuer, "off"), sqlite_store) as (http, _):
        response = await http.get("/api/me", headers=dpop(token, client.proof("GET", ME, token)))
    assert response.status_code == 401
    assert challenge(response) == "Bearer"


async def test_with_nonces_a_proof_without_one_gets_use_dpop_nonce_and_the_retry_passes(
    issuer: LocalIssuer,
    sqlite_store: str,
) -> None:
    client = DpopClient()
    token = bound_token(issuer, client)
    async with serving(settings(issuer, dpop_nonce=True), sqlite_store) as (http, _):
        first = await http.get("/api/me", headers=dpop(token, client.proof("GET", ME, token)))
        assert first.status_code == 401
        assert challenge(first).startswith('DPoP error="use_dpop_nonce"')
        nonce = first.headers["dpop-nonce"]
        retry = await http.get("/api/me", headers=dpop(token, client.proof("GET", ME, token, nonce=nonce)))
    assert retry.status_code == 200, retry.text
    assert retry.headers["dpop-nonce"]


async def test_a_revoked_bound_token_is_refused_even_with_a_good_proof(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    import fw.auth

    client = DpopClient()
    jti = uuid.uuid4().hex
    token = bound_token(issuer, client, jti=jti)
    async with serving(settings(issuer, revocation=revocation("token")), sqlite_store) as (http, _):
        await fw.auth.revoke_token(issuer.url, jti, "stolen device")
        response = await http.get("/api/me", headers=dpop(token, client.proof("GET", ME, token)))
    assert response.status_code == 401


def test_nonces_without_dpop_are_refused_at_startup(issuer: LocalIssuer) -> None:
    from fw.auth.modes.jwt_only.settings import check_jwt

    with pytest.raises(StartupError) as refused:
        check_jwt(jwt_settings(issuer.url, dpop="off", dpop_nonce=True))
    assert refused.value.key == "auth.jwt.dpop_nonce"


def test_a_websocket_handshake_is_proven_as_the_http_get_it_starts_as(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    from starlette.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

    extension = jwt_only(settings(issuer, "required"), sqlite_store)
    app = echo_sockets(extension, "/api/ws")
    client = DpopClient()
    token = bound_token(issuer, client)
    with TestClient(app) as http:
        proven = dpop(token, client.proof("GET", "http://testserver/api/ws", token))
        with http.websocket_connect("/api/ws", headers=proven) as socket:
            assert socket.receive_text() == "hello"
        unproven = dpop(token, client.proof("GET", "http://testserver/api/other", token))
        with (
            pytest.raises(WebSocketDisconnect) as closed,
            http.websocket_connect("/api/ws", headers=unproven),
        ):
            pass
    assert closed.value.code == 1008


async def test_processes_sharing_a_store_accept_each_others_nonces(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    client = DpopClient()
    token = bound_token(issuer, client)
    shared = settings(issuer, dpop_nonce=True)
    async with serving(shared, sqlite_store) as (first, _), serving(shared, sqlite_store) as (second, _):
        asked = await first.get("/api/me", headers=dpop(token, client.proof("GET", ME, token)))
        nonce = asked.headers["dpop-nonce"]
        answered = await second.get(
            "/api/me", headers=dpop(token, client.proof("GET", ME, token, nonce=nonce))
        )
    assert answered.status_code == 200, answered.text


async def test_processes_on_separate_stores_have_nonces_of_their_own(
    issuer: LocalIssuer, sqlite_store: str, tmp_path: Path
) -> None:
    elsewhere_store = f"sqlite:///{tmp_path / 'elsewhere.sqlite3'}"
    await upgrade(elsewhere_store)
    client = DpopClient()
    token = bound_token(issuer, client)
    async with (
        serving(settings(issuer, dpop_nonce=True), sqlite_store) as (first, _),
        serving(settings(issuer, dpop_nonce=True), elsewhere_store) as (second, _),
    ):
        nonce = (await first.get("/api/me", headers=dpop(token, client.proof("GET", ME, token)))).headers[
            "dpop-nonce"
        ]
        elsewhere = await second.get(
            "/api/me", headers=dpop(token, client.proof("GET", ME, token, nonce=nonce))
        )
    assert elsewhere.status_code == 401
    assert 'error="use_dpop_nonce"' in challenge(elsewhere)
