"""``auth.mode = "passkey_only"``: accounts enrolled with bootstrap credentials, sign-in by passkey.

Composition only: the passkey endpoints of :mod:`fw.auth.passkeys`, the ``/bootstrap`` endpoint
and its enrollment tickets (:mod:`.bootstrap`), who may register (:mod:`.registrants`), a local
logout (:mod:`.logout`), startup and wiring (:mod:`.extension`), the registry's entry (:mod:`.mode`).

The mode object is imported with the package (registering the mode needs nothing more);
:class:`PasskeyOnly`, the extension, on first use, so a project that selects another mode never loads it.
"""

from typing import TYPE_CHECKING, Any

from fw.auth.modes.passkey_only.mode import PASSKEY_ONLY, PasskeyOnlyMode

if TYPE_CHECKING:
    from fw.auth.modes.passkey_only.extension import PasskeyOnly

__all__ = ["PASSKEY_ONLY", "PasskeyOnly", "PasskeyOnlyMode"]


# Every mode package repeats these lines on purpose: the lazy import stays an import statement,
# which type checkers and tests/test_architecture.py (it reads imports with ast) see; a shared
# importlib helper would hide the edge from both.
def __getattr__(name: str) -> Any:
    if name == "PasskeyOnly":
        from fw.auth.modes.passkey_only.extension import PasskeyOnly

        return PasskeyOnly
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
