"""``fw.auth.passkey``, the name the WebAuthn protocol code had before it became
``fw.auth.webauthn``, stays an alias: tests written by an earlier ``fw init`` import
``passkey_script`` from it."""

from __future__ import annotations

import pytest

import fw.auth.passkey as old
import fw.auth.webauthn as webauthn


def test_a_project_written_by_an_earlier_fw_init_still_imports_passkey_script_from_the_old_name() -> None:
    from fw.auth.passkey import passkey_script

    assert passkey_script is webauthn.passkey_script
    assert passkey_script() == webauthn.passkey_script() != b""


def test_the_old_name_offers_every_protocol_name_and_no_other() -> None:
    assert old.__all__ == webauthn.__all__
    assert [name for name in webauthn.__all__ if getattr(old, name) is not getattr(webauthn, name)] == []
    with pytest.raises(AttributeError, match="no attribute 'passkey_feature'"):
        old.passkey_feature  # noqa: B018 - the lookup itself is the test
