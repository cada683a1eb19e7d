"""``fw dev``: apply migrations, start the development identity provider if asked, then serve.

The provider gets a fresh client registration each run; its issuer and credentials reach the
application through ``AUTH_OIDC_ISSUER`` / ``AUTH_OIDC_CLIENT_ID`` / ``AUTH_OIDC_CLIENT_SECRET``,
exactly the variables a deployment would set for a real provider.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
from collections.abc import Callable, Sequence

from fw.generate.project import Project

DEV_CLIENT_ID = "fw-dev-app"


def _say(message: str) -> None:
    sys.stderr.write(f"fw dev: {message}\n")


def run_dev(project: Project, argv: Sequence[str], import_app: Callable[[Project], object]) -> int:
    from fw import configuration
    from fw.app import App, run
    from fw.devidp import DEFAULT_USERS, DevClient, NotLoopbackError, RunningProvider
    from fw.errors import ConfigError, StartupError
    from fw.rdb.migrate import application_chain, upgrade

    args = list(argv)
    provider: RunningProvider | None = None
    if project.dev_idp:
        secret = secrets.token_urlsafe(24)
        clients = [DevClient(DEV_CLIENT_ID, secret), DevClient("fw-dev-device")]
        try:
            provider = RunningProvider(clients=clients).start()
        except NotLoopbackError as refusal:
            _say(str(refusal))
            return 1
        os.environ["AUTH_OIDC_ISSUER"] = provider.issuer
        os.environ["AUTH_OIDC_CLIENT_ID"] = DEV_CLIENT_ID
        os.environ["AUTH_OIDC_CLIENT_SECRET"] = secret
        os.environ.setdefault("AUTH_OIDC_ALLOW_LOOPBACK_HTTP", "true")
        users = ", ".join(user.sub for user in DEFAULT_USERS)
        _say(f"development identity provider at {provider.issuer} (users: {users}; no password)")
    try:
        app = import_app(project)
        if not isinstance(app, App):
            _say(f"[tool.fw] app {project.app} is not an fw.App")
            return 1
        try:
            configuration.parse_config(args)
            if configuration.requested_template() is None:
                for line in asyncio.run(upgrade(application=application_chain(project.root))):
                    _say(line)
        except (ConfigError, StartupError) as error:
            _say(str(error))
            return 1
        try:
            run(app, args)
        except SystemExit as stop:
            return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        return 0
    finally:
        if provider is not None:
            provider.stop()
