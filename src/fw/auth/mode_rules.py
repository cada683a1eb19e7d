"""Startup rules every mode shares, as one table check over the ``[auth]`` settings.

- each mode reads only its own tables: a key of another mode's table set by any source other
  than its default is refused ("a setting foreign to the chosen mode");
- each mode's required keys are present;
- every path is root-relative without ``//``;
- issuers are https, except a loopback issuer with ``allow_loopback_http = true``.

Protocol-specific checks (discovery, stores, keys) happen later, in the mode's own startup.
The same table knowledge tells the startup summary which tables the chosen mode leaves unread
(:func:`unread_tables`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from fw.auth.admission import admission_problem
from fw.auth.protection import pattern_problem
from fw.auth.revocation import ON_UNAVAILABLE, REVOCATION_MODES
from fw.auth.tokens.algorithms import algorithm_problem
from fw.auth.tokens.discovery import DISCOVERY_MODES
from fw.auth.tokens.urls import is_loopback_host, same_origin, transport_problem
from fw.errors import StartupError
from fw.settings import AuthSettings

#: Where a key's value came from; ``None`` (or ``"default"``) when no source set it.
SourceOf = Callable[[str], "str | None"]

MODES = ("oidc_only", "oidc_passkey", "passkey_only", "oauth_only", "jwt_only")
BROWSER_MODES = frozenset(("oidc_only", "oidc_passkey", "passkey_only", "oauth_only"))

#: Which modes read each mode-specific table (or key) under [auth].
READERS: dict[str, frozenset[str]] = {
    "oidc": frozenset(("oidc_only", "oidc_passkey")),
    "oauth": frozenset(("oauth_only",)),
    "jwt": frozenset(("jwt_only",)),
    "passkey": frozenset(("oidc_passkey", "passkey_only")),
    "bootstrap": frozenset(("passkey_only",)),
    "recovery": frozenset(("oidc_passkey", "passkey_only")),
    "registration": frozenset(("oidc_passkey", "passkey_only")),
    "session": BROWSER_MODES,
    "assurance": BROWSER_MODES,
    "shared_device": frozenset(("oidc_only", "oidc_passkey", "passkey_only")),
}

PATH_KEYS = ("login_path", "callback_path", "logout_path", "post_login_path")


def unread_tables(values: Mapping[str, Any]) -> list[str]:
    """The ``[auth]`` tables (and keys) the configured mode does not read, for the startup summary.

    Nothing is reported while auth is off (``dependon`` already hides ``[auth]``) or the mode is
    unknown (startup refuses it, and every key stays visible to explain why).
    """
    mode = values.get("auth.mode")
    if values.get("auth.enabled") is not True or mode not in MODES:
        return []
    return [f"auth.{table}" for table, readers in READERS.items() if mode not in readers]


def keys_of(value: Any, prefix: str) -> Iterator[str]:
    """Every leaf key under a settings dataclass, as dotted names."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from keys_of(getattr(value, field.name), f"{prefix}.{field.name}")
    else:
        yield prefix


def _is_set(source_of: SourceOf, key: str) -> str | None:
    try:
        source = source_of(key)
    except KeyError:
        return None  # a key no source knows was not set by anyone
    if source is None or source in ("", "default") or source.startswith("default"):
        return None
    return source


def check(auth: AuthSettings, source_of: SourceOf) -> None:
    """Raise :class:`fw.StartupError` for the first rule the settings break."""
    if not auth.enabled:
        return
    mode = auth.mode
    if mode not in MODES:
        raise StartupError("auth.mode", mode, f"use one of {', '.join(MODES)}")
    _foreign(auth, mode, source_of)
    _paths(auth)
    if auth.oidc.provider_logout:
        raise StartupError(
            "auth.oidc.provider_logout",
            True,
            "this key was removed; use auth.oidc.logout_scope (reconfirm or global)",
        )
    if mode in ("oidc_only", "oidc_passkey"):
        _credential(auth.oidc.issuer, "auth.oidc.issuer", mode)
        _credential(auth.oidc.client_id, "auth.oidc.client_id", mode)
        _credential(auth.oidc.client_secret, "auth.oidc.client_secret", mode, secret=True)
        _issuer("auth.oidc", auth.oidc.issuer, auth.oidc.allow_loopback_http)
    if mode == "oidc_passkey":
        _required(auth.recovery.policy, "auth.recovery.policy")
    if mode == "oauth_only":
        _required(auth.oauth.provider, "auth.oauth.provider")
        _credential(auth.oauth.client_id, "auth.oauth.client_id", mode)
        _credential(auth.oauth.client_secret, "auth.oauth.client_secret", mode, secret=True)
    if mode == "jwt_only":
        _jwt(auth)


def _foreign(auth: AuthSettings, mode: str, source_of: SourceOf) -> None:
    for table, readers in READERS.items():
        if mode in readers:
            continue
        for key in keys_of(getattr(auth, table), f"auth.{table}"):
            source = _is_set(source_of, key)
            if source is not None:
                owners = ", ".join(m for m in MODES if m in readers)
                raise StartupError(
                    key,
                    _value_at(auth, key),
                    f"set by {source}, but auth.mode = {mode} does not read it "
                    f"(it belongs to {owners}); remove it",
                )


