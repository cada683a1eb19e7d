"""Browser login apps configured the way an application is: TOML and environment layers.

Each test states only the keys it changes; :func:`layers` adds the rest of a working
``oidc_only`` setup and :func:`open_browser` builds an App inside :func:`fw.testing.configured`,
so the real ``fw.auth.plugin.extension`` path chooses and composes the mode. Secrets travel through the
environment layer, as they do in a deployment.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
import uuid
from collections.abc import Iterator, Mapping
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from backends import StoreBackend
from joserfc import jwt
from joserfc.jwk import RSAKey
from pillars import the_pillar

import fw
from fw.auth.modes.oidc_only import OidcOnly
from fw.auth.oidc.backchannel import BACKCHANNEL_EVENT
from fw.configuration.duration import format_duration
from fw.testing import BrowserClient, TestIdentityProvider, configured

Table = dict[str, Any]


def session_settings(
    backend: str = "rdb", *, secret: str = "", redis_url: str = "", enabled: bool = True
) -> Table:
    """The ``[session]`` table (the keyring secret goes to the environment in :func:`layers`)."""
    table: Table = {"enabled": enabled, "backend": backend}
    if redis_url:
        table["redis_url"] = redis_url
    if secret:
        table["keyring"] = {"secret": secret}
    return table


def layers(
    issuer: str,
    dsn: str | StoreBackend,
    *,
    client_id: str = "app",
    client_secret: str = "s3cret",
    oidc: Mapping[str, Any] | None = None,
    session: Mapping[str, Any] | None = None,
    **auth: Any,
) -> dict[str, Any]:
    """``configured(**layers(...))`` arguments for ``oidc_only`` with these changes.

    Values may be dataclass instances (``fw.auth.settings.Claim``, ``Protection``...): they are
    written as the tables they stand for. ``dsn`` is the relational store, or an engine under test
    (:class:`~backends.StoreBackend`) that then keeps the auth records and, unless ``session`` says
    otherwise, the sessions.
    """
    oidc_table: Table = {"issuer": issuer, "client_id": client_id, "allow_loopback_http": True}
    oidc_table.update(_plain(oidc or {}))
    env = {"AUTH_OIDC_CLIENT_SECRET": str(oidc_table.pop("client_secret", client_secret))}
    store = dsn if isinstance(dsn, StoreBackend) else None
    if session is None:
        session = session_settings(store.session_backend if store is not None else "rdb")
    session_table = _plain(session)
    keyring = session_table.pop("keyring", {})
    if "secret" in keyring:
        env["SESSION_KEYRING_SECRET"] = keyring["secret"]
    auth_table: Table = {
        "enabled": True,
        "backend": store.name if store is not None else "rdb",
        "mode": "oidc_only",
        "protection": {"include": ["/private/"]},
        **_plain(auth),
        "oidc": oidc_table,
    }
    middleware = store.tables() if store is not None else {"rdb": {"dsn": dsn}}
    tables = {"auth": auth_table, "session": session_table, "middleware": middleware}
    return {"toml": to_toml(tables), "env": env}


def _plain(values: Mapping[str, Any]) -> Table:
    return {
        key: dataclasses.asdict(value) if dataclasses.is_dataclass(value) else value
        for key, value in values.items()
    }


def to_toml(tables: Mapping[str, Any], prefix: str = "") -> str:
    """Nested mappings as ``[table]`` sections; ``$`` doubled so nothing is expanded."""
    scalars = {key: value for key, value in tables.items() if not isinstance(value, Mapping)}
    nested = {key: value for key, value in tables.items() if isinstance(value, Mapping)}
    text = f"[{prefix}]\n" if prefix and scalars else ""
    text += "".join(f"{key} = {_value(value)}\n" for key, value in scalars.items())
    for key, value in nested.items():
        text += to_toml(value, f"{prefix}.{key}" if prefix else key)
    return text


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, timedelta):
        return json.dumps(format_duration(value))
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    return json.dumps(str(value).replace("$", "$$"))


def make_app() -> fw.App:
    """An App with a public page, a protected page and a page showing the signed-in user."""
    app = fw.App()

    @app.route("GET /")
    async def home(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        return fw.JSONResponse({"page": "home", "user": user.account_id if user else None})

    @app.route("GET /me")
    async def me(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        if user is None:
            return fw.JSONResponse({"signed_in": False})
        return fw.JSONResponse(
            {
                "signed_in": True,
                "account_id": user.account_id,
                "display_name": user.display_name,
                "email": user.email,
                "issuer": user.issuer,
                "key": user.key,
            }
        )

    @app.route("GET /who")
    async def who(request: fw.Request) -> fw.Response:
        result = fw.request_authentication(request)
        if result is None:
            return fw.JSONResponse({"method": None})
        return fw.JSONResponse(
            {
                "method": result.method,
                "account_id": result.account_id,
                "issuer": result.issuer,
                "subject": result.subject,
                "principal_is_user": result.principal == fw.auth.user(request),
            }
        )

    @app.route("GET /private/{rest...}")
    async def private(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        return fw.JSONResponse({"page": request.url.path, "user": user.account_id if user else None})

    return app


def login_extension(app: fw.App) -> OidcOnly:
    """The browser login pillar the configuration composed into ``app``."""
    extension = the_pillar(app)
    assert isinstance(extension, OidcOnly), f"auth did not compose oidc_only: {extension!r}"
    return extension


def with_query(url: str, **changes: str | None) -> str:
    """``url`` with these query parameters set, or removed where ``None``."""
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    for key, value in changes.items():
        if value is None:
            query.pop(key, None)
        else:
            query[key] = value
    return urlunsplit(parts._replace(query=urlencode(query)))


def provider_layers(
    provider: TestIdentityProvider | str, dsn: str | StoreBackend, **changes: Any
) -> dict[str, Any]:
    """:func:`layers` for this provider: a running one lends its client ID and secret, an issuer URL none."""
    if isinstance(provider, TestIdentityProvider):
        changes.setdefault("client_id", provider.client_id)
        changes.setdefault("client_secret", provider.client_secret)
        return layers(provider.issuer, dsn, **changes)
    return layers(provider, dsn, **changes)


@contextlib.contextmanager
def open_browser(
    provider: TestIdentityProvider | str,
    dsn: str | StoreBackend,
    *,
    base_url: str = "http://localhost:8000",
    **changes: Any,
) -> Iterator[tuple[BrowserClient, OidcOnly]]:
    """A browser-like client on an App configured with :func:`layers` (lifespan on)."""
    with configured(**provider_layers(provider, dsn, **changes)):
        app = make_app()
        with BrowserClient(app, provider, base_url=base_url) as client:
            yield client, login_extension(app)


def logout_claims(idp: TestIdentityProvider) -> dict[str, Any]:
    """The claims of a valid logout token for ``alice`` from ``idp``, good for two minutes."""
    now = int(time.time())
    return {
        "iss": idp.issuer,
        "aud": idp.client_id,
        "iat": now,
        "exp": now + 120,
        "jti": uuid.uuid4().hex,
        "sub": "alice",
        "events": {BACKCHANNEL_EVENT: {}},
    }


def logout_token(
    idp: TestIdentityProvider,
    *,
    claims: dict[str, Any] | None = None,
    header: dict[str, Any] | None = None,
    key: RSAKey | None = None,
) -> str:
    """A logout token for ``alice`` from ``idp``; ``claims``/``header`` entries ``None`` are removed."""
    signing = key or idp.running.provider.key
    body = {**logout_claims(idp), **(claims or {})}
    head: dict[str, Any] = {"alg": "RS256", "kid": signing.kid, "typ": "logout+jwt"}
    head.update(header or {})
    body = {k: v for k, v in body.items() if v is not None}
    head = {k: v for k, v in head.items() if v is not None}
    return jwt.encode(head, body, signing, algorithms=[str(head["alg"])])
