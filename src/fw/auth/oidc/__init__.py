"""OpenID Connect relying-party pieces with no knowledge of the App: provider metadata, the code
flow with PKCE, ID-token rules, userinfo and the device flow, on top of the token core
(:mod:`fw.auth.tokens`). The ``oidc_only`` mode composes them."""

from fw.auth.oidc.authorization import PendingLogin, authorization_url, pkce_challenge, reconfirm_prompt
from fw.auth.oidc.device import (
    DeviceAuthorization,
    DeviceClient,
    DeviceConfig,
    DeviceFlowError,
    DeviceOptions,
)
from fw.auth.oidc.errors import OidcError, ProviderError, ProviderUnavailable, TokenRejected
from fw.auth.oidc.exchange import Tokens, VerifiedIdentity, exchange_code, fetch_userinfo, verify_id_token
from fw.auth.oidc.provider import Provider, ProviderMetadata
from fw.auth.tokens.urls import is_loopback_host
from fw.auth.tokens.urls import transport_problem as check_issuer_url

__all__ = [
    "DeviceAuthorization",
    "DeviceClient",
    "DeviceConfig",
    "DeviceFlowError",
    "DeviceOptions",
    "OidcError",
    "PendingLogin",
    "Provider",
    "ProviderError",
    "ProviderMetadata",
    "ProviderUnavailable",
    "TokenRejected",
    "Tokens",
    "VerifiedIdentity",
    "authorization_url",
    "check_issuer_url",
    "exchange_code",
    "fetch_userinfo",
    "is_loopback_host",
    "pkce_challenge",
    "reconfirm_prompt",
    "verify_id_token",
]
