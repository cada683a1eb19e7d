"""Startup rules of ``[auth.assurance.hint]``, the same in every browser mode.

Lifetimes of ``0s`` or more (a ``ttl`` of ``0s`` disables remembering); when remembering is on,
a sealing secret made of strong keys; and never on a shared terminal, where the next person at
the screen is by definition someone else (``auth.shared_device = true``).
"""

from __future__ import annotations

from fw.auth.sessions.seal import SECRET_RECIPE, listed_secrets, secret_bytes
from fw.auth.settings import AssuranceHint, AuthSettings
from fw.configuration.duration import format_duration
from fw.errors import StartupError

TABLE = "auth.assurance.hint"


def remembering(hint: AssuranceHint) -> bool:
    """Whether notes are written and read: enabled, with a lifetime above ``0s``."""
    return hint.enabled and hint.ttl.total_seconds() > 0


def hint_keys(hint: AssuranceHint) -> list[bytes]:
    """The keys of ``secret``, the sealing one first; any weak or missing key is a startup error."""
    listed = listed_secrets(hint.secret)
    keys = [secret_bytes(secret) for secret in listed]
    if not listed or any(key is None for key in keys):
        raise StartupError(
            f"{TABLE}.secret",
            "*****" if hint.secret else "",
            "remembering the last visitor needs a sealing secret of 32 or more random bytes, "
            f"base64url-encoded, in the environment variable AUTH_HINT_SECRET ({SECRET_RECIPE}); "
            "list the new one first to rotate",
        )
    return [key for key in keys if key is not None]


def check_hint(auth: AuthSettings) -> None:
    """Raise :class:`fw.StartupError` for the first broken rule of ``[auth.assurance.hint]``."""
    hint = auth.assurance.hint
    for name in ("ttl", "idle_timeout"):
        value = getattr(hint, name)
        if value.total_seconds() < 0:
            raise StartupError(f"{TABLE}.{name}", format_duration(value), "use 0s or more")
    if not hint.enabled:
        return
    if auth.shared_device:
        raise StartupError(
            f"{TABLE}.enabled",
            True,
            "auth.shared_device = true forbids remembering the last visitor (the next person at a "
            "shared terminal would see who used it); set enabled = false or shared_device = false",
        )
    if remembering(hint):
        hint_keys(hint)
