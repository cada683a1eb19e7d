"""Helpers for testing fw applications: a development identity provider per test, a browser-like
client that completes the login flow in one request, and signed-in users on demand."""

from fw.testing.oidc import BrowserClient, TestIdentityProvider, identity_provider, login_user

__all__ = ["BrowserClient", "TestIdentityProvider", "identity_provider", "login_user"]
