"""``fw passkey bootstrap LOGIN_ID [--recovery] [--account ID]``: the first credential of a
``passkey_only`` project, from the command line.

A ``passkey_only`` project has no identity provider, so its first person can only enrol with a
bootstrap credential (a login ID and a one-time secret) that an administrator issues. This
command reads the project's configuration as the App would, issues one through
:func:`fw.auth.issue_bootstrap_credential` on the configured store, and prints what to hand
over: the login ID, the secret (shown once; fw stores only its digest), when it expires, and
the page to enter them on. A store without fw's tables says to run ``fw migrate``; another
mode says which mode it is. Every refusal is one ``fw:`` line.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from fw.errors import StartupError

if TYPE_CHECKING:
    from fw.auth.passkeys.calls import BootstrapCredential
    from fw.auth.settings import AuthSettings
    from fw.generate.project import Project
    from fw.settings import ServerSettings

USAGE = "usage: fw passkey bootstrap LOGIN_ID [--recovery] [--account ID] [CONFIGURATION OPTIONS]"


class UsageError(ValueError):
    """The command line does not say what to issue; the message is the fix."""


@dataclass(frozen=True, slots=True)
class Request:
    """What ``fw passkey bootstrap`` was asked for; ``configuration`` is the rest of the line."""

    login_id: str
    recovery: bool
    account_id: str | None
    configuration: list[str]


def parse_arguments(rest: list[str]) -> Request:
    """``bootstrap LOGIN_ID`` first, then ``--recovery`` and ``--account ID`` anywhere; every other
    word is a configuration option (``--config-path FILE``), as for ``fw run``."""
    if rest[:1] != ["bootstrap"]:
        found = f"got {rest[0]!r}" if rest else "nothing"
        raise UsageError(f"passkey takes the sub-command bootstrap, {found} ({USAGE})")
    if len(rest) < 2 or rest[1].startswith("-"):
        raise UsageError(f"passkey bootstrap needs the login ID first ({USAGE})")
    login_id, words = rest[1], rest[2:]
    recovery = False
    account_id: str | None = None
    configuration: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--recovery":
            recovery = True
        elif word == "--account" or word.startswith("--account="):
            if word == "--account":
                index += 1
                value = words[index] if index < len(words) else ""
            else:
                value = word.partition("=")[2]
            if not value or value.startswith("-"):
                raise UsageError(f"--account needs an account ID ({USAGE})")
            account_id = value
        else:
            configuration.append(word)
        index += 1
    return Request(login_id, recovery, account_id, configuration)


def sign_in_url(auth: AuthSettings, server: ServerSettings) -> str:
    """Where the person enters the login ID and secret: ``auth.login_path`` on the passkey origin
    this server answers on (the one with ``server.port``, else the first). Ceremonies run only on
    a configured origin, never on the ``127.0.0.1`` the server may listen on."""
    origins = list(auth.passkey.origins)
    on_port = [origin for origin in origins if _port(origin) == server.port]
    chosen = (on_port or origins or [f"http://localhost:{server.port}"])[0]
    return chosen.rstrip("/") + auth.login_path


def _port(origin: str) -> int | None:
    try:
        parts = urlsplit(origin)
        return parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None


def describe(credential: BootstrapCredential, url: str, recovery: bool) -> str:
    """The lines printed for the administrator to hand over."""
    expires = credential.expires_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    what = "a recovery passkey" if recovery else "the first passkey"
    return (
        f"login ID: {credential.login_id}\n"
        f"secret:   {credential.secret}\n"
        f"expires:  {expires}\n"
        f"sign in:  {url}\n"
        f"The person opens the sign-in page, enters the login ID and the secret, and registers {what}. "
        "The secret works once and is shown only here: fw keeps only its digest.\n"
    )


def run_passkey(project: Project, rest: list[str], the_app: Callable[[Project], object]) -> int:
    """``fw passkey bootstrap``; returns the exit status."""
    from fw import configuration
    from fw.auth.passkeys.calls import issue_bootstrap_credential
    from fw.auth.settings import AuthSettings
    from fw.cli.devonly import parse_without_dev
    from fw.settings import ServerSettings

    try:
        request = parse_arguments(rest)
    except UsageError as error:
        sys.stderr.write(f"fw: {error}\n")
        return 2
    the_app(project)  # registers the project's configuration, as fw run would
    parse_without_dev(lambda: configuration.parse_config(request.configuration))
    auth = configuration.config(AuthSettings)
    if not auth.enabled or auth.mode != "passkey_only":
        has = f"auth.mode = {auth.mode}" if auth.enabled else "auth.enabled = false"
        sys.stderr.write(
            f"fw: bootstrap credentials exist only with auth.mode = passkey_only; this project has {has}\n"
        )
        return 1
    if not request.recovery and auth.registration.policy == "disabled":
        sys.stderr.write(
            "fw: auth.registration.policy = disabled: no new accounts are enrolled; "
            "give --recovery for an existing account\n"
        )
        return 1
    try:
        credential = asyncio.run(
            issue_bootstrap_credential(
                request.login_id,
                account_id=request.account_id,
                purpose="recovery_passkey" if request.recovery else "initial_passkey",
            )
        )
    except StartupError:
        raise  # fw migrate's advice, printed by the command as one line
    except LookupError as refusal:
        reason = str(refusal)
        if request.account_id is None:  # --recovery for a login ID nobody enrolled with
            who = request.login_id
            reason = f"no account has the login ID {who!r}; issue its first passkey without --recovery"
        sys.stderr.write(f"fw: {reason}\n")
        return 1
    except (ValueError, RuntimeError) as refusal:
        sys.stderr.write(f"fw: {refusal}\n")
        return 1
    sys.stdout.write(
        describe(credential, sign_in_url(auth, configuration.config(ServerSettings)), request.recovery)
    )
    return 0
