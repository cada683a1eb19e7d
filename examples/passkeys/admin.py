"""The administrator's side of ``passkey_only``: issue a bootstrap credential.

    python admin.py issue ada --config-path config.passkey_only.toml
    python admin.py issue ada --recovery --config-path config.passkey_only.toml

prints the login ID and the one-time secret (only a digest is stored, so this is the one time it
can be read) and when it expires. Hand both to the person; they enter them on ``/enroll``.
``--recovery`` is for someone who lost every passkey: the credential enrols a new one for the
account that already has this login ID. Every
option after the sub-command's own is fw configuration (``--config-path``, ``--middleware-rdb-dsn``),
read exactly as the app reads it, so the credential lands in the app's store.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

import fw


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="admin.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    issue = commands.add_parser("issue", help="issue a bootstrap credential and print it once")
    issue.add_argument("login_id", help="what the person types as their login ID")
    issue.add_argument("--recovery", action="store_true", help="a new passkey for an existing account")
    return parser


async def _issue(login_id: str, recovery: bool) -> str:
    purpose = "recovery_passkey" if recovery else "initial_passkey"
    issued = await fw.auth.issue_bootstrap_credential(login_id, purpose=purpose)
    return f"login ID: {issued.login_id}\nsecret: {issued.secret}\nexpires: {issued.expires_at.isoformat()}"


def main(argv: Sequence[str] | None = None) -> int:
    args, rest = _parser().parse_known_args(argv)
    try:
        fw.parse_config(rest)
        print(asyncio.run(_issue(args.login_id, args.recovery)))
    except (fw.ConfigError, fw.StartupError, RuntimeError, LookupError, ValueError) as error:
        sys.stderr.write(f"admin.py: {error}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
