"""OpenID Connect relying-party pieces with no knowledge of the App: discovery, the code flow with
PKCE, ID token verification, userinfo and the device flow. The ``oidc_only`` mode composes them."""

from fw.auth.jwt.urls import is_loopback_host
from fw.auth.oidc.authorization import PendingLogin, authorization_url, pkce_challenge, reconfirm_prompt
from fw.auth.oidc.device import (
    DeviceAuthorization,
    DeviceClient,
    DeviceConfig,
    DeviceFlowError,
    DeviceOptions,
)
from fw.auth.oidc.errors import OidcError, ProviderError, ProviderUnavailable, TokenRejected
from fw.auth.oidc.provider import Provider, ProviderMetadata, check_issuer_url
from fw.auth.oidc.tokens import Tokens, VerifiedIdentity, exchange_code, fetch_userinfo, verify_id_token

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
