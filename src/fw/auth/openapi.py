"""What authentication declares in the App's OpenAPI document: its scheme and what it protects.

The scheme follows the configuration: ``jwt_only`` is HTTP bearer with ``bearerFormat: JWT``
(``auth.jwt.dpop = required``: the DPoP scheme; ``allowed``: either), a browser mode is the
session cookie under the name the App sets (``__Host-fw_session`` outside development, see
:mod:`fw.auth.browser.cookies`). It applies to exactly the paths ``auth.protection`` protects (``include``
minus ``exclude``, the same :class:`~fw.auth.protection.Protection` the middleware asks), with
the answers a protected operation can give besides its own: 401 (or the 303 to login), and 503
when a store behind the check cannot answer. The facade registers :func:`security` with
:func:`fw.extension.register_openapi_security`, so the modes need not know about documents.
"""

from __future__ import annotations

from fw.auth.browser.cookies import CookiePolicy
from fw.auth.modes.jwt_only.settings import store_records
from fw.auth.modes.registry import find_mode
from fw.auth.protection import PatternError, Protection
from fw.auth.settings import AuthSettings, JwtSettings
from fw.configuration import bound
from fw.extension import OpenApiSecurity

BEARER = "bearerAuth"
DPOP = "dpopAuth"
SESSION = "sessionCookie"


def _bearer_schemes(jwt: JwtSettings) -> tuple[dict[str, dict[str, str]], list[dict[str, list[str]]]]:
    bearer = {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": f"An access token issued by {jwt.issuer or 'auth.jwt.issuer'}",
    }
    dpop = {  # OpenAPI allows bearerFormat with the bearer scheme only
        "type": "http",
        "scheme": "DPoP",
        "description": "A DPoP-bound JWT access token (RFC 9449) with a DPoP proof header signed by its key",
    }
    if jwt.dpop == "required":
        return {DPOP: dpop}, [{DPOP: []}]
    if jwt.dpop == "allowed":
        return {BEARER: bearer, DPOP: dpop}, [{BEARER: []}, {DPOP: []}]
    return {BEARER: bearer}, [{BEARER: []}]


def describe(auth: AuthSettings, *, browser: bool, app_env: str = "dev") -> OpenApiSecurity:
    """The security the configured mode applies, and to which paths."""
    protection = Protection.from_patterns(auth.protection.include, auth.protection.exclude)
    if browser:
        schemes = {
            SESSION: {
                "type": "apiKey",
                "in": "cookie",
                "name": CookiePolicy.of(app_env, auth).session,
                "description": f"The browser session started at {auth.login_path}",
            }
        }
        return OpenApiSecurity(
            schemes, [{SESSION: []}], protection.requires_auth, lambda method: _browser_answers(auth, method)
        )
    jwt = auth.jwt
    schemes, requirement = _bearer_schemes(jwt)
    answers = {"401": "No valid access token" + (" (or DPoP proof)" if jwt.dpop != "off" else "")}
    if store_records(jwt):  # the checks that read the auth.backend store, and only those
        answers["503"] = "The auth store cannot answer"
    return OpenApiSecurity(schemes, requirement, protection.requires_auth, lambda method: answers)


def _browser_answers(auth: AuthSettings, method: str) -> dict[str, str]:
    """A protected operation without a session: 401, or the redirect to login (302 for GET and
    HEAD, 303 otherwise, as the browser middleware answers); 503 when a store cannot answer."""
    if auth.protection.unauthenticated == "unauthorized":
        refusal = {"401": "No signed-in session"}
    else:
        status = "302" if method in ("get", "head") else "303"
        refusal = {status: f"No signed-in session: redirected to {auth.login_path}?next=..."}
    return {**refusal, "503": "The session or account store cannot answer"}


def security(app: object) -> OpenApiSecurity | None:
    """The description for the parsed configuration; ``None`` when auth is off or unusable (the
    mode's own extension then refuses to start with the reason)."""
    configuration = bound(app)
    try:
        auth = configuration.config(AuthSettings)
    except LookupError:
        return None
    if not auth.enabled:
        return None
    mode = find_mode(auth.mode)
    if mode is None:
        return None
    try:
        return describe(auth, browser=mode.browser, app_env=configuration.app_env)
    except PatternError:
        return None
