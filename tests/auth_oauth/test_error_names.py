"""A provider refusing in the OAuth error format raises one class, whichever sign-in asked it."""

from __future__ import annotations

import fw.auth.oauth
import fw.auth.oidc
import fw.auth.tokens


def test_an_oauth_refusal_is_the_class_the_openid_sign_in_raises_under_both_names() -> None:
    assert fw.auth.oauth.ProviderError is fw.auth.oidc.ProviderError is fw.auth.tokens.ProviderError
    assert fw.auth.oauth.ProviderRefused is fw.auth.tokens.ProviderError


def test_a_refusal_names_the_oauth_error_and_keeps_the_description_for_logs() -> None:
    refusal = fw.auth.tokens.ProviderError("invalid_grant", "the code was used before")
    assert (refusal.error, refusal.description) == ("invalid_grant", "the code was used before")
    assert refusal.reason == "the identity provider answered invalid_grant"
    assert isinstance(refusal, fw.auth.oidc.OidcError)
