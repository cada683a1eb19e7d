"""Every test here may register modes: the registry and the choices of ``auth.mode`` are restored."""

from __future__ import annotations

import pytest

from fw.auth.modes import registry
from fw.configuration import choices


@pytest.fixture(autouse=True)
def restore_modes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_modes", dict(registry._modes))
    monkeypatch.setattr(choices, "_extra", dict(choices._extra))
