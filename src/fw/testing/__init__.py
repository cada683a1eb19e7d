"""Helpers for testing fw applications: a development identity provider or X-shaped stand-in per
test, a browser-like client that completes the login flow in one request, signed-in users on
demand, a local issuer minting bearer access tokens, and a configuration made of exactly the
layers a test gives."""

from fw.testing.browser import BrowserClient, SignInProvider, login_user
from fw.testing.configuration import configured
from fw.testing.issuer import LocalIssuer
from fw.testing.oauth import TestOAuthProvider, oauth_provider
from fw.testing.oidc import TestIdentityProvider, identity_provider

__all__ = [
    "BrowserClient",
    "LocalIssuer",
    "SignInProvider",
    "TestIdentityProvider",
    "TestOAuthProvider",
    "configured",
    "identity_provider",
    "login_user",
    "oauth_provider",
]
