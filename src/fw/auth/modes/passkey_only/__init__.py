"""``auth.mode = "passkey_only"``: accounts enrolled with bootstrap credentials, sign-in by passkey.

Composition only: the passkey endpoints of :mod:`fw.auth.passkeys`, the ``/bootstrap`` endpoint
and its enrollment tickets (:mod:`.bootstrap`), who may register (:mod:`.registrants`), a local
logout (:mod:`.logout`), startup and wiring (:mod:`.extension`), the registry's entry (:mod:`.mode`).
"""

from fw.auth.modes.passkey_only.extension import PasskeyOnly
from fw.auth.modes.passkey_only.mode import PASSKEY_ONLY, PasskeyOnlyMode

__all__ = ["PASSKEY_ONLY", "PasskeyOnly", "PasskeyOnlyMode"]
