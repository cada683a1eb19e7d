"""The startup summary shows only the [auth] tables the chosen mode reads; templates show them all."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

import fw
from fw.auth.settings import AuthSettings
from fw.configuration import activity, choices, extend_choices, registry
from fw.configuration.activity import is_inactive
from fw.testing import configured


def shown(*argv: str) -> set[str]:
    with configured(argv=argv):
        return {item.key for item in registry.summary_items()}


def tables(keys: set[str]) -> set[str]:
    return {".".join(key.split(".")[:2]) for key in keys if key.startswith("auth.")}


def test_oidc_only_lists_its_own_table_and_not_the_oauth_or_jwt_tables() -> None:
    keys = shown("--auth-enabled", "--auth-mode=oidc_only")
    assert "auth.oidc.issuer" in keys and "auth.oidc.client_secret" in keys
    assert not {key for key in keys if key.startswith(("auth.oauth.", "auth.jwt."))}
    assert not {key for key in keys if key.startswith(("auth.passkey.", "auth.bootstrap.", "auth.recovery."))}
    assert {"auth.session", "auth.assurance", "auth.shared_device"} <= tables(keys)


def test_oauth_only_lists_the_oauth_table_only() -> None:
    found = tables(shown("--auth-enabled", "--auth-mode=oauth_only"))
    assert "auth.oauth" in found
    assert not found & {"auth.oidc", "auth.jwt", "auth.shared_device", "auth.passkey"}


def test_jwt_only_hides_every_browser_table() -> None:
    found = tables(shown("--auth-enabled", "--auth-mode=jwt_only"))
    assert "auth.jwt" in found
    assert not found & {"auth.oidc", "auth.oauth", "auth.session", "auth.assurance", "auth.shared_device"}


def test_a_mode_reading_passkey_tables_lists_them() -> None:
    found = tables(shown("--auth-enabled", "--auth-mode=oidc_passkey"))
    assert {"auth.oidc", "auth.passkey", "auth.recovery", "auth.registration"} <= found
    assert not found & {"auth.oauth", "auth.jwt", "auth.bootstrap"}


def test_an_unknown_mode_hides_nothing_so_the_refusal_can_be_read_against_every_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The loader refuses a mode nobody declared; one added to the choices that authentication
    # has no table rules for is still unknown to it.
    monkeypatch.setattr(choices, "_extra", {})
    extend_choices("auth.mode", "no_such_mode")
    found = tables(shown("--auth-enabled", "--auth-mode=no_such_mode"))
    assert {"auth.oidc", "auth.oauth", "auth.jwt", "auth.passkey"} <= found


def test_with_auth_off_only_the_switch_is_listed_as_before() -> None:
    keys = shown()
    assert {key for key in keys if key.startswith("auth.")} == {"auth.enabled"}


def test_a_hidden_table_is_still_loaded_and_the_templates_still_list_every_key() -> None:
    with configured(argv=["--auth-enabled", "--auth-oauth-client_id=cid"]):
        assert fw.config(AuthSettings).oauth.client_id == "cid"
        assert "auth.oauth.client_id" not in {item.key for item in registry.summary_items()}
    with configured(argv=["--auth-enabled", "--generate-config=toml"]):
        toml = registry.requested_template()
    with configured(argv=["--auth-enabled", "--generate-config=env"]):
        env = registry.requested_template()
    assert toml is not None and env is not None
    assert "[auth.oauth]" in toml and "[auth.jwt.revocation]" in toml and "[auth.oidc]" in toml
    assert "AUTH_OAUTH_CLIENT_ID=" in env and "AUTH_JWT_ISSUER=" in env


def test_any_pillar_can_hide_a_subtree_through_a_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    def hide_keyring_when_cookie_is_not_used(values: Mapping[str, Any]) -> list[str]:
        return [] if values.get("session.backend") == "cookie" else ["session.keyring"]

    monkeypatch.setattr(activity, "_hooks", [hide_keyring_when_cookie_is_not_used])
    assert "session.keyring.secret" not in shown("--session-enabled")
    assert "session.keyring.secret" in shown("--session-enabled", "--session-backend=cookie")
    assert "auth.oauth.client_id" in shown("--auth-enabled")  # the auth hook was replaced here


def test_a_subtree_covers_whole_key_segments_only() -> None:
    subtrees = frozenset({"auth.o", "auth.oauth"})
    assert is_inactive("auth.oauth", subtrees)
    assert is_inactive("auth.oauth.claim.path", subtrees)
    assert not is_inactive("auth.oidc.issuer", subtrees)
    assert not is_inactive("auth.oauthx.key", subtrees)
    assert not is_inactive("auth.oauth.key", frozenset())
