"""``fw token``: an access token the project's ``fw dev`` server accepts, for curl and API clients.

A bearer-token API (``auth.mode = "jwt_only"``, the api preset) has no sign-in page a developer
could get a token from. ``fw dev`` serves a development token issuer whose port and key stay in
the project's ``.fw/`` (:mod:`fw.devidp.stable`); this command signs a token with that key, for
that issuer's URL, with the audience, token type and scopes the project's configuration
requires, so the server verifies it exactly as it would a real authorization server's. It needs
no running server. It refuses outside ``APP_ENV=dev`` and before ``fw dev`` created the key: a
token signed on a developer's machine must never look like one a deployment accepts.
"""

from __future__ import annotations

import os
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from fw.generate.project import Project

if TYPE_CHECKING:
    from fw.auth.settings import JwtSettings
    from fw.devidp.stable import DevIssuerState

#: A token a developer pastes into curl should outlive a debugging session, not a day.
DEFAULT_TTL = timedelta(minutes=15)
#: The ``client_id`` claim: who asked for the token, as an authorization server says it.
CLIENT_ID = "fw-token"
_OPTIONS = ("--sub", "--scope", "--ttl", "--audience")


class TokenRefused(Exception):
    """Why no token is printed, in one line; ``status`` is the exit status (2: a usage error)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class TokenRequest:
    """What the command line asked for; ``None`` and empty lists: what the configuration expects."""

    sub: str = ""
    scopes: list[str] = field(default_factory=list)
    ttl: timedelta | None = None
    audiences: list[str] = field(default_factory=list)


def parse_token_args(arguments: Sequence[str]) -> TokenRequest:
    """``--sub S``, ``--scope S`` (repeated, or several in one quoted value), ``--ttl 15m``,
    ``--audience A`` (repeated), each also as ``--name=value``."""
    from fw.devidp import DEFAULT_USERS

    request = TokenRequest(sub=DEFAULT_USERS[0].sub)
    words = list(arguments)
    while words:
        word = words.pop(0)
        name, equals, value = word.partition("=")
        if name not in _OPTIONS:
            raise TokenRefused(f"token does not take {word!r} (fw token --help)", 2)
        if not equals:
            if not words or words[0].startswith("--"):
                raise TokenRefused(f"token {name} needs a value (fw token --help)", 2)
            value = words.pop(0)
        if not value.strip():
            raise TokenRefused(f"token {name} needs a value, got an empty one (fw token --help)", 2)
        if name == "--sub":
            request.sub = value
        elif name == "--scope":
            request.scopes.extend(value.split())
        elif name == "--audience":
            request.audiences.append(value)
        else:
            request.ttl = parse_ttl(value)
    return request


def parse_ttl(text: str) -> timedelta:
    """A positive duration in fw's notation (``15m``, ``1h``); anything else is a usage error."""
    from fw.configuration.duration import positive_duration

    ttl = positive_duration(text)
    if ttl is None:
        raise TokenRefused(f'token --ttl needs a positive duration such as 15m, got "{text}"', 2)
    return ttl


def development_only() -> None:
    """Refuse unless ``APP_ENV`` is ``dev`` (or unset, which is ``dev``)."""
    env = os.environ.get("APP_ENV", "") or "dev"
    if env != "dev":
        raise TokenRefused(
            f"fw token signs development tokens only, and APP_ENV is {env!r}: "
            "a deployment's tokens come from its own authorization server"
        )


