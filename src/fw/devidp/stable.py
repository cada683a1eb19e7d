"""The development provider's identity across ``fw dev`` runs: its port and signing key in ``.fw/``.

Accounts are linked to (issuer, subject), and the issuer is the provider's URL: a provider on a
new port each run would give the same development user a new account on every restart, and the
tokens ``fw token`` printed would stop verifying. So the first ``fw dev`` picks a port and an RSA
signing key and keeps them in the project's git-ignored ``.fw/devidp.json``; later runs and
``fw token`` read them back. The key signs development tokens only: the provider that publishes
it checks no password and runs only on loopback under ``APP_ENV=dev``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from joserfc.errors import JoseError
from joserfc.jwk import RSAKey

#: Where the record lives, relative to the project's root.
RECORD = Path(".fw") / "devidp.json"
HOST = "127.0.0.1"
#: First-run ports are drawn below Linux's ephemeral range (32768-60999), where outgoing
#: connections would otherwise take them, and from the project's path, so two projects rarely meet.
_FIRST_PORTS = range(20000, 30000)
_IGNORE = "# fw's local state (generation record, development keys): never committed\n*\n"


class DevStateError(Exception):
    """``.fw/devidp.json`` is missing or unreadable; the message says what to do."""

    def __init__(self, reason: str, remedy: str) -> None:
        super().__init__(f"{reason}; {remedy}")
        #: What is wrong, without the advice (``fw dev`` replaces a damaged record itself).
        self.reason = reason


@dataclass(frozen=True)
class DevIssuerState:
    """The port the development provider listens on and the key it signs with."""

    port: int
    key: RSAKey

    @property
    def issuer(self) -> str:
        """The issuer URL, the same on every run that gets its port."""
        return f"http://{HOST}:{self.port}"


def record_path(root: Path) -> Path:
    return root / RECORD


def load_state(root: Path) -> DevIssuerState:
    """The recorded state; :class:`DevStateError` when there is none yet or it is damaged."""
    path = record_path(root)
    again = "delete it and run fw dev again"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DevStateError(
            f"no development token issuer yet ({RECORD} is missing)",
            "run fw dev once first, it creates the issuer and its key",
        ) from None
    except (OSError, ValueError) as error:
        raise DevStateError(f"{RECORD} cannot be read ({error})", again) from None
    damaged = DevStateError(f"{RECORD} is not a development issuer record", again)
    try:
        port = data["port"]
        key = RSAKey.import_key(data["key"])
    except (KeyError, TypeError, ValueError, JoseError):
        raise damaged from None
    if not isinstance(port, int) or not 0 < port < 65536 or not key.is_private or not key.kid:
        raise damaged
    return DevIssuerState(port, key)


def load_or_create_state(root: Path) -> DevIssuerState:
    """The recorded state, or (first run: no record) a new port and key, recorded now."""
    if record_path(root).exists():
        return load_state(root)
    return create_state(root)


def create_state(root: Path) -> DevIssuerState:
    """A new port and key, recorded in place of whatever was there."""
    state = DevIssuerState(
        _first_port(root),
        RSAKey.generate_key(2048, parameters={"kid": secrets.token_urlsafe(8), "use": "sig"}),
    )
    _write(root, state)
    return state


def _first_port(root: Path) -> int:
    """A port free now: the project's own in the first-run range, else the next free ones, else any."""
    digest = int.from_bytes(hashlib.sha256(str(root.resolve()).encode()).digest()[:4], "big")
    start = digest % len(_FIRST_PORTS)
    for step in range(20):
        port = _FIRST_PORTS[(start + step) % len(_FIRST_PORTS)]
        if _free(port):
            return port
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def _free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
        return True


def _write(root: Path, state: DevIssuerState) -> None:
    """Write the record readable by its owner only (it holds a private key), ``.fw/`` ignored by git."""
    folder = record_path(root).parent
    folder.mkdir(exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text(_IGNORE)
    record = {"port": state.port, "key": state.key.as_dict(private=True)}
    temporary = folder / f".devidp.{os.getpid()}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=1, sort_keys=True)
            handle.write("\n")
        os.replace(temporary, record_path(root))
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
