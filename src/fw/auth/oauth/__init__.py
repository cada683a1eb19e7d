"""Sign-in at a provider that issues no ID token, with no knowledge of the App: the provider
definition (``x``), the authorization URL with PKCE and state, the code exchange with HTTP Basic
client authentication and the own-user lookup, each failure a typed error. The ``oauth_only``
mode composes them."""

from fw.auth.oauth.errors import (
    OauthError,
    ProfileRejected,
    ProviderRefused,
    ProviderUnavailable,
    RateLimited,
)
from fw.auth.oauth.flow import (
    MAX_ANSWER_BYTES,
    authorization_url,
    profile_claims,
    retry_after,
    sign_in_profile,
)
from fw.auth.oauth.provider import PROVIDERS, OauthProvider, X
from fw.auth.tokens.errors import ProviderError

__all__ = [
    "MAX_ANSWER_BYTES",
    "PROVIDERS",
    "OauthError",
    "OauthProvider",
    "ProfileRejected",
    "ProviderError",
    "ProviderRefused",
    "ProviderUnavailable",
    "RateLimited",
    "X",
    "authorization_url",
    "profile_claims",
    "retry_after",
    "sign_in_profile",
]
