"""``fw init --auth`` offers what the mode registry says each mode's scaffold can do."""

from __future__ import annotations

import pytest

import fw
from auth_modes.sketch import SketchMode
from fw.auth.modes import registry
from fw.auth.modes.base import Scaffold
from fw.scaffold.options import (
    AUTH_CHOICES,
    DEFAULT_AUTH,
    NOT_AVAILABLE,
    ScaffoldError,
    auth_choices,
    check_auth,
    default_auth,
    not_available,
)


@pytest.fixture(autouse=True)
def _own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_modes", dict(registry._modes))


def test_the_choices_of_this_installation_come_from_the_registered_modes() -> None:
    assert (
        auth_choices() == AUTH_CHOICES == ("none", "oidc_only", "oidc_passkey", "passkey_only", "oauth_only")
    )
    assert not_available() == NOT_AVAILABLE == frozenset()
    assert DEFAULT_AUTH == {"web": "oidc_only", "api": "jwt_only"}


def test_a_mode_that_is_not_offered_says_why_in_its_own_words() -> None:
    with pytest.raises(ScaffoldError) as refused:
        check_auth("jwt_only")
    mode = registry.find_mode("jwt_only")
    assert (
        mode is not None and str(refused.value) == f"--auth jwt_only is not offered: {mode.scaffold.refusal}"
    )


def test_a_registered_mode_whose_scaffold_is_ready_becomes_a_choice_and_may_be_a_default() -> None:
    ready = Scaffold(offered=True, available=True, default_for=frozenset({"api"}))
    registry._modes.pop("jwt_only")  # the api preset's own default would come first
    fw.auth.register_mode(SketchMode(name="door", scaffold=ready))
    assert "door" in auth_choices() and "door" not in not_available()
    assert check_auth("door") == "door"
    assert default_auth("api") == "door" and default_auth("web") == "oidc_only"


def test_a_registered_mode_offered_before_it_is_ready_is_not_available_yet() -> None:
    fw.auth.register_mode(SketchMode(name="door"))
    with pytest.raises(
        ScaffoldError,
        match=(
            "--auth door is not available yet in fw; "
            "use oidc_only, oidc_passkey, passkey_only, oauth_only or none"
        ),
    ):
        check_auth("door")


def test_a_registered_mode_without_a_scaffold_is_not_a_choice() -> None:
    fw.auth.register_mode(SketchMode(name="door", scaffold=Scaffold()))
    with pytest.raises(ScaffoldError, match="--auth 'door' is not a choice"):
        check_auth("door")
