"""The name :mod:`fw.auth.webauthn` had before the WebAuthn protocol code was renamed, kept as an alias.

Projects written by an earlier ``fw init`` with a passkey mode import ``passkey_script`` from
here in their tests, so the old name keeps working, with the same names, imported on first use
as :mod:`fw.auth.webauthn` imports them. New code imports the protocol from
:mod:`fw.auth.webauthn`; the passkey feature of the modes is :mod:`fw.auth.passkeys`.
"""

from __future__ import annotations

from typing import Any

import fw.auth.webauthn as webauthn

__all__ = list(webauthn.__all__)


def __getattr__(name: str) -> Any:
    """The public ``name`` of :mod:`fw.auth.webauthn`, imported on first use."""
    if name not in webauthn.__all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(webauthn, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
