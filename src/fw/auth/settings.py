"""Authentication's settings: ``[auth]`` and every table under it (``[auth.oidc]``,
``[auth.oauth]``, ``[auth.jwt]``, ``[auth.passkey]``, ``[auth.assurance]``...).

Registered like any application's configuration, with its loader pre-generated into
``fw/_fw_config.py``; :mod:`fw.pillars` imports this module with the facade, so the table is
registered before anything parses. Checks that involve several keys (the mode rules) live with
the mode that reads them (:mod:`fw.auth.modes`); the types here only say what the keys are,
including the values a choice key accepts (a ``Literal``, or ``fw.enum`` where the set may be
widened at run time or the key may be left unset), which the generated loader enforces.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated, Literal

from fw.configuration import register_config
from fw.markers import default, dependon, enum, env, help, secret

# The tables below repeat one shape (a documented, annotated field after another) by nature: each
# is a settings declaration the generator reads field by field, and the shared part (ProviderClient)
# is already shared where two tables have the same keys.


@dataclass
class Claim:
    #: JSON Pointer into the verified claims; required when admission is claim.
    path: str
    #: Accepted values at that location.
    values: list[str]
    #: any (first match passes) or all (every listed value required).
    match: Annotated[Literal["any", "all"], default("any")]


AdmissionChoice = Literal["authenticated", "claim", "registered", "existing"]


@dataclass
class ProviderClient:
    """What ``[auth.oidc]`` and ``[auth.oauth]`` share: this application as a client of a provider
    that signs people in, and who it admits. Each table's own first key (``issuer``,
    ``provider``) comes before these; the four keys whose help differs per provider (``scopes``,
    ``identity_claim``, ``auto_provision``, ``registered_claims``) are declared again, in place,
    by each table with its own help.
    """

    client_id: Annotated[str, help("Client identifier registered at the provider")]
    client_secret: Annotated[str, secret("mask"), help("Client secret registered at the provider")]
    redirect_url: Annotated[str, help("Absolute callback URL registered at the provider")]
    scopes: list[str]
    identity_claim: Annotated[str, default("sub")]
    admission: Annotated[
        AdmissionChoice, default("authenticated"), help("Who may sign in once the provider verified them")
    ]
    auto_provision: Annotated[bool, default("true")]
    claim: Claim
    registered_claims: str


@dataclass
class _OidcIssuer:
    # Inherited fields take their help from a marker (doc comments are read where a field is written).
    issuer: Annotated[
        str, help("Issuer URL of the OpenID Connect provider (https unless allow_loopback_http)")
    ]


# [auth.oidc]: the issuer, then the ProviderClient keys, then OIDC's own (no docstring: the
# table's help in the templates stays empty).
@dataclass
class OidcSettings(ProviderClient, _OidcIssuer):
    #: Scopes added to openid.
    scopes: list[str]
    #: Verified claim identifying the local account.
    identity_claim: Annotated[str, default("sub")]
    #: Create an account for an unknown verified identity.
    auto_provision: Annotated[bool, default("true")]
    #: Claims matched against the allow-list (defaults to the identity claim).
    registered_claims: str
    #: reconfirm (end the session here, ask the provider to confirm next time) or global.
    logout_scope: Annotated[Literal["reconfirm", "global"], default("reconfirm")]
    #: Lets a logout form escalate to global.
    allow_global_logout_request: Annotated[bool, default("false")]
    #: Permits an http loopback issuer in development.
    allow_loopback_http: Annotated[bool, default("false")]
    #: Removed: use logout_scope.
    provider_logout: Annotated[bool, default("false")]
    #: Path receiving the provider's back-channel logout tokens (empty: off).
    backchannel_logout_path: str


@dataclass
class _OauthProvider:
    provider: Annotated[str, enum("x"), help("The provider to sign in with (required): x")]


# [auth.oauth]: the provider, then the ProviderClient keys, then OAuth's own.
@dataclass
class OauthSettings(ProviderClient, _OauthProvider):
    #: Replaces the provider's minimal login scopes; one scope per entry.
    scopes: list[str]
    #: A claim the provider reports: sub, preferred_username, name, picture.
    identity_claim: Annotated[str, default("sub")]
    #: Create an account for an unknown profile.
    auto_provision: Annotated[bool, default("true")]
    #: Claims matched against the allow-list.
    registered_claims: str
    #: Permits a request-relative redirect URL and http endpoints on loopback in development.
    allow_loopback_http: Annotated[bool, default("false")]
    #: Replaces the provider's authorization endpoint (a stand-in for tests and fw dev).
    authorization_endpoint: str
    #: Replaces the provider's token endpoint.
    token_endpoint: Annotated[str, secret("dsn")]
    #: Replaces the provider's own-user lookup endpoint.
    user_endpoint: str


@dataclass
class Revocation:
    #: Which revocations are checked (required).
    mode: Annotated[str, enum("off,token,subject,both")]
    #: refuse (503 while the store is down) or admit.
    on_unavailable: Annotated[Literal["refuse", "admit"], default("refuse")]
    #: How long a revoked token may still pass; 0s reads the store on every request.
    max_propagation_delay: Annotated[timedelta, default("0s")]


@dataclass
class JwtSettings:
    #: Issuer whose access tokens are accepted (required).
    issuer: str
    #: Accepted audiences (required).
    audience: list[str]
    #: Allowed signature algorithms, for example RS256 (required).
    algorithms: list[str]
    #: Who may call once the token verified (required).
    admission: Annotated[str, enum("authenticated,claim,registered")]
    #: Claim identifying the caller.
    identity_claim: Annotated[str, default("sub")]
    #: Longest accepted token lifetime, also the lifetime of a revocation entry (required).
    max_token_lifetime: Annotated[timedelta, secret("show")]
    #: Key discovery: OpenID Connect metadata, OAuth authorization-server metadata, or jwks_uri.
    discovery: Annotated[Literal["oidc", "oauth", "manual"], default("oidc")]
    #: JWKS URL on the issuer's origin, with discovery = manual.
    jwks_uri: str
    #: Required JWT typ header (application/ prefix ignored, case-insensitive).
    required_token_type: Annotated[str, default("at+jwt"), secret("show")]
    #: Scopes every token must carry.
    required_scopes: list[str]
    claim: Claim
    #: Claims matched against the allow-list with admission registered.
    registered_claims: str
    revocation: Revocation
    #: Permits an http loopback issuer in development.
    allow_loopback_http: Annotated[bool, default("false")]
    #: Sender-constrained tokens (RFC 9449): off, allowed or required.
    dpop: Annotated[Literal["off", "allowed", "required"], default("off")]
    #: Require a server-issued DPoP-Nonce in every proof.
    dpop_nonce: Annotated[bool, default("false")]
    #: Verified tokens remembered until their exp (an LRU, dropped when the keys change); 0 turns it off.
    token_cache_size: Annotated[int, default("1024"), secret("show")] = 1024


@dataclass
class Protection:
    #: Path patterns that require authentication.
    include: list[str]
    #: Patterns removed from include.
    exclude: list[str]
    #: redirect (to login) or unauthorized (HTTP 401).
    unauthenticated: Annotated[Literal["redirect", "unauthorized"], default("redirect")]


@dataclass
class AuthSession:
    #: Absolute session lifetime.
    ttl: Annotated[timedelta, default("24h")]
    #: Inactivity expiry; 0s turns it off.
    idle_timeout: Annotated[timedelta, default("0s")]


@dataclass
class Passkey:
    #: Where the passkey ceremonies are mounted.
    path: Annotated[str, default("/auth/passkey")]
    #: Relying-party ID: a domain (example.com, localhost), never an IP address; required.
    rp_id: str
    #: The service name authenticators show; required.
    rp_name: str
    #: Origins pages run ceremonies from: https://host[:port] (http only for localhost); at least one.
    origins: list[str]
    #: What ceremonies ask of the user: required, preferred or discouraged.
    user_verification: Annotated[Literal["required", "preferred", "discouraged"], default("required")]


@dataclass
class Bootstrap:
    #: Hand-over grace of a bootstrap credential.
    issue_ttl: Annotated[timedelta, default("72h")]
    #: Ceremony window after redemption.
    enrollment_ttl: Annotated[timedelta, default("10m")]
    #: Wrong secrets tolerated before a bootstrap credential is spent.
    max_attempts: Annotated[int, default("5")]


@dataclass
class Recovery:
    #: Who restores access after a lost passkey; required in the passkey modes.
    policy: Annotated[str, enum("oidc,administrator,application")]


@dataclass
class Registration:
    #: Who may enrol passkeys; required in passkey_only (administrator for closed systems).
    policy: Annotated[str, enum("disabled,oidc,invite,administrator,open")]


@dataclass
class AssurancePolicy:
    """One named window for fw.auth.policy(name): checked at startup (named, unique, not negative)."""

    #: The name guards use in fw.auth.policy(name); required and unique.
    name: str
    #: How old the proof may be; 0s: satisfied once, by the step-up the guard asked for.
    max_age: Annotated[timedelta, default("0s")]
    #: Only a re-proof a guard asked for counts (a login never fills it).
    confirm: bool


@dataclass
class AssurancePresence:
    """``[auth.assurance.presence]``: pages report whether someone is at the keyboard."""

    #: Pages load {logout_path}/presence.js, which reports each interval whether input happened.
    enabled: Annotated[bool, default("false")]
    #: How often the page reports.
    interval: Annotated[timedelta, default("1m"), dependon("auth.assurance.presence.enabled")]
    #: No reported input for this long ends the session (more than interval).
    absent_after: Annotated[timedelta, default("30m"), dependon("auth.assurance.presence.enabled")]


@dataclass
class AssuranceHint:
    """``[auth.assurance.hint]``: the remembered last visitor, a sealed cookie written at session end."""

    #: Remember the last visitor's issuer and identifier (shown masked) after the session ends.
    enabled: Annotated[bool, default("false")]
    #: Sealing key: 32+ random bytes, base64url (list the new key first to rotate); required when enabled.
    secret: Annotated[str, secret("mask"), env("AUTH_HINT_SECRET"), dependon("auth.assurance.hint.enabled")]
    #: How long the note is kept after the session ended; 0s disables remembering.
    ttl: Annotated[timedelta, default("720h"), dependon("auth.assurance.hint.enabled")]
    #: The note is dropped when the browser has not come back for this long; 0s turns it off.
    idle_timeout: Annotated[timedelta, default("336h"), dependon("auth.assurance.hint.enabled")]


@dataclass
class Assurance:
    #: Browser presence reporting.
    presence: AssurancePresence
    #: The remembered last visitor.
    hint: AssuranceHint
    #: Named assurance policies ([[auth.assurance.policy]] entries: name, max_age, confirm).
    policy: list[AssurancePolicy]


@dataclass
class AuthSettings:
    """Authentication."""

    #: Endpoints and guards exist only when true.
    enabled: Annotated[bool, default("false")]
    # Declared with its default only (the generator requires the default among the declared
    # choices); the store registry (fw.auth.stores.registry, imported with this table by
    # fw.pillars) widens it with every engine keeping auth records, fw's own and any registered.
    #: Storage for auth records.
    backend: Annotated[str, enum("rdb"), default("rdb"), dependon("auth.enabled")]
    # fw's own modes are listed here, not only added by the mode registry: widening the set
    # needs every mode object imported, which ``import fw`` must not do (DESIGN 10.1), while
    # every parse (fw.configuration.load and parse_config included) must accept them. A mode
    # registered from outside fw widens it (fw.auth.modes.registry.register_mode).
    #: How people sign in (or, with jwt_only, how bearer tokens are verified).
    mode: Annotated[
        str,
        enum("oidc_only,oidc_passkey,passkey_only,oauth_only,jwt_only"),
        default("oidc_only"),
        dependon("auth.enabled"),
    ]
    #: Entry to the provider.
    login_path: Annotated[str, default("/auth/login"), dependon("auth.enabled")]
    #: Return path from the provider.
    callback_path: Annotated[str, default("/auth/callback"), dependon("auth.enabled")]
    #: Logout endpoint (POST only).
    logout_path: Annotated[str, default("/auth/logout"), dependon("auth.enabled")]
    #: Landing when no destination was requested.
    post_login_path: Annotated[str, default("/"), dependon("auth.enabled")]
    #: Couples settings for shared terminals.
    shared_device: Annotated[bool, default("false"), dependon("auth.enabled")]
    protection: Annotated[Protection, dependon("auth.enabled")]
    session: Annotated[AuthSession, dependon("auth.enabled")]
    oidc: Annotated[OidcSettings, dependon("auth.enabled")]
    oauth: Annotated[OauthSettings, dependon("auth.enabled")]
    jwt: Annotated[JwtSettings, dependon("auth.enabled")]
    passkey: Annotated[Passkey, dependon("auth.enabled")]
    bootstrap: Annotated[Bootstrap, dependon("auth.enabled")]
    recovery: Annotated[Recovery, dependon("auth.enabled")]
    registration: Annotated[Registration, dependon("auth.enabled")]
    assurance: Annotated[Assurance, dependon("auth.enabled")]


register_config(AuthSettings, "auth")