def _value_at(auth: AuthSettings, key: str) -> Any:
    value: Any = auth
    for part in key.split(".")[1:]:
        value = getattr(value, part, None)
    return value


def _paths(auth: AuthSettings) -> None:
    for name in PATH_KEYS:
        value = getattr(auth, name)
        if not value.startswith("/") or "//" in value:
            raise StartupError(
                f"auth.{name}", value, "use a root-relative path such as /auth/login, without //"
            )
    for name in ("include", "exclude"):
        for pattern in getattr(auth.protection, name):
            problem = pattern_problem(pattern)
            if problem:
                raise StartupError(f"auth.protection.{name}", pattern, f"each pattern {problem}")
    if auth.protection.unauthenticated not in ("redirect", "unauthorized"):
        raise StartupError(
            "auth.protection.unauthenticated", auth.protection.unauthenticated, "use redirect or unauthorized"
        )


def _required(value: object, key: str) -> None:
    if value in ("", None, [], timedelta(0)):
        raise StartupError(key, value, f"{key} is required for this auth.mode; set it")


def env_name(key: str) -> str:
    """The environment variable of a framework key: ``auth.oidc.issuer`` -> ``AUTH_OIDC_ISSUER``."""
    return key.upper().replace(".", "_")


def _credential(value: str, key: str, mode: str, *, secret: bool = False) -> None:
    """A provider credential: usually delivered by the environment, so the fix names the variable."""
    if value:
        return
    table, _, name = key.rpartition(".")
    env = env_name(key)
    if secret:
        fix = (
            f"required for auth.mode = {mode}; set the environment variable {env}, or write "
            f'{name} = "${{NAME}}" under [{table}] in the config file to read it from the variable NAME '
            "(never the secret itself)"
        )
    else:
        fix = (
            f"required for auth.mode = {mode}; set the environment variable {env}, or write {name} under "
            f'[{table}] in the config file (the value, or "${{NAME}}" to read the variable NAME)'
        )
    raise StartupError(key, value, fix)


def _issuer(table: str, issuer: str, allow_loopback_http: bool) -> None:
    problem = transport_problem(issuer, allow_loopback_http=allow_loopback_http)
    if problem:
        raise StartupError(f"{table}.issuer", issuer, f"the issuer {problem}")
    if allow_loopback_http and not is_loopback_host(urlsplit(issuer).hostname):
        raise StartupError(
            f"{table}.allow_loopback_http", True, "only a loopback development issuer may use it; remove it"
        )


def _jwt(auth: AuthSettings) -> None:
    jwt = auth.jwt
    for key, value in (
        ("issuer", jwt.issuer),
        ("audience", jwt.audience),
        ("algorithms", jwt.algorithms),
        ("admission", jwt.admission),
        ("max_token_lifetime", jwt.max_token_lifetime),
        ("revocation.mode", jwt.revocation.mode),
    ):
        _required(value, f"auth.jwt.{key}")
    _issuer("auth.jwt", jwt.issuer, jwt.allow_loopback_http)
    if any(not a for a in jwt.audience):
        raise StartupError("auth.jwt.audience", jwt.audience, "audience entries must not be empty")
    for alg in jwt.algorithms:
        problem = algorithm_problem(alg)
        if problem:
            raise StartupError("auth.jwt.algorithms", alg, problem)
    if jwt.max_token_lifetime < timedelta(0):
        raise StartupError(
            "auth.jwt.max_token_lifetime", jwt.max_token_lifetime, "use a positive duration such as 1h"
        )
    if not jwt.identity_claim:
        raise StartupError(
            "auth.jwt.identity_claim", jwt.identity_claim, "name the claim identifying the caller (sub)"
        )
    for scope in jwt.required_scopes:
        if not scope or scope.split() != [scope]:
            raise StartupError("auth.jwt.required_scopes", scope, "write one scope per entry, without spaces")
    if not jwt.required_token_type.strip():
        raise StartupError(
            "auth.jwt.required_token_type", jwt.required_token_type, "use at+jwt (the default)"
        )
    refused = admission_problem(jwt.admission, jwt.claim.path, jwt.claim.values, jwt.claim.match)
    if refused:
        raise StartupError(f"auth.jwt.{refused[0]}", _value_at(auth, f"auth.jwt.{refused[0]}"), refused[1])
    if jwt.discovery not in DISCOVERY_MODES:
        raise StartupError("auth.jwt.discovery", jwt.discovery, f"use one of {', '.join(DISCOVERY_MODES)}")
    if jwt.discovery == "manual":
        _required(jwt.jwks_uri, "auth.jwt.jwks_uri")
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
    if jwt.revocation.mode not in REVOCATION_MODES:
        raise StartupError(
            "auth.jwt.revocation.mode", jwt.revocation.mode, f"use one of {', '.join(REVOCATION_MODES)}"
        )
    if jwt.revocation.on_unavailable not in ON_UNAVAILABLE:
        raise StartupError(
            "auth.jwt.revocation.on_unavailable",
            jwt.revocation.on_unavailable,
            "use refuse (default) or admit",
        )
    if jwt.revocation.max_propagation_delay < timedelta(0):
        raise StartupError(
            "auth.jwt.revocation.max_propagation_delay",
            jwt.revocation.max_propagation_delay,
            "use 0s or more",
        )

