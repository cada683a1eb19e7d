"""Startup rules every mode shares, and the checks modes apply to their own tables, written once.

Run for every mode by the dispatcher, before the mode's own checks (:func:`check_shared`):

- each mode reads only its own tables: a key of another mode's table set by any source other
  than its default is refused ("a setting foreign to the chosen mode");
- every path is root-relative, without ``//`` or ``\\``; protection patterns are usable;
- removed keys are refused with their replacement;
- outside ``APP_ENV=dev``, a development-only setting (``allow_loopback_http``) is refused
  (:func:`check_development_only`).

Called by each mode on its own table, so the same mistake reads the same in every mode:
required keys, provider credentials (the fix names the environment variable that delivers them),
issuer transport, admission, the identity claim and scope entries.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from fw.auth.admission import AdmissionTable, admission_problem
from fw.auth.modes.base import Mode
from fw.auth.modes.registry import mode_tables, readers, reads
from fw.auth.protection import pattern_problem
from fw.auth.settings import AuthSettings
from fw.auth.stores.select import check_auth_backend
from fw.auth.tokens.urls import is_loopback_host, transport_problem
from fw.configuration.duration import format_duration
from fw.errors import StartupError

#: Where a key's value came from; ``None`` (or ``"default"``) when no source set it.
SourceOf = Callable[[str], "str | None"]

PATH_KEYS = ("login_path", "callback_path", "logout_path", "post_login_path")


def check_shared(auth: AuthSettings, mode: Mode, source_of: SourceOf) -> None:
    """The rules every mode shares; raises :class:`fw.StartupError` for the first one broken."""
    _foreign(auth, mode, source_of)
    _paths(auth)
    check_auth_backend(auth.backend)


#: Settings that exist for local development only: plain http to a loopback issuer, loopback
#: endpoints and a callback URL derived from the request. Each is a bool, off by default.
DEVELOPMENT_ONLY = ("allow_loopback_http",)


def check_development_only(auth: AuthSettings, mode: Mode, app_env: str) -> None:
    """Outside ``APP_ENV=dev`` a development-only setting turned on in a table the mode reads is
    refused: plain http and request-derived callbacks are how a local setup works, never how a
    deployment should (``dev``, the default, is also what tests run as)."""
    if app_env == "dev":
        return
    for table in mode_tables():
        settings = getattr(auth, table, None)
        if settings is None or not reads(mode, table):
            continue
        for key in keys_of(settings, f"auth.{table}"):
            if key.rpartition(".")[2] in DEVELOPMENT_ONLY and value_at(auth, key.partition(".")[2]) is True:
                raise StartupError(
                    key,
                    True,
                    f"plain http on loopback is for development only, and APP_ENV is {app_env}; remove "
                    "it and use https URLs (or run with APP_ENV=dev on a development machine)",
                )


def keys_of(value: Any, prefix: str) -> Iterator[str]:
    """Every leaf key under a settings dataclass, as dotted names."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from keys_of(getattr(value, field.name), f"{prefix}.{field.name}")
    else:
        yield prefix


def value_at(settings: Any, key: str) -> Any:
    """The value of the dotted ``key`` (relative to ``settings``): ``value_at(jwt, "claim.path")``."""
    value = settings
    for part in key.split("."):
        value = getattr(value, part, None)
    return value


def _is_set(source_of: SourceOf, key: str) -> str | None:
    try:
        source = source_of(key)
    except KeyError:
        return None  # a key no source knows was not set by anyone
    if source is None or source in ("", "default") or source.startswith("default"):
        return None
    return source


def _foreign(auth: AuthSettings, mode: Mode, source_of: SourceOf) -> None:
    for table in mode_tables():
        if reads(mode, table):
            continue
        for key in keys_of(getattr(auth, table), f"auth.{table}"):
            source = _is_set(source_of, key)
            if source is not None:
                raise StartupError(
                    key,
                    shown(value_at(auth, key.partition(".")[2])),
                    f"set by {source}, but auth.mode = {mode.name} does not read it "
                    f"(it belongs to {', '.join(readers(table))}); remove it",
                )


def _paths(auth: AuthSettings) -> None:
    for name in PATH_KEYS:
        value = getattr(auth, name)
        if not value.startswith("/") or "//" in value or "\\" in value:
            raise StartupError(
                f"auth.{name}", value, "use a root-relative path such as /auth/login, without // or \\"
            )
    for name in ("include", "exclude"):
        for pattern in getattr(auth.protection, name):
            problem = pattern_problem(pattern)
            if problem:
                raise StartupError(f"auth.protection.{name}", pattern, f"each pattern {problem}")


def shown(value: object) -> object:
    """A value as a refusal names it: a duration as the configuration writes it (``1m30s``)."""
    return format_duration(value) if isinstance(value, timedelta) else value


def check_required(value: object, key: str) -> None:
    """A key the chosen mode cannot work without."""
    if value in ("", None, [], timedelta(0)):
        raise StartupError(key, shown(value), f"{key} is required for this auth.mode; set it")


def env_name(key: str) -> str:
    """The environment variable of a framework key: ``auth.oidc.issuer`` -> ``AUTH_OIDC_ISSUER``."""
    return key.upper().replace(".", "_")


def check_credential(value: str, key: str, mode: str, *, secret: bool = False) -> None:
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


def check_issuer(table: str, url: str, allow_loopback_http: bool) -> None:
    """An issuer is https; http only for a loopback issuer with ``allow_loopback_http = true``."""
    problem = transport_problem(url, allow_loopback_http=allow_loopback_http)
    if problem:
        raise StartupError(f"{table}.issuer", url, f"the issuer {problem}")
    if allow_loopback_http and not is_loopback_host(urlsplit(url).hostname):
        raise StartupError(
            f"{table}.allow_loopback_http", True, "only a loopback development issuer may use it; remove it"
        )


def check_admission(table: str, settings: AdmissionTable, *, auto_provision: bool | None = None) -> None:
    """``admission`` and the keys it needs. ``auto_provision`` is the table's own key in modes that
    create accounts (``None`` where none are created); only their tables offer ``existing``."""
    if settings.admission == "existing":
        if auto_provision:
            raise StartupError(
                f"{table}.auto_provision", True, "admission = existing requires auto_provision = false"
            )
        return
    found = admission_problem(
        settings.admission, settings.claim.path, settings.claim.values, settings.claim.match
    )
    if found:
        key, fix = found
        raise StartupError(f"{table}.{key}", value_at(settings, key), fix)


def check_identity_claim(table: str, claim: str) -> None:
    """The claim that links an identity to its account must be named."""
    if not claim:
        raise StartupError(
            f"{table}.identity_claim",
            claim,
            "name a stable, unique claim identifying the caller, such as sub",
        )


def check_scope_entries(key: str, scopes: Sequence[str]) -> None:
    """A list of scopes holds one scope per entry: ``["profile email"]`` is a mistake, not two scopes."""
    for scope in scopes:
        if not scope or any(ch.isspace() for ch in scope):
            raise StartupError(key, scope, "write one scope per entry, without spaces")
