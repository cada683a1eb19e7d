"""Helpers for testing fw applications: a development identity provider or X-shaped stand-in per
test, a browser-like client that completes the login flow in one request, signed-in users on
demand, a local issuer minting bearer access tokens, a configuration made of exactly the
layers a test gives, and an App's lifespan run around an async test."""

from fw.testing.asynchronous import lifespan
from fw.testing.browser import BrowserClient, SignInProvider, login_user
from fw.testing.configuration import UnconfiguredAppWarning, configured
from fw.testing.issuer import LocalIssuer
from fw.testing.oauth import TestOAuthProvider, oauth_provider
from fw.testing.oidc import TestIdentityProvider, identity_provider
from fw.testing.signin import SignInFailed

__all__ = [
    "BrowserClient",
    "LocalIssuer",
    "SignInFailed",
    "SignInProvider",
    "TestIdentityProvider",
    "TestOAuthProvider",
    "UnconfiguredAppWarning",
    "configured",
    "identity_provider",
    "lifespan",
    "login_user",
    "oauth_provider",
]
