"""The framework's own settings: ``[server]``, ``[session]``, ``[middleware.*]``, ``[auth]`` and
``[observability.*]``.

They are declared exactly like an application's configuration and registered through the same
mechanism, so they appear in the startup summary and the templates and obey the same layering.
Checks that involve several keys (mode rules, startup preconditions) live with the pillar that
reads them; the types here only say what the keys are, including the values a choice key accepts
(a ``Literal``, or ``fw.enum`` where a pillar may widen the set at run time or the key may be
left unset), which the generated loader enforces for every source.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated, Literal

from fw.markers import default, dependon, enum, env, help, secret


@dataclass
class ServerSettings:
    """HTTP server."""

    #: Interface to listen on.
    host: Annotated[str, default("127.0.0.1")]
    #: Port to listen on.
    port: Annotated[int, default("8000")]
    #: Largest request body accepted, in bytes (the outer limit for every request).
    max_request_body: Annotated[int, default("10485760")]
    #: Largest CBOR request body accepted, in bytes.
    cbor_max_body: Annotated[int, default("1048576")]
    #: Longest a request body may take to arrive once a handler reads it (408 after; 0s: no limit).
    body_timeout: Annotated[timedelta, default("30s")]
    #: Serve the interactive API reference at /docs (left unset: on when APP_ENV is dev).
    docs: bool


@dataclass
class SessionKeyring:
    #: Key that seals cookie sessions (32 bytes or more, base64url); required by the cookie backend.
    secret: Annotated[str, secret("mask")]


@dataclass
class SessionSettings:
    """Browser sessions."""

    #: Turn browser sessions on (required by the browser login modes).
    enabled: Annotated[bool, default("false")]
    #: Where session records live.
    backend: Annotated[
        str, enum("rdb,cookie,redis,dynamo,firestore"), default("rdb"), dependon("session.enabled")
    ]
    #: Redis URL for the redis backend.
    redis_url: Annotated[str, default("redis://127.0.0.1:6379/0"), secret("dsn"), dependon("session.enabled")]
    keyring: Annotated[SessionKeyring, dependon("session.enabled")]


@dataclass
class RdbSettings:
    """Relational storage shared by sessions, auth records and revocation."""

    #: Database URL: sqlite:///file.sqlite3 (embedded) or postgresql://user@host:5432/db.
    dsn: Annotated[str, default("sqlite:///fw.sqlite3")]
    #: PostgreSQL connections the process keeps open (a positive number; SQLite keeps its own).
    pool_size: Annotated[int, default("20")]


@dataclass
class DynamoSettings:
    """DynamoDB for auth.backend or session.backend = dynamo; credentials from the AWS environment."""

    #: AWS region of the table (empty: the AWS environment's region).
    region: Annotated[str, default("")]
    #: Endpoint of a local DynamoDB-compatible server, e.g. http://127.0.0.1:8000 (empty: AWS).
    endpoint_url: Annotated[str, default(""), secret("dsn")]
    #: Prefix of the table name: every record lives in <prefix>records (created by fw migrate).
    table_prefix: Annotated[str, default("fw_")]


@dataclass
class FirestoreSettings:
    """Firestore in Datastore mode, for ``auth.backend`` or ``session.backend`` = ``firestore``."""

    #: Google Cloud project ID (empty: the project of the environment's credentials).
    project: Annotated[str, default("")]
    #: Database ID (empty: the project's (default) database); it must be in Datastore mode.
    database: Annotated[str, default("")]
    #: host:port of a local emulator (DATASTORE_EMULATOR_HOST sets it too); empty: Google Cloud.
    emulator_host: Annotated[str, default(""), env("DATASTORE_EMULATOR_HOST")]


@dataclass
class MiddlewareSettings:
    rdb: RdbSettings
    dynamo: DynamoSettings
    firestore: FirestoreSettings


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
    #: Storage for auth records.
    backend: Annotated[str, enum("rdb,dynamo,firestore"), default("rdb"), dependon("auth.enabled")]
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


@dataclass
class HealthSettings:
    """Liveness and readiness endpoints (public, outside auth.protection, not in the OpenAPI document)."""

    #: Serve the liveness and readiness endpoints.
    enabled: Annotated[bool, default("true")]
    #: Liveness: 200 while the process serves.
    live_path: Annotated[str, default("/healthz")]
    #: Readiness: 200 when every store the configuration uses and the bearer keys or provider answer.
    ready_path: Annotated[str, default("/readyz")]


@dataclass
class AccessLogSettings:
    """One JSON line per request on the fw.access logger."""

    #: Log every request as one JSON line on the fw.access logger (it replaces uvicorn's access line).
    enabled: Annotated[bool, default("false")]


@dataclass
class MetricsSettings:
    """Prometheus metrics (pip install 'fw-web[metrics]')."""

    #: Serve Prometheus metrics at observability.metrics.path (needs the metrics extra).
    enabled: Annotated[bool, default("false")]
    #: The path the Prometheus text format is served at (public, not in the OpenAPI document).
    path: Annotated[str, default("/metrics")]


@dataclass
class TracingSettings:
    """OpenTelemetry tracing to an OTLP/HTTP collector (pip install 'fw-web[otel]')."""

    #: Trace every request and the store and provider calls it makes (needs the otel extra).
    enabled: Annotated[bool, default("false")]
    #: The collector's OTLP/HTTP URL (http://collector:4318); empty: OTEL_EXPORTER_OTLP_ENDPOINT or localhost.
    endpoint: Annotated[str, default("")]
    #: The service.name spans carry; empty: the project's name.
    service_name: Annotated[str, default("")]
    #: The share of traces started here that are recorded, from 0 to 1 (a caller's decision is kept).
    sample_ratio: Annotated[str, default("1.0")]


# Registered like any application's configuration; the loaders are pre-generated into
# ``fw/_fw_config.py`` by ``fw generate`` run in fw's own checkout.
from fw.configuration import register_config  # noqa: E402

register_config(ServerSettings, "server")
register_config(SessionSettings, "session")
register_config(MiddlewareSettings, "middleware")
register_config(AuthSettings, "auth")
# The operations endpoints and observability (fw.operations reads them; DESIGN 10.4).
register_config(HealthSettings, "server.health")
register_config(AccessLogSettings, "observability.access_log")
register_config(MetricsSettings, "observability.metrics")
register_config(TracingSettings, "observability.tracing")
