"""The browser half of the ceremonies, ``passkey.js``, shipped inside the package so the App can
serve it at ``{auth.passkey.path}/passkey.js`` and ``fw init`` can write the same bytes to
``public/passkey.js``."""

from __future__ import annotations

from importlib.resources import files

SCRIPT_NAME = "passkey.js"
SCRIPT_MEDIA_TYPE = "text/javascript; charset=utf-8"


def passkey_script() -> bytes:
    """The script's bytes, read from the installed package."""
    return files("fw.auth.webauthn").joinpath(SCRIPT_NAME).read_bytes()
