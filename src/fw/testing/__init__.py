"""Helpers for testing fw applications: a development identity provider per test, a browser-like
client that completes the login flow in one request, signed-in users on demand, and a
configuration made of exactly the layers a test gives."""

from fw.testing.configuration import configured
from fw.testing.oidc import BrowserClient, TestIdentityProvider, identity_provider, login_user

__all__ = ["BrowserClient", "TestIdentityProvider", "configured", "identity_provider", "login_user"]