def expected_jwt(
    project: Project, state: DevIssuerState, import_app: Callable[[Project], object]
) -> JwtSettings:
    """``[auth.jwt]`` as ``fw dev`` reads it: the project's configuration with the variables
    ``fw dev`` injects for this issuer (the other modes' too, so any project's file reads)."""
    from fw import configuration
    from fw.auth.modes.base import DevIssuer
    from fw.auth.modes.registry import offered_dev_environment
    from fw.auth.settings import AuthSettings
    from fw.cli.devserver import DEV_CLIENT_ID, _Injected

    import_app(project)
    injected = _Injected()
    injected.apply(offered_dev_environment(DevIssuer(state.issuer, DEV_CLIENT_ID, "fw-token")))
    try:
        configuration.parse_config([])
        auth = configuration.config(AuthSettings)
    finally:
        injected.withdraw()
    if not auth.enabled or auth.mode != "jwt_only":
        chosen = f"auth.mode = {auth.mode}" if auth.enabled else "auth.enabled = false"
        raise TokenRefused(
            f"fw token is for a bearer-token API (auth.mode = jwt_only); this project has {chosen}"
        )
    return auth.jwt


def refusals(jwt: JwtSettings, request: TokenRequest) -> str | None:
    """Why the server would refuse any token this command can sign, or ``None``.

    The issuer needs no check: ``AUTH_JWT_ISSUER``, set as ``fw dev`` sets it, wins over the file.
    """
    from fw.configuration.duration import format_duration

    if "RS256" not in jwt.algorithms:
        return f"auth.jwt.algorithms is {jwt.algorithms}: the development token issuer signs with RS256"
    if jwt.dpop == "required":
        return (
            "auth.jwt.dpop = required: the server takes DPoP-bound tokens only; fw token prints bearer tokens"
        )
    if request.ttl is not None and request.ttl > jwt.max_token_lifetime:
        return (
            f"token --ttl {format_duration(request.ttl)} is longer than auth.jwt.max_token_lifetime "
            f"({format_duration(jwt.max_token_lifetime)}), so the server would refuse the token"
        )
    return None


def sign(state: DevIssuerState, jwt: JwtSettings, request: TokenRequest) -> str:
    """The access token (RFC 9068 shape): the issuer's key, its URL, the audience and scopes."""
    from joserfc import jwt as jose_jwt

    issued = int(time.time())
    ttl = request.ttl if request.ttl is not None else min(DEFAULT_TTL, jwt.max_token_lifetime)
    audiences = request.audiences or jwt.audience[:1]
    scopes = request.scopes if request.scopes else list(jwt.required_scopes)
    claims: dict[str, Any] = {
        "iss": state.issuer,
        "sub": request.sub,
        "aud": audiences[0] if len(audiences) == 1 else audiences,
        "iat": issued,
        "exp": issued + int(ttl.total_seconds()),
        "jti": secrets.token_urlsafe(12),
        "client_id": CLIENT_ID,
    }
    if jwt.identity_claim != "sub":
        claims[jwt.identity_claim] = request.sub
    if scopes:
        claims["scope"] = " ".join(dict.fromkeys(scopes))
    header = {"alg": "RS256", "kid": state.key.kid, "typ": jwt.required_token_type}
    return jose_jwt.encode(header, claims, state.key, algorithms=["RS256"])


def run_token(project: Project, arguments: Sequence[str], import_app: Callable[[Project], object]) -> int:
    """Print the token on stdout (alone, for ``$(fw token)``); a refusal is one ``fw:`` line."""
    from fw.devidp.stable import DevStateError, load_state

    try:
        request = parse_token_args(arguments)
        development_only()
        try:
            state = load_state(project.root)
        except DevStateError as absent:
            raise TokenRefused(str(absent)) from None
        jwt = expected_jwt(project, state, import_app)
        refused = refusals(jwt, request)
        if refused is not None:
            raise TokenRefused(refused)
    except TokenRefused as refusal:
        sys.stderr.write(f"fw: {refusal}\n")
        return refusal.status
    missing = [scope for scope in jwt.required_scopes if request.scopes and scope not in request.scopes]
    if missing:
        sys.stderr.write(
            f"fw: note: auth.jwt.required_scopes asks for {' '.join(missing)}, which this token "
            "lacks; the server will refuse it\n"
        )
    sys.stdout.write(sign(state, jwt, request) + "\n")
    return 0
