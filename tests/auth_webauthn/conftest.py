"""A fresh software authenticator used from the relying party's page origin."""

from __future__ import annotations

import pytest

from auth_webauthn.support import ORIGIN
from fw.testing.passkeys import SoftAuthenticator


@pytest.fixture
def authenticator() -> SoftAuthenticator:
    return SoftAuthenticator(ORIGIN, aaguid=bytes(range(1, 17)))
