"""What ``jwt_only`` checks in ``[auth.jwt]`` before it starts, and the risks it reports.

The rules every mode shares (identity claim, admission, scope entries, issuer transport)
come from :mod:`fw.auth.modes.rules`; what is here is about bearer tokens only: audiences,
algorithms, lifetimes, key discovery and revocation, and which records the configuration keeps
in the ``auth.backend`` store (:func:`store_records`), which the startup and the OpenAPI
document both follow.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from fw.auth.modes.base import DevEnvironment, DevIssuer
from fw.auth.modes.rules import (
    check_admission,
    check_identity_claim,
    check_issuer,
    check_required,
    check_scope_entries,
    env_name,
    shown,
)
from fw.auth.settings import JwtSettings
from fw.auth.stores.records import RecordKind
from fw.auth.tokens.algorithms import algorithm_problem
from fw.auth.tokens.urls import same_origin, transport_problem
from fw.configuration.advisory import Advisory
from fw.errors import StartupError


def store_records(jwt: JwtSettings) -> tuple[RecordKind, ...]:
    """The records ``[auth.jwt]`` keeps in the ``auth.backend`` store; none: no store is opened.

    Revocation reads its entries, the ``registered`` admission its allow-list, and DPoP takes
    each proof once there (``ceremonies``), so the promise that a proof is used once holds for
    every process sharing the store, with its nonce key (``sessions``) when nonces are on.
    """
    kinds: list[RecordKind] = []
    if jwt.revocation.mode != "off":
        kinds.append("revocations")
    if jwt.admission == "registered":
        kinds.append("allowlist")
    if jwt.dpop != "off":
        kinds.append("ceremonies")
        if jwt.dpop_nonce:
            kinds.append("sessions")
    return tuple(kinds)


def check_jwt(jwt: JwtSettings) -> None:
    """Raise :class:`fw.StartupError` for the first rule ``[auth.jwt]`` breaks."""
    for key, value in (
        ("issuer", jwt.issuer),
        ("audience", jwt.audience),
        ("algorithms", jwt.algorithms),
        ("admission", jwt.admission),
        ("max_token_lifetime", jwt.max_token_lifetime),
        ("revocation.mode", jwt.revocation.mode),
    ):
        check_required(value, f"auth.jwt.{key}")
    check_issuer("auth.jwt", jwt.issuer, jwt.allow_loopback_http)
    if any(not a for a in jwt.audience):
        raise StartupError("auth.jwt.audience", jwt.audience, "audience entries must not be empty")
    for alg in jwt.algorithms:
        problem = algorithm_problem(alg)
        if problem:
            raise StartupError("auth.jwt.algorithms", alg, problem)
    if jwt.max_token_lifetime < timedelta(0):
        raise StartupError(
            "auth.jwt.max_token_lifetime", shown(jwt.max_token_lifetime), "use a positive duration such as 1h"
        )
    check_identity_claim("auth.jwt", jwt.identity_claim)
    check_scope_entries("auth.jwt.required_scopes", jwt.required_scopes)
    if not jwt.required_token_type.strip():
        raise StartupError(
            "auth.jwt.required_token_type", jwt.required_token_type, "use at+jwt (the default)"
        )
    check_admission("auth.jwt", jwt)
    _discovery(jwt)
    _revocation(jwt)
    if jwt.dpop_nonce and jwt.dpop == "off":
        raise StartupError(
            "auth.jwt.dpop_nonce", True, "nonces are for DPoP proofs: set auth.jwt.dpop = allowed or required"
        )
    if jwt.token_cache_size < 0:
        raise StartupError(
            "auth.jwt.token_cache_size",
            jwt.token_cache_size,
            "use 0 (no cache) or a positive number of tokens",
        )


def _discovery(jwt: JwtSettings) -> None:
    if jwt.discovery == "manual":
        check_required(jwt.jwks_uri, "auth.jwt.jwks_uri")
        if not same_origin(jwt.jwks_uri, jwt.issuer):
            raise StartupError(
                "auth.jwt.jwks_uri", jwt.jwks_uri, "must be on the same origin as auth.jwt.issuer"
            )
        problem = transport_problem(jwt.jwks_uri, allow_loopback_http=jwt.allow_loopback_http)
        if problem:
            raise StartupError("auth.jwt.jwks_uri", jwt.jwks_uri, f"the URL {problem}")
    elif jwt.jwks_uri:
        raise StartupError(
            "auth.jwt.jwks_uri", jwt.jwks_uri, "is read only with discovery = manual; remove it"
        )


def _revocation(jwt: JwtSettings) -> None:
    if jwt.revocation.max_propagation_delay < timedelta(0):
        raise StartupError(
            "auth.jwt.revocation.max_propagation_delay",
            shown(jwt.revocation.max_propagation_delay),
            "use 0s or more",
        )


def jwt_dev_environment(issuer: DevIssuer) -> DevEnvironment:
    """``auth.jwt.issuer`` pointing at the development token issuer ``fw dev`` serves.

    Its URL replaces whatever the shell had, as a deployment's issuer would not verify the tokens
    ``fw token`` signs; plain-http loopback is allowed unless the developer decided otherwise. The
    audience is the project's own (a literal in its configuration), so nothing else is injected.
    """
    return DevEnvironment(
        values={env_name("auth.jwt.issuer"): issuer.issuer},
        defaults={env_name("auth.jwt.allow_loopback_http"): "true"},
    )


def jwt_advisories(values: Mapping[str, Any], sources: Mapping[str, str]) -> list[Advisory]:
    """Admitting tokens while the revocation store is down lets revoked tokens through: an error."""
    revocation_on = values.get("auth.jwt.revocation.mode") not in (None, "", "off")
    if not (revocation_on and values.get("auth.jwt.revocation.on_unavailable") == "admit"):
        return []
    source = sources.get("auth.jwt.revocation.on_unavailable", "default")
    return [
        Advisory(
            "error",
            "auth.jwt.revocation.on_unavailable",
            f"auth.jwt.revocation.on_unavailable = 'admit' (from {source}): revoked tokens are "
            "accepted while the revocation store is down; use refuse (503) unless the risk is accepted",
        )
    ]
